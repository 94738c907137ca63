"""A law that proves an interval's lower end lies below a value, with no end solved (eq. (L6)).

The lower end of the interval of g is min E_pi[g] over C = {pi : l(pi) >= l(pi-hat) - c}
(eq. (L6)). A single law w of C with E_w[g] < v proves that end to be below v; whether it is
in C costs one evaluation of l. A study plan asks of every simulated study only whether the
gain's lower end lies above 0 (:mod:`certify.planning._planning`); where a witness settles it,
the end is not solved.

**Which c.** The chi-square value of g's calibration (profile or projection, in the F-form of
:func:`._calibration.critical_value`). The small-count calibration only raises c (it uses
max(c, quantile / 2)) and so enlarges C: a witness at this c is one at the c the interval uses.
The face calibration can lower c and is not covered (the default projection is).

**Candidates.** The given laws, and for each the mixtures (1 - s) w + s pi-hat for s in
WITNESS_MIX: l is concave along that segment (l of the mixture >= (1 - s) l(w) + s l(pi-hat))
and E[g] linear, so a law just outside C whose E[g] is well below v enters C at a small cost
in E[g]. The first candidate that is in C with E[g] <= v - WITNESS_MARGIN (1 + max |g|)
is returned; the margin keeps the decision equal to the solved end's, whose certified value
is exact to far less (CERT_TOL).
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from .._objective import Objective
from .._results import Law
from ._calibration import _Context
from ._cells import _as_cells
from ._problem import admit
from ._results import LatentLaw
from ._targets import _Law, _objective, _range
from ._tolerances import WITNESS_MARGIN, WITNESS_MIX, WITNESS_WEIGHT_SUM_TOL

__all__ = ["witness_below"]


def _law_arrays(law) -> tuple[np.ndarray, np.ndarray]:
    """(atoms, weights) of a :class:`certify.Law`, a :class:`LatentLaw` or an (atoms, weights) pair."""
    atoms, weights = (law.atoms, law.weights) if hasattr(law, "atoms") else law
    a, w = np.asarray(atoms, dtype=float), np.asarray(weights, dtype=float)
    if (
        a.ndim != 1
        or a.shape != w.shape
        or len(a) == 0
        or np.any((a < 0) | (a > 1))
        or np.any(w < 0)
        or not abs(float(w.sum()) - 1.0) <= WITNESS_WEIGHT_SUM_TOL
    ):
        raise InputError("a witness law needs 1-d atoms in [0, 1] and weights >= 0 summing to 1, of equal length")
    return a, w


def witness_below(
    cells, objective, value: float, laws, *, alpha: float = 0.05, reference: LatentLaw | None = None
) -> Law | None:
    """A law of the likelihood set C of ``objective`` whose E[g] is below ``value``, or None.

    A returned law proves that the lower end of the interval of :func:`likelihood_interval`
    (same ``alpha``, default calibration) is below ``value``. None proves nothing: the end
    must then be solved.

    Parameters
    ----------
    cells : CellCounts or CallBits
    objective : polynomial objective (an ``Objective``, a vote count or its text)
        V_inf and pass@inf are not taken: their ends are envelopes (eq. (L12)).
    value : float
    laws : sequence of Law, LatentLaw or (atoms, weights)
        Candidates (module docstring); the mixtures of each with pi-hat are tried too.
    alpha : float
    reference : LatentLaw, optional
        pi-hat of ``cells`` (computed if not given).

    Returns
    -------
    Law or None
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
    ):
        raise InputError(f"value={value!r} must be a finite number")
    obj = _objective(objective)
    if not isinstance(obj, Objective):
        raise InputError(f"objective={objective!r}: a witness is for polynomial objectives, not {obj.name}")
    cells = _as_cells(cells)
    admit(cells, [obj])
    ctx = _Context(cells, alpha, False, None, reference)
    ctx.calibrate(ctx.calibration_of(obj))
    candidates = [_law_arrays(law) for law in laws]
    below = float(value) - WITNESS_MARGIN * (1.0 + max(abs(b) for b in _range(obj)))
    ref = ctx.ref_law
    for atoms, weights in candidates:
        for s in WITNESS_MIX:
            law = _Law.unassigned(
                np.concatenate([atoms, ref.atoms]), np.concatenate([(1.0 - s) * weights, s * ref.weights])
            )
            if float(law.weights @ obj.evaluate(law.atoms)) > below:
                continue
            if ctx.prob.loglik(ctx.prob.probabilities(law)) >= ctx.level:
                keep = law.weights > 0
                return Law(atoms=tuple(law.atoms[keep].tolist()), weights=tuple(law.weights[keep].tolist()))
    return None
