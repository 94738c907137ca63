"""Polynomial objectives g(q) whose expectation over a latent law is bounded.

An :class:`Objective` is a rational linear combination of majority polynomials
P_n (kept symbolic, evaluated through the incomplete beta function) plus an
arbitrary polynomial in q stored by exact Bernstein coefficients. Exact rational
coefficients of the whole objective are available for verification.

Text syntax accepted by :func:`parse_objective` (documented in docs/reference/objectives.md):

* ``"P3 - P1"`` -- paper indexing, P_n is the accuracy of 2n+1 votes (P0 = q);
* ``"V7 - V3"`` -- vote counts; an even count 2n with fair ties is V_{2n-1};
* ``"3*q**2 - 2*q**3"`` -- any polynomial in ``q`` (``^`` also means power);
* combinations such as ``"V5 - q"`` or ``"(P2 + P1)/2 - 1/4"``.

Numbers may be integers, decimals or fractions; they are taken as exact rationals.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np

from ._bernstein import (
    SCALAR_MAX_DEGREE,
    bernstein_derivative,
    bernstein_eval,
    bernstein_scalar,
    bernstein_to_monomial,
    monomial_to_bernstein,
)
from ._errors import InputError, ObjectiveError
from ._majority import (
    majority_index,
    majority_jet,
    majority_monomial_coefficients,
    majority_polynomial_jet,
    majority_scalar,
)
from ._numbers import MAX_MAGNITUDE, exact_number, shown_value

__all__ = [
    "Objective",
    "parse_objective",
    "vote_accuracy",
    "vote_gain",
    "majority_objective",
    "votes_label",
    "OneInstance",
    "VoteLimit",
    "V_INF",
    "is_vote_limit",
    "parse_vote_budget",
    "parse_vote_budgets",
    "budget_json",
]

#: Highest degree accepted when an expression must be expanded into monomials (explicit
#: powers of q, products of vote terms). Expansion and the exact Bernstein conversion cost
#: O(d^2) rational operations: about 2 s at degree 400 on one core, so 512 keeps every
#: accepted objective within seconds. Sums of vote terms (V4001 - V1) are never expanded.
MAX_EXPANDED_DEGREE = 512
#: Longest objective text: far above any real objective, and it bounds the parser's work.
MAX_TEXT_LENGTH = 2000

# A decimal literal with an exponent (mantissa, exponent), as Python's tokenizer reads it.
_EXPONENT_LITERAL = re.compile(r"(?<![A-Za-z_0-9.])((?:\d+\.?\d*|\.\d+))[eE]([+-]?\d+)")
#: Deepest parenthesis nesting (sympy's parser recurses on it).
MAX_NESTING = 50
#: Largest vote budget k of V_k (and 2n+1 of P_n); beyond it the V_inf endpoint (``inf``) is
#: the answer. What limits it is the work of the code that evaluates V_k on grids: the
#: likelihood intervals of ``certify analyze`` take about 25 s at 10^6 votes and run out
#: of memory near 10^8 (their grids grow with k), and the projected Wald intervals stop
#: converging near 10^9. The sharp bounds alone stay accurate far beyond (the majority
#: step at 1/2 has width about 1/sqrt(k); extremal laws degenerate only where that width
#: nears double rounding, k > 10^20). Numbers in an objective obey
#: :data:`certify._numbers.MAX_MAGNITUDE`.
MAX_VOTES = 10**6


def _fraction(value, what: str) -> Fraction:
    return exact_number(value, what, ObjectiveError)


@dataclass(frozen=True)
class Objective:
    """A polynomial objective g(q) on [0, 1].

    Parameters
    ----------
    name : str
        Readable name, e.g. ``"V3"`` or ``"P3 - P1"``.
    majority : tuple of (Fraction, int)
        Terms c * P_n, sorted by n, with nonzero c.
    bernstein : tuple of Fraction
        Exact Bernstein coefficients of the remaining polynomial part (may be empty).
    """

    name: str
    majority: tuple[tuple[Fraction, int], ...] = ()
    bernstein: tuple[Fraction, ...] = field(default=())

    # -- construction -----------------------------------------------------
    @classmethod
    def from_coefficients(cls, coeffs: Sequence, name: str | None = None) -> Objective:
        """Objective from monomial coefficients ``[c0, c1, ...]`` (g = sum c_i q^i)."""
        if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
            raise ObjectiveError(f"coefficients={coeffs!r} must be a sequence of numbers")
        if len(coeffs) == 0:
            raise ObjectiveError("coefficients=[] must contain at least one number")
        exact = [_fraction(c, f"coefficient[{i}]") for i, c in enumerate(coeffs)]
        while len(exact) > 1 and exact[-1] == 0:
            exact.pop()
        if name is None:
            name = " + ".join(f"({c})*q**{i}" for i, c in enumerate(exact) if c != 0) or "0"
        return cls(name=name, bernstein=monomial_to_bernstein(exact))

    # -- structure --------------------------------------------------------
    @property
    def degree(self) -> int:
        """Degree bound: the largest of 2n+1 over majority terms and the Bernstein degree."""
        d = max((2 * n + 1 for _, n in self.majority), default=0)
        return max(d, len(self.bernstein) - 1)

    @property
    def is_vote_accuracy(self) -> bool:
        """True when the objective is a single P_n with coefficient 1 and nothing else."""
        return len(self.majority) == 1 and self.majority[0][0] == 1 and not any(self.bernstein)

    @cached_property
    def _bern_float(self) -> np.ndarray:
        return np.array([float(b) for b in self.bernstein], dtype=float)

    @cached_property
    def _bern_jet(self) -> tuple[list, list, list] | None:
        """Float Bernstein coefficients of the polynomial part and its two derivatives."""
        if not len(self.bernstein) or len(self.bernstein) - 1 > SCALAR_MAX_DEGREE:
            return None
        b0 = self._bern_float.tolist()
        b1 = bernstein_derivative(b0)
        return b0, b1, bernstein_derivative(b1)

    @cached_property
    def _maj_float(self) -> tuple[tuple[float, int], ...]:
        return tuple((float(c), n) for c, n in self.majority)

    # -- evaluation ---------------------------------------------------------
    def evaluate(self, q, derivative: int = 0):
        """Evaluate g or its first or second derivative at ``q`` (stable at any degree)."""
        if isinstance(q, float):
            out = 0.0
            for c, n in self._maj_float:
                out += c * majority_scalar(n, q, derivative)
            return out + self._bernstein_at(q, derivative)
        qa = np.asarray(q, dtype=float)
        (values,) = self.evaluate_jet(qa, (derivative,))
        return values if qa.ndim else float(values)

    def evaluate_jet(self, q, derivatives=(0, 1, 2)) -> list[np.ndarray]:
        """g and its derivatives at the points ``q`` (the array path of :meth:`evaluate`)."""
        qa = np.asarray(q, dtype=float)
        terms = [[c * v for v in majority_polynomial_jet(n, qa, derivatives)] for c, n in self._maj_float]
        if len(self.bernstein):
            terms.append([bernstein_eval(self._bern_float, qa, d) for d in derivatives])
        if not terms:
            return [np.zeros_like(qa) for _ in derivatives]
        # summed term by term, the first term as it is (no zeros to start from: the one-term
        # objective, V_k, is Newton's hot path)
        out = terms[0]
        for more in terms[1:]:
            out = [a + b for a, b in zip(out, more)]
        return out

    __call__ = evaluate

    def jet(self, q: float) -> tuple[float, float, float]:
        """g(q), g'(q) and g''(q) at one point (the scalar hot path of Newton's method)."""
        f0 = f1 = f2 = 0.0
        for c, n in self._maj_float:
            v0, v1, v2 = majority_jet(n, q)
            f0, f1, f2 = f0 + c * v0, f1 + c * v1, f2 + c * v2
        if not len(self.bernstein):
            return f0, f1, f2
        return f0 + self._bernstein_at(q, 0), f1 + self._bernstein_at(q, 1), f2 + self._bernstein_at(q, 2)

    def _bernstein_at(self, q: float, derivative: int) -> float:
        """The polynomial part (or a derivative) at one point: the scalar loop up to its degree limit."""
        if self._bern_jet is not None:
            return bernstein_scalar(self._bern_jet[derivative], q)
        return float(bernstein_eval(self._bern_float, q, derivative)) if len(self.bernstein) else 0.0

    def monomial_coefficients(self) -> tuple[Fraction, ...]:
        """Exact rational monomial coefficients c_0..c_d of g."""
        coeffs = [Fraction(0)] * (self.degree + 1)
        for c, n in self.majority:
            for i, a in enumerate(majority_monomial_coefficients(n)):
                coeffs[i] += c * a
        if self.bernstein:
            for i, b in enumerate(bernstein_to_monomial(self.bernstein)):
                coeffs[i] += b
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        return tuple(coeffs)

    # -- algebra ------------------------------------------------------------
    def scaled(self, factor, name: str | None = None) -> Objective:
        """The objective multiplied by an exact rational ``factor``."""
        f = _fraction(factor, "factor")
        return Objective(
            name=name or f"{f}*({self.name})",
            majority=tuple((c * f, n) for c, n in self.majority if c * f != 0),
            bernstein=tuple(b * f for b in self.bernstein),
        )

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "majority": [[str(c), n] for c, n in self.majority],
            "bernstein": [str(b) for b in self.bernstein],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Objective:
        try:
            return cls(
                name=str(data["name"]),
                majority=tuple((Fraction(c), int(n)) for c, n in data.get("majority", [])),
                bernstein=tuple(Fraction(b) for b in data.get("bernstein", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ObjectiveError(f"objective record {data!r} is malformed: {exc}") from None


def majority_objective(n: int) -> Objective:
    """The objective P_n: accuracy of a strict majority of 2n+1 votes."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ObjectiveError(f"n={n!r} must be a nonnegative integer paper index (2n+1 votes)")
    if 2 * n + 1 > MAX_VOTES:
        raise ObjectiveError(
            f"P{n} is {2 * n + 1} votes, more than the limit of {MAX_VOTES} votes; use the endpoint 'inf'"
        )
    return Objective(name=f"P{int(n)}", majority=((Fraction(1), int(n)),))


