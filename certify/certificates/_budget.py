"""The checker's work budget: how much a certificate may ask of the checker, measured from its shape.

A certificate file is small, but the work of checking it grows with what it names: the
degree of its objective, the number of digits of its rationals, and for a likelihood
certificate the calls K and the cells of its data. A 1.9 kB file claiming V10001 would
make the checker build and bisect a polynomial of degree 10001 (minutes, gigabytes); one
cell of K = 10000 calls with a 4000-digit atom makes the cell probabilities numbers of
40 million digits. Each checker therefore measures the parsed JSON object first -- its
integers and the lengths of its strings only, no arithmetic on its numbers -- and refuses
a file beyond any limit below with the check ``work_limit``, before any polynomial or
ball-arithmetic work (``certify verify`` exits 2 and says "... exceeds the checker's work
limit ..."). The limits are module constants; docs/reference/limits.md lists them.

Every limit lies above what certify itself writes (tests/test_verify_budget.py builds the
largest ones): ``certify certificate`` refuses objectives above :data:`MAX_DEGREE`, and
``certify analyze --certificates`` refuses data beyond :data:`MAX_CALLS` and
:data:`MAX_CELLS` before it solves anything.

Part of the checkers' trusted base: only the standard library, :mod:`._kernel` and :mod:`._checking`.
"""

from __future__ import annotations

import math

from ._checking import CheckFailed, show
from ._kernel import ENDPOINT_SCHEMA_VERSION, LIKELIHOOD_SCHEMA_VERSION, SCHEMA_VERSION, is_ratio

__all__ = [
    "MAX_ATOMS",
    "MAX_CALLS",
    "MAX_CELLS",
    "MAX_DEGREE",
    "MAX_DIGITS",
    "MAX_LAGRANGIAN_COST",
    "MAX_LIKELIHOOD_COST",
    "MAX_PROOF_COST",
    "check_budget",
    "lagrangian_cost",
    "objective_degree",
]

#: Largest numerator or denominator (decimal digits) of any exact number: 4300, the most
#: Python converts between text and integers (``sys.get_int_max_str_digits()`` by default),
#: so no larger number could be read anyway. certify's own certificates come close: an
#: order-20 V_inf certificate carries numbers of about 3100 digits, exact moments from
#: 1000-character inputs about 3000. Alone, digits are cheap; with a high degree or many
#: calls they are what the two cost estimates below bound.
MAX_DIGITS = 4300

#: Highest objective degree (schemas 1 and 2): V_4001, the majority of 4001 votes. Checking a
#: genuine V4001 certificate takes 15-30 s and about 450 MB on one core; the time grows like
#: the degree^2.5, so V10001 would take several minutes and gigabytes. Schema 3's polynomial is
#: its dual, of degree at most the moment order (limited by ``_checking.MAX_ORDER``).
MAX_DEGREE = 4001

#: Most calls K of a cell (schema 2): the Lagrangian polynomial has degree max(deg g, K) and its
#: kernel holds binomial coefficients C(K, S) of 0.3 K digits. ``analyze --certificates``
#: refuses data with more calls per example.
MAX_CALLS = 2000

#: Most cells (distinct (K, S) pairs; schema 2): each adds a degree-K polynomial to h and one
#: term to every cell probability. Data of up to MAX_CALLS calls per example, all with the
#: same K, have at most MAX_CALLS + 1 cells; ragged counts have more.
MAX_CELLS = 10000

#: Most atoms of a law (the reference law and pi* of schema 2; schemas 1 and 3 are further
#: limited to m + 1 atoms): the NPMLE of K-call data needs at most K/2 + 1 atoms (Lindsay 1983),
#: so MAX_CALLS + 1 is generous. Each atom is also a point where the positivity proof expands.
MAX_ATOMS = MAX_CALLS + 1

#: Decimal digits of a binomial coefficient C(d, k) per unit of d (log10 2): the majority
#: polynomial P_n and the cells' kernels carry coefficients of about 0.3 d digits.
_DIGITS_PER_DEGREE = math.log10(2)

#: Digits of the rounded weights u'_c of schema 2 (128 bits, ``_verify_likelihood.ROUND_BITS``).
_ROUNDED_DIGITS = 39

