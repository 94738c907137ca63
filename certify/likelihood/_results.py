"""What the likelihood engine returns: the NPMLE, one certified interval end, an interval.

:class:`LatentLaw` is pi-hat of eq. (L3) with its optimality check (L5) (:mod:`._npmle`);
:class:`LikelihoodEnd` is one end of the set C of eq. (L6) with its Lagrangian certificate
(L9)-(L11) (:mod:`._ends`); :class:`LikelihoodInterval` pairs two ends with the calibration of c
(:mod:`._calibration`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._aggregate_bounds import PASS_INF
from .._interval import Interval
from .._results import Law

__all__ = ["LatentLaw", "LikelihoodEnd", "LikelihoodInterval", "PASS_INF_NOTE"]

#: Said with every interval of pass@inf = P(Q > 0): its upper end is not a computation.
PASS_INF_NOTE = (
    "the upper end of P(Q > 0) is 1 by definition: moving a law's mass at q = 0 to a small eps > 0 keeps "
    "it in the likelihood set (the likelihood is continuous in the atoms) and solves every example"
)


@dataclass(frozen=True)
class LatentLaw:
    """The NPMLE pi-hat of the latent law (eq. (L3)) and its optimality check (eq. (L5)).

    Attributes
    ----------
    atoms, weights : tuple of float
        Support points in [0, 1] (sorted) and their probabilities.
    loglik : float
        l(pi-hat) = sum_c n_c log p_c(pi-hat), binomial coefficients included.
    max_gradient : float
        max over [0, 1] of D(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi-hat) - N (0 at the
        optimum); by concavity sup_pi l(pi) <= loglik + max(max_gradient, 0).
    argmax_gradient : float
        Where D attains that maximum.
    n : int
        Examples N.
    """

    atoms: tuple[float, ...]
    weights: tuple[float, ...]
    loglik: float
    max_gradient: float
    argmax_gradient: float
    n: int

    def law(self) -> Law:
        """The law as a :class:`certify.Law` (atoms, weights)."""
        return Law(atoms=self.atoms, weights=self.weights)


@dataclass(frozen=True)
class LikelihoodEnd:
    """One end of a likelihood-ratio interval with its Lagrangian certificate (eqs. (L9)-(L11)).

    For ``side="lower"``: g(q) - lam h(q) >= a on [0, 1], and every law pi with
    l(pi) >= reference - c has E_pi[g] >= a + lam b = ``certified``.
    For ``side="upper"``: g(q) + lam h(q) <= a on [0, 1], and every such law has
    E_pi[g] <= a - lam b = ``certified``. Here h(q) = sum_c n_c Bin(S_c; K_c, q) / p_c(pi*).
    For V_inf, g in these inequalities is 1{q > 1/2} (lower) and 1{q >= 1/2} (upper), the
    envelopes that bound V_inf from below and above (eq. (L12)); for pass@inf = P(Q > 0) it is
    1{q > 0} (lower) and the constant 1 (upper: 1 by definition, with lam = 0 and pi* = pi-hat).

    Attributes
    ----------
    objective : str
        Name of g (``"Vinf"`` for the infinite-vote accuracy, ``"pass_inf"`` for P(Q > 0)).
    side : str
        ``"lower"`` or ``"upper"``.
    value : float
        The optimum: min (lower) or max (upper) of E_pi[g] over the set (inf/sup for V_inf),
        moved onto an enclosure of the range of g where rounding put it just outside (1 + 1 ulp
        for an accuracy): still a valid bound, as no law has E_pi[g] outside that range.
    atoms, weights : tuple of float
        The extremal law pi*.
    lam : float
        The Lagrange multiplier lambda >= 0 (0: the constraint is slack).
    a : float
        min over [0, 1] of g - lam h (lower), max of g + lam h (upper).
    b : float
        reference - c - loglik + N, the lower bound on E_pi[h] over the set (eq. (L10)).
    reference : float
        The reference log-likelihood l(pi-hat) used to define the set.
    c : float
        The likelihood drop allowed: the set is {pi : l(pi) >= reference - c}.
    certified : float
        a + lam b (lower) or a - lam b (upper); equals ``value`` up to rounding.
    loglik : float
        l(pi*).
    attained : bool
        Whether pi* itself has E[g] = value. False only for V_inf when pi* has an atom at
        the jump q = 1/2: the extreme is then approached by moving that atom to 1/2 -+ eps;
        for the upper end of pass@inf when pi* (pi-hat) has an atom at 0, which moves to eps;
        and where the search stopped at a law of the set with E[g] within NEAR_MIN_TOL (1e-6) of
        min g (max g for an upper end): the end is then that certified bound, lam = 0, and pi*
        is within 1e-6 of it (conservative by at most that).
    """

    objective: str
    side: str
    value: float
    atoms: tuple[float, ...]
    weights: tuple[float, ...]
    lam: float
    a: float
    b: float
    reference: float
    c: float
    certified: float
    loglik: float
    attained: bool = True

    @property
    def level(self) -> float:
        """reference - c, the log-likelihood threshold of the set."""
        return self.reference - self.c

    def law(self) -> Law:
        """The extremal law as a :class:`certify.Law`."""
        return Law(atoms=self.atoms, weights=self.weights)


@dataclass(frozen=True)
class LikelihoodInterval:
    """Likelihood-ratio interval [min, max] of E_pi[g] over {pi : l(pi) >= l(pi-hat) - c}.

    Attributes
    ----------
    objective : str
        Name of g.
    lower, upper : LikelihoodEnd
        The two ends with their certificates.
    alpha : float or None
        1 - confidence level (None when ``c`` was given directly).
    c : float
        chi2_{df, 1-alpha} / 2, or the given c.
    df : int
        Degrees of freedom of c: 1 (profile), or the identified dimension (projection,
        simultaneous); 0 when ``c`` was given directly.
    simultaneous : bool
        Whether c is the simultaneous (all objectives at once) value.
    calibration : str
        How c was chosen (eq. (L6)): ``"profile"`` (identified objective, chi2_1),
        ``"projection"`` (objective not identified by the recorded calls, chi2_df),
        ``"face"`` (not identified, chi2_d with d the free parameters of the extremal laws;
        ``beyond="face"``), ``"simultaneous"`` (chi2_df for every objective) or ``"given"``
        (c passed directly).
    reference : LatentLaw
        The NPMLE defining the set.
    small_count : bool
        Whether c was raised above the chi-square value by the small-count calibration
        (:mod:`certify.likelihood._calibration`): the estimate rests on cells with few examples.
    identified : bool
        Whether the recorded calls identify the objective (a polynomial of degree at most the most
        calls of an example), whatever the calibration; the steps V_inf and pass@inf never are.
    """

    objective: str
    lower: LikelihoodEnd
    upper: LikelihoodEnd
    alpha: float | None
    c: float
    df: int
    simultaneous: bool
    calibration: str
    reference: LatentLaw
    small_count: bool = False
    identified: bool = False

    @property
    def width(self) -> float:
        return self.upper.value - self.lower.value

    def as_tuple(self) -> tuple[float, float]:
        return (self.lower.value, self.upper.value)

    @property
    def note(self) -> str:
        """:data:`PASS_INF_NOTE` for pass@inf (``objective == "pass_inf"``), else ``""``."""
        return PASS_INF_NOTE if self.objective == PASS_INF.name else ""

    def interval(self, calls: int) -> Interval:
        """The interval as every result row carries it (:class:`certify._interval.Interval`), made from
        ``calls`` calls per example (the most of an example); its ends are not certified until
        :func:`~certify.likelihood.certify_interval` proves them."""
        return Interval(
            self.lower.value,
            self.upper.value,
            math.nan if self.alpha is None else float(self.alpha),
            "likelihood",
            self.calibration_text(),
            int(calls),
            route="identified" if self.identified else "beyond the calls",
            note=self.note,
        )

    def calibration_text(self) -> str:
        """One line saying how c was chosen, e.g. ``asymptotic, profile likelihood ratio, chi2(1, 0.95) ...``."""
        if self.calibration == "given":
            return f"likelihood ratio, c = {self.c:g} given"
        assert self.alpha is not None  # alpha is None only for a given c
        if self.small_count:
            return (
                f"approximate, {self.calibration} likelihood ratio, c = {self.c:.4g} from the small-count "
                f"calibration (simulated lattice quantile at {1 - self.alpha:g}; above chi2({self.df}))"
            )
        return (
            f"asymptotic, {self.calibration} likelihood ratio, chi2({self.df}, {1 - self.alpha:g}) "
            f"with the F small-sample correction (c = {self.c:.4g})"
        )