def vote_accuracy(votes: int) -> Objective:
    """The objective V_votes: majority accuracy of ``votes`` calls (fair ties for even counts).

    Raises
    ------
    ObjectiveError
        For a budget that is not a positive integer or exceeds :data:`MAX_VOTES`.
    """
    n = majority_index(votes)
    if votes > MAX_VOTES:
        raise ObjectiveError(f"votes={votes} is more than the limit of {MAX_VOTES} votes; use the endpoint 'inf'")
    return Objective(name=f"V{int(votes)}", majority=((Fraction(1), n),))


def vote_gain(votes: int) -> Objective:
    """The objective V_votes - V_1: what a vote of ``votes`` calls gains over one call.

    The same :class:`Objective` as parsing ``"V<votes> - V1"`` (name included), built from its
    majority terms P_n - P_0 directly: the analysis names a gain for every budget, and the
    text parser needs sympy, whose import alone costs more than half a second.

    Raises
    ------
    ObjectiveError
        As :func:`vote_accuracy` for ``votes``.
    """
    ((_, n),) = vote_accuracy(votes).majority
    terms = ((Fraction(-1), 0), (Fraction(1), n)) if n > 0 else ()
    # V_1 - V_1 and V_2 - V_1 are the zero polynomial; the parser spells it as one zero coefficient
    return Objective(name=f"V{int(votes)} - V1", majority=terms, bernstein=() if terms else (Fraction(0),))