#: Largest estimate of the positivity proof's cost, degree x digits x (1 + expansion points)
#: (:func:`_proof_cost`), per schema version; the points are the law's atoms, where the proof
#: expands the polynomial in a Taylor window (one composition of the degree-d polynomial each,
#: 1.5 s at degree 2000 with 1000-digit coefficients, up to 19 s when the window needs a
#: 256-bit centre). Schema 1: a genuine V4001 certificate at the default 12 digits costs
#: 4001 x 1250 x 3 = 1.5e7 (15-30 s); the limit admits V4001 with up to 12 atoms, or lower
#: degrees with far more digits, and refuses V4001 with a 3000-digit dual. Schema 2: analyze's
#: largest, K = MAX_CALLS with 40 atoms of pi* (300 examples), costs 2000 x 660 x 40 = 5.3e7,
#: with 100 atoms 1.3e8 (minutes). Schema 3 (order <= 100) stays below 5e7.
MAX_PROOF_COST = {SCHEMA_VERSION: 5 * 10**7, LIKELIHOOD_SCHEMA_VERSION: 2 * 10**8, ENDPOINT_SCHEMA_VERSION: 10**8}

#: Largest estimate of the work of the exact cell probabilities of schema 2, atoms x (K + cells)
#: x K x (digits of an atom): each atom's powers x^k, k <= K, grow to K times its digits, and
#: every cell multiplies two of them. analyze's atoms have 18 digits: K = MAX_CALLS from 300
#: examples (263 cells, 52 + 39 atoms) costs 91 x 2263 x 2000 x 18 = 7.4e9 (90 s per law on a
#: loaded core), MAX_CALLS + 1 cells and a hundred atoms 1.4e10; a 4000-digit atom at K = 10000
#: would cost 2e11 per atom.
MAX_LIKELIHOOD_COST = 4 * 10**10

#: Largest estimate of the work of building the Lagrangian of schema 2, sum over cells of K x
#: (0.3 K + 39) (:func:`lagrangian_cost`): each cell adds u'_c C(K, S) q^S (1 - q)^(K - S), a
#: polynomial of degree K whose coefficients have the binomials' 0.3 K digits plus the rounded
#: weight's 39. At K = MAX_CALLS a cell costs 2000 x 642 = 1.3e6, about 0.06 s on a loaded core.
#: The limit admits a genuine certificate from 300 examples of K = MAX_CALLS calls (263 cells,
#: 3.4e8, about 20 s), every data set of up to 1000 calls per example (all 1001 counts: 3.4e8),
#: and refuses 10000 cells of K near MAX_CALLS (1.3e10, which would take about ten minutes).
#: ``analyze --certificates`` refuses data beyond it before it solves anything.
MAX_LAGRANGIAN_COST = 4 * 10**8


def _refuse(what: str, value, limit) -> CheckFailed:
    return CheckFailed("work_limit", f"{what} = {show(value, 40)} exceeds the checker's work limit of {limit}")