# ASCII only: in a str pattern \d and \s also match other scripts' digits and spaces.
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/^()]))",
    re.ASCII,
)
_NAME = re.compile(r"^(?:q|[PV]\d+)$", re.ASCII)


def _check_tokens(text: str) -> None:
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            rest = text[pos:].strip()
            if not rest:
                return
            raise ObjectiveError(
                f"objective {text!r}: unexpected character {rest[0]!r}; "
                "see the objective syntax (P3 - P1, V7 - V3, 3*q**2 - 2*q**3)"
            )
        name = m.group("name")
        if name is not None and not _NAME.match(name):
            raise ObjectiveError(f"objective {text!r}: unknown name {name!r}; use q, Pn (2n+1 votes) or Vk (k votes)")
        pos = m.end()


def _symbol_objective(symbol_name: str) -> Objective:
    idx = int(symbol_name[1:])
    if symbol_name[0] == "P":
        return majority_objective(idx)
    if idx < 1:
        raise ObjectiveError(
            f"objective term {symbol_name!r}: a budget of {idx} votes is not allowed (need at least 1)"
        )
    return vote_accuracy(idx)


def parse_objective(spec) -> Objective:
    """Build an :class:`Objective` from any accepted form.

    Parameters
    ----------
    spec : Objective, str, sequence of numbers, or sympy expression
        A string in the documented syntax (``"P3 - P1"``, ``"V7 - V3"``,
        ``"3*q**2 - 2*q**3"``), monomial coefficients ``[c0, c1, ...]``, or a
        sympy expression in the symbol ``q``.

    Returns
    -------
    Objective

    Raises
    ------
    ObjectiveError
        If the input is not a polynomial in q and the vote symbols, has a
        non-rational coefficient, or names an unknown symbol.
    """
    if isinstance(spec, Objective):
        return spec
    if isinstance(spec, str):
        return _parse_text(spec.strip())
    try:
        import sympy

        if isinstance(spec, sympy.Basic):
            return _from_sympy(spec, name=str(spec))
    except ImportError:  # pragma: no cover
        pass
    if isinstance(spec, (list, tuple, np.ndarray)):
        return Objective.from_coefficients(list(spec))
    raise ObjectiveError(f"objective {spec!r} must be a string, coefficient list or sympy expression")


@lru_cache(maxsize=512)
def _parse_text(text: str) -> Objective:
    """Objective from the text syntax.

    Memoized (``lru_cache``): the Objective of each text, at most 512 of them, since sympy
    parsing costs about a millisecond and the same objective is named again and again.
    Parsing is deterministic and an Objective is immutable (its exact coefficients fix
    everything computed from it), so a cached one is interchangeable with a fresh parse:
    the cache cannot change a result.
    """
    if not text:
        raise ObjectiveError("objective '' is empty; see the objective syntax (P3 - P1, V7 - V3, 3*q**2 - 2*q**3)")
    if len(text) > MAX_TEXT_LENGTH:
        raise ObjectiveError(f"objective of {len(text)} characters is longer than the limit {MAX_TEXT_LENGTH}")
    depth = deepest = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise ObjectiveError(
            f"objective {text[:40]!r}...: parentheses nested {deepest} deep, more than the limit {MAX_NESTING}"
        )
    _check_tokens(text)
    # A literal such as 1e-400999 costs sympy seconds to build (and more with more digits in the
    # exponent): its magnitude is decided from the text, before any parsing.
    for mantissa, exponent in _EXPONENT_LITERAL.findall(text):
        if abs(int(exponent)) > 400 if len(exponent.lstrip("+-0")) <= 4 else True:
            raise ObjectiveError(
                f"objective {text[:60]!r}: the number {mantissa}e{exponent[:12]} is outside the allowed "
                f"magnitudes [1e-300, 1e300]"
            )
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        parse_expr,
        rationalize,
        standard_transformations,
    )

    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    local = {n: sympy.Symbol(n) for n in names}
    options = dict(
        local_dict=local,
        # Add, Mul and Pow: the unevaluated parse spells the tree with them.
        global_dict={
            "Integer": sympy.Integer,
            "Float": sympy.Float,
            "Rational": sympy.Rational,
            "Symbol": sympy.Symbol,
            "Add": sympy.Add,
            "Mul": sympy.Mul,
            "Pow": sympy.Pow,
        },
        transformations=standard_transformations + (convert_xor, rationalize),
    )
    try:
        # First the unevaluated tree: its size is checked before any power is computed
        # or expanded (9**9**9, (1+q)**2000 would otherwise run for minutes).
        _expansion_degree(parse_expr(text, evaluate=False, **options), text)
        expr = parse_expr(text, evaluate=True, **options)
    except ObjectiveError:
        raise
    except Exception as exc:  # sympy raises many types for malformed input
        raise ObjectiveError(f"objective {text!r} is not a valid expression ({type(exc).__name__})") from None
    return _from_sympy(expr, name=" ".join(text.split()))