def _int(value) -> int:
    """A JSON integer as given, 0 for anything else (the structure checks report it later)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _digits(node) -> int:
    """The most decimal digits of a numerator or denominator of an exact number ``"p/q"`` in ``node``.

    A walk with an explicit stack (no recursion, whatever the nesting) over every string of
    the JSON value that has the form of an exact number; nothing is converted to a number.
    """
    most, stack = 0, [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and is_ratio(item):
            numerator, _, denominator = item.lstrip("-").partition("/")
            most = max(most, len(numerator), len(denominator))
    return most


def objective_degree(obj) -> int:
    """The degree an objective given by terms (schemas 1 and 2) asks for: its stated degree, 2n + 1 of
    each majority term and the Bernstein degree, whichever is largest (0 for V_inf's definition)."""
    obj = _dict(obj)
    degrees = [_int(obj.get("degree")), len(_list(obj.get("bernstein"))) - 1]
    degrees += [2 * _int(_dict(term).get("n")) + 1 for term in _list(obj.get("majority"))]
    return max(degrees)


def _proof_cost(degree: int, digits: int, points: int) -> int:
    """degree x digits x (1 + points): the polynomial's size (degree times the digits of its coefficients,
    binomial ones included) for each expansion of the positivity proof (one Taylor window per point)."""
    return degree * (math.ceil(_DIGITS_PER_DEGREE * degree) + digits) * (1 + points)


def lagrangian_cost(calls) -> int:
    """Sum over cells of K x (0.3 K + 39): the size of the cells' polynomials summed into the Lagrangian
    (:data:`MAX_LAGRANGIAN_COST`), from the cells' call counts K alone."""
    return sum(k * (math.ceil(_DIGITS_PER_DEGREE * k) + _ROUNDED_DIGITS) for k in calls)


def _check(measured: list[tuple[str, int, int]]) -> None:
    for what, value, limit in measured:
        if value > limit:
            raise _refuse(what, value, limit)


def _moment_class(cert: dict, version: str, degree: int) -> None:
    """Schemas 1 and 3: digits, atoms, the objective's degree and the sign proof's cost."""
    law, dual = _dict(cert.get("law")), _dict(cert.get("dual"))
    atoms = max(len(_list(law.get("atoms"))), len(_list(law.get("weights"))))
    contacts = len(_list(dual.get("contacts")))
    _check(
        [
            ("digits of an exact number", _digits(cert), MAX_DIGITS),
            ("atoms of the law", atoms, MAX_ATOMS),
            ("contacts of the dual", contacts, MAX_ATOMS),
        ]
    )
    if version == SCHEMA_VERSION:
        _check([("objective degree", degree, MAX_DEGREE)])
    proof_digits = max(_digits(cert.get("objective")), _digits(dual), _digits(law.get("atoms")))
    _check(
        [
            (
                f"the sign proof's cost estimate (degree {degree} x digits x points)",
                _proof_cost(degree, proof_digits, atoms),
                MAX_PROOF_COST[version],
            )
        ]
    )


def _likelihood(cert: dict) -> None:
    """Schema 2: digits, cells, calls, atoms, the objective's degree, the Lagrangian's, the sign proof's and the
    probabilities' cost."""
    cells = _list(cert.get("cells"))
    calls = max((_int(_dict(cell).get("calls")) for cell in cells), default=0)
    laws = [_dict(cert.get("reference_law")), _dict(cert.get("law"))]
    atoms = [max(len(_list(law.get("atoms"))), len(_list(law.get("weights")))) for law in laws]
    _check(
        [
            ("calls K", calls, MAX_CALLS),
            ("cells", len(cells), MAX_CELLS),
            ("digits of an exact number", _digits(cert), MAX_DIGITS),
            ("atoms of a law", max(atoms), MAX_ATOMS),
        ]
    )
    obj = cert.get("objective")
    _check([("objective degree", objective_degree(obj), MAX_DEGREE)])
    degree = max(objective_degree(obj), calls)
    proof_digits = max(_digits(obj), _digits(cert.get("lagrangian"))) + _ROUNDED_DIGITS
    law_digits = max(_digits(law) for law in laws)
    _check(
        [
            (
                "the Lagrangian's cost estimate (cells' K x digits)",
                lagrangian_cost(_int(_dict(cell).get("calls")) for cell in cells),
                MAX_LAGRANGIAN_COST,
            ),
            (
                f"the sign proof's cost estimate (degree {degree} x digits x points)",
                _proof_cost(degree, proof_digits, atoms[1]),
                MAX_PROOF_COST[LIKELIHOOD_SCHEMA_VERSION],
            ),
            (
                f"the cell probabilities' cost estimate (atoms x (K + cells) x K x {law_digits} digits)",
                sum(atoms) * (calls + len(cells)) * calls * law_digits,
                MAX_LIKELIHOOD_COST,
            ),
        ]
    )


def check_budget(cert) -> None:
    """Refuse a certificate whose check would exceed the work budget (module docstring); the first check of every
    checker.

    Parameters
    ----------
    cert : object
        The parsed JSON value. Anything but an object with a known ``schema_version`` passes
        here and fails the checker's structure checks.

    Raises
    ------
    CheckFailed
        ``work_limit``, naming the measured value and the limit.
    """
    if not isinstance(cert, dict):
        return
    version = cert.get("schema_version")
    if version == LIKELIHOOD_SCHEMA_VERSION:
        _likelihood(cert)
    elif version == SCHEMA_VERSION:
        _moment_class(cert, version, objective_degree(cert.get("objective")))
    elif version == ENDPOINT_SCHEMA_VERSION:
        _moment_class(cert, version, len(_list(_dict(cert.get("dual")).get("coefficients"))) - 1)