def _expansion_degree(expr, text: str, expanded: bool = False) -> int:
    """An upper bound on the degree in q that expanding ``expr`` produces; refuse what is too large.

    Vote terms count with their degree (2n+1 for P_n, k for V_k) only where they must be
    expanded: inside a product with another non-constant factor or a power above 1. A
    power needs an integer literal exponent; numbers must stay within MAX_MAGNITUDE.
    """
    import sympy

    if expr.is_Symbol:
        if expr.name == "q":
            return 1
        return _symbol_objective(expr.name).degree if expanded else 0
    if expr.is_Number:
        if expr != 0 and not (sympy.Rational(1, MAX_MAGNITUDE) <= abs(expr) <= MAX_MAGNITUDE):
            raise ObjectiveError(
                f"objective {text!r}: the number {sympy.Float(expr, 3)} is outside the allowed "
                f"magnitudes [1e-300, 1e300]"
            )
        return 0
    if expr.is_Pow:
        base, exponent = expr.args
        if not exponent.is_Integer or abs(int(exponent)) > MAX_EXPANDED_DEGREE:
            raise ObjectiveError(
                f"objective {text!r}: exponent {exponent} must be an integer literal of at most "
                f"{MAX_EXPANDED_DEGREE} in absolute value"
            )
        if base.is_Number:
            _expansion_degree(base, text)
            if abs(base) != 1 and abs(int(exponent)) * abs(math.log10(abs(float(base)))) > 300:
                raise ObjectiveError(
                    f"objective {text!r}: {base}**{exponent} is outside the allowed magnitudes [1e-300, 1e300]"
                )
            return 0
        degree = _expansion_degree(base, text, expanded or int(exponent) > 1) * max(int(exponent), 0)
    elif expr.is_Mul or expr.is_Add:
        factors = [a for a in expr.args if a.free_symbols]
        inner = expanded or (expr.is_Mul and len(factors) > 1)
        parts = [_expansion_degree(a, text, inner) for a in expr.args]
        degree = sum(parts) if expr.is_Mul else max(parts, default=0)
    else:
        return 0  # anything else is refused by the polynomial checks that follow
    if degree > MAX_EXPANDED_DEGREE:
        raise ObjectiveError(
            f"objective {text[:60]!r}: expanding it gives degree up to {degree}, more than the limit "
            f"{MAX_EXPANDED_DEGREE} (sums of vote terms such as V4001 - V1 need no expansion)"
        )
    return degree


def _poly(expr, gens):
    """``expr`` as a sympy Poly over QQ in ``gens``, multiplied out in the polynomial ring.

    ``sympy.expand`` on the expression tree takes about 12 s for (q+1)**256*(q-1)**256;
    the same product of dense polynomials takes milliseconds. Degrees are bounded by
    :func:`_expansion_degree` before this runs; a term that is not a polynomial (q**-1)
    raises sympy's PolynomialError.
    """
    import sympy

    if expr.is_Add or expr.is_Mul:
        parts = [_poly(a, gens) for a in expr.args]
        out = parts[0]
        for part in parts[1:]:
            out = out + part if expr.is_Add else out * part
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        return _poly(expr.base, gens) ** int(expr.exp)
    return sympy.Poly(expr, *gens, domain="QQ")


def _from_sympy(expr, name: str) -> Objective:
    import sympy
    from sympy.polys.polyerrors import BasePolynomialError

    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    for s in symbols:
        if not _NAME.match(s.name):
            raise ObjectiveError(f"objective {name!r}: unknown symbol {s.name!r}; use q, Pn or Vk")
    vote_syms = [s for s in symbols if s.name != "q"]
    q = sympy.Symbol("q")
    try:
        poly = _poly(expr, (q, *vote_syms)) if (vote_syms or q in symbols) else None
    except BasePolynomialError:
        raise ObjectiveError(f"objective {name!r} is not a polynomial in q and the vote terms") from None
    if poly is None:
        if not expr.is_Rational:
            raise ObjectiveError(f"objective {name!r} must have rational coefficients")
        return Objective.from_coefficients([_fraction(expr, "constant")], name=name)
    for coeff in poly.coeffs():
        if not coeff.is_Rational:
            raise ObjectiveError(f"objective {name!r} has a non-rational coefficient {coeff}; write it as a fraction")

    linear_in_votes = all(sum(monom[1:]) <= 1 and (sum(monom[1:]) == 0 or monom[0] == 0) for monom in poly.monoms())
    majority: dict[int, Fraction] = {}
    q_coeffs: dict[int, Fraction] = {}
    if linear_in_votes:
        for monom, coeff in zip(poly.monoms(), poly.coeffs()):
            c = _fraction(coeff, "coefficient")
            if sum(monom[1:]) == 0:
                q_coeffs[monom[0]] = q_coeffs.get(monom[0], Fraction(0)) + c
            else:
                sym = vote_syms[[i for i, e in enumerate(monom[1:]) if e][0]]
                ((_, n),) = _symbol_objective(sym.name).majority
                majority[n] = majority.get(n, Fraction(0)) + c
    else:
        # Products of vote terms: substitute their exact polynomials and expand.
        subs = {}
        for s in vote_syms:
            ((_, n),) = _symbol_objective(s.name).majority
            if 2 * n + 1 > MAX_EXPANDED_DEGREE:
                raise ObjectiveError(f"objective {name!r}: {s.name} is too large to expand in a product")
            subs[s] = sum(sympy.Integer(c) * q**i for i, c in enumerate(majority_monomial_coefficients(n)))
        expanded = _poly(expr.subs(subs), (q,))
        if expanded.degree() > MAX_EXPANDED_DEGREE:
            raise ObjectiveError(f"objective {name!r} has degree {expanded.degree()} > {MAX_EXPANDED_DEGREE}")
        for (k,), coeff in zip(expanded.monoms(), expanded.coeffs()):
            q_coeffs[k] = _fraction(coeff, "coefficient")
    if q_coeffs and max(q_coeffs) > MAX_EXPANDED_DEGREE:
        raise ObjectiveError(f"objective {name!r} has degree {max(q_coeffs)} > {MAX_EXPANDED_DEGREE}")
    bern: tuple[Fraction, ...] = ()
    if any(c != 0 for c in q_coeffs.values()):
        mono = [Fraction(0)] * (max(q_coeffs) + 1)
        for k, c in q_coeffs.items():
            mono[k] = c
        bern = monomial_to_bernstein(mono)
    maj = tuple((c, n) for n, c in sorted(majority.items()) if c != 0)
    if not maj and not bern:
        bern = (Fraction(0),)
    return Objective(name=name, majority=maj, bernstein=bern)


# ----------------------------------------------------------------------------------------------
# Vote budgets: a count of calls or the infinite budget V_inf


class OneInstance:
    """A class with exactly one instance, tested by identity (``x is V_INF``).

    A subclass sets ``_global``, the module-level name of its instance in its own module:
    ``repr`` shows it, and pickling and copying return the one instance.
    """

    __slots__ = ()
    _global = ""

    def __new__(cls):
        if cls.__dict__.get("_instance") is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return self._global

    def __reduce__(self) -> str:
        return self._global  # pickling and copying keep the one instance

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class VoteLimit(OneInstance):
    """The infinite vote budget: V_inf = lim V_k = P(Q > 1/2) + P(Q = 1/2)/2 (eq. (main-vinf)).

    V_inf is a step function of q, not a polynomial: its sharp bounds are a supremum and an
    infimum (Theorem 4.3), computed and certified apart from the polynomial objectives. There
    is one instance, :data:`V_INF`; code tests a budget with ``votes is V_INF``. Its name is
    ``"V_inf"``; JSON writes it ``"inf"`` (:func:`budget_json`), and :func:`parse_vote_budget`
    reads every accepted spelling back to it.
    """

    __slots__ = ()
    _global = "V_INF"
    name = "V_inf"


#: The infinite vote budget V_inf (the only :class:`VoteLimit`).
V_INF = VoteLimit()

#: Spellings of V_inf accepted in user text and JSON (case and surrounding blanks ignored).
INFINITE_SPELLINGS = ("inf", "infinity", "vinf", "v_inf", "v-inf")
#: How V_inf is written in JSON outputs.
_INFINITE_JSON = "inf"
_COUNT = re.compile(r"\d+", re.ASCII)  # ASCII digits only: int() also reads "1_000", "+3" and other scripts' digits


def is_vote_limit(value) -> bool:
    """True when ``value`` names the infinite budget: :data:`V_INF`, ``float("inf")`` or a spelling of
    :data:`INFINITE_SPELLINGS` (``"inf"``, ``"Infinity"``, ``"Vinf"``, ``"V_inf"``, ...)."""
    if value is V_INF:
        return True
    if isinstance(value, str):
        return value.strip().lower() in INFINITE_SPELLINGS
    return isinstance(value, float) and value == math.inf


def parse_vote_budget(value, what: str = "votes"):
    """A vote budget from user text, JSON or Python: a count of calls or :data:`V_INF`.

    Parameters
    ----------
    value : int, str, float or VoteLimit
        A positive integer (any parity: an even count has fair ties), its plain ASCII digits,
        or the infinite budget in any spelling of :func:`is_vote_limit`.
    what : str
        The name used in error messages.

    Returns
    -------
    int or VoteLimit
        ``int`` in [1, :data:`MAX_VOTES`], or :data:`V_INF`.

    Raises
    ------
    InputError
        One line naming the value and the rule it breaks.
    """
    if is_vote_limit(value):
        return V_INF
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text.startswith("-") else text
        if _COUNT.fullmatch(digits) is None:
            raise InputError(f"{what}={shown_value(value)} must be a positive integer (plain digits) or 'inf'")
        if len(digits.lstrip("0")) > len(str(MAX_VOTES)):  # far out of range: no need to convert thousands of digits
            raise InputError(
                f"{what}={shown_value(value)} must be at least 1 (a budget of at least one call)"
                if digits != text
                else f"{what}={shown_value(value)} is more than the limit of {MAX_VOTES} votes; use the endpoint 'inf'"
            )
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{what}={shown_value(value)} must be a positive integer or 'inf'")
    value = int(value)
    if value < 1:
        raise InputError(f"{what}={value} must be at least 1 (a budget of at least one call)")
    if value > MAX_VOTES:
        raise InputError(
            f"{what}={shown_value(value)} is more than the limit of {MAX_VOTES} votes; use the endpoint 'inf'"
        )
    return value


#: Most distinct budgets of one list (``--votes``, ``votes=``): each costs its own bounds or
#: intervals (in ``certify analyze`` the likelihood intervals of V_k and of the gain V_k - V_1,
#: about 0.1 s each on small data and seconds on large); a vote curve has a dozen. Repeats are
#: merged before counting.
MAX_BUDGETS = 100


def parse_vote_budgets(values, what: str = "votes") -> tuple:
    """Several budgets (:func:`parse_vote_budget`), at least one; a single string or number is one budget.

    A budget given more than once (``3 3``, ``inf Infinity``) is one budget, where it first
    appears. More than :data:`MAX_BUDGETS` distinct budgets raise InputError, as soon as
    the first one beyond the limit is read.
    """
    if isinstance(values, (str, int, float, VoteLimit, np.integer)):
        values = [values]
    out: dict = {}  # the budgets in order, each once
    for v in values:
        out[parse_vote_budget(v, what)] = None
        if len(out) > MAX_BUDGETS:
            raise InputError(
                f"{what}: more than {MAX_BUDGETS} distinct vote budgets, the limit of one list (each "
                f"costs its own intervals); give fewer"
            )
    if not out:
        raise InputError("give at least one vote budget")
    return tuple(out)


def budget_json(votes):
    """A budget as JSON writes it: the count, or ``"inf"`` for :data:`V_INF` (read back by
    :func:`parse_vote_budget`)."""
    return _INFINITE_JSON if votes is V_INF else int(votes)


def votes_label(votes) -> str:
    """How a budget reads wherever a user sees it: ``"1 vote"``, ``"3 votes"``, ``"infinitely many votes"``.

    (The paper's index follows where the paper is cited: 2n + 1 votes is V_n.)
    """
    if is_vote_limit(votes):
        return "infinitely many votes"
    return f"{votes} vote" if votes == 1 else f"{votes} votes"
