"""Every hostile command line of tests/fuzz_inputs.py through the real CLI; hypothesis on the parsers.

How the command lines run: one driver process (``python -c DRIVER``) imports the CLI
and its heavy dependencies once, then forks one child per case. Each child points its
stdout and stderr at files and runs exactly what the ``certify`` launcher runs,
``sys.exit(certify.cli.main.main(argv))``, with Python's own handling of an uncaught
exception (a traceback on stderr, exit 1). The driver kills a child that outlives
CASE_TIMEOUT and reports it as a hang. So each case gets a fresh process, real file
descriptors, a real exit status and a hard time limit, without paying the 1-2 s import
of numpy, scipy and sympy 300 times (the whole table runs in about the time of a dozen
plain launches).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify._errors import InputError
from certify._numbers import MAX_EXPONENT, MAX_MAGNITUDE, MAX_NUMBER_LENGTH, exact_number
from certify._objective import MAX_EXPANDED_DEGREE, parse_objective

from .fuzz_inputs import CASES, FILES, no_negative_zero

ROOT = Path(__file__).resolve().parents[1]

#: Seconds a case may take before it counts as a hang (a loaded 2-core machine included).
CASE_TIMEOUT = 20.0
#: Cases running at once: the machine has 2 cores, and a child waits on little I/O.
PARALLEL = 2

DRIVER = r"""
import json, os, sys, time, traceback
import certify.cli.main as m
m.build_parser()                      # import every command module once, before forking
import sympy, scipy.stats             # imported lazily by objectives and statistics
try:
    import inspect_ai.log             # imported lazily by the inspect_ai log reader (seconds on a loaded machine)
except ImportError:
    pass

cases, timeout, parallel, out_dir = json.loads(sys.stdin.read())

def child(i, argv):
    for fd, name in ((1, "out"), (2, "err")):
        f = os.open(os.path.join(out_dir, f"{i}.{name}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(f, fd)
        os.close(f)
    sys.argv = ["certify", *argv]
    try:
        code = m.main(argv)
    except SystemExit as exc:
        code = exc.code
    except BaseException:
        traceback.print_exc()
        code = 1
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush(); sys.stderr.flush()
    finally:
        os._exit(code or 0)

pending = list(enumerate(cases))
running = {}
results = {}
while pending or running:
    while pending and len(running) < parallel:
        i, argv = pending.pop(0)
        pid = os.fork()
        if pid == 0:
            child(i, argv)
        running[pid] = (i, time.monotonic())
    time.sleep(0.005)
    for pid, (i, start) in list(running.items()):
        done, status = os.waitpid(pid, os.WNOHANG)
        elapsed = time.monotonic() - start
        if done:
            code = os.waitstatus_to_exitcode(status)
        elif elapsed > timeout:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            code = "timeout"
        else:
            continue
        del running[pid]
        results[i] = {"code": code, "seconds": elapsed}
json.dump(results, sys.stdout)
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Run the whole table once; map case id -> (exit code or "timeout", stdout, stderr, seconds)."""
    if not hasattr(os, "fork"):
        pytest.skip("the fuzz driver forks one child per case")
    work = tmp_path_factory.mktemp("fuzz")
    for name, content in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(content)
    logs = tmp_path_factory.mktemp("fuzz_logs")
    argvs = [[a.replace("{dir}", str(work)) for a in case.argv] for case in CASES]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps([argvs, CASE_TIMEOUT, PARALLEL, str(logs)]),
                          cwd=work, env=env, capture_output=True, text=True,
                          timeout=60 + len(CASES) * CASE_TIMEOUT / PARALLEL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    raw = json.loads(proc.stdout)
    total = time.monotonic() - start
    print(f"\nfuzz table: {len(CASES)} cases in {total:.1f} s "
          f"(slowest {max(r['seconds'] for r in raw.values()):.1f} s)", file=sys.stderr)
    out = {}
    for i, case in enumerate(CASES):
        r = raw[str(i)]
        text = [(logs / f"{i}.{kind}").read_text(errors="replace") for kind in ("out", "err")]
        out[case.id] = (r["code"], *text, r["seconds"])
    return out


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_input(case, outcomes):
    code, out, err, seconds = outcomes[case.id]
    assert code != "timeout", f"no answer within {CASE_TIMEOUT} s"
    assert "Traceback" not in err, err[-2000:]
    assert code == case.code, (code, err[-500:], out[-500:])
    lines = err.splitlines()
    if case.verdict_on_stdout:
        assert err == "" and len(out.splitlines()) == 1, (err, out)
    elif case.code == 2:
        assert len(lines) == 1 and lines[0].strip(), err
        assert out == "", out[:500]
        assert lines[0].startswith(("certify", "usage")), lines[0]
    elif case.code == 1:
        assert len(lines) <= 1, err
    if case.says is not None:
        assert case.says in err + out, (case.says, err[-500:], out[-300:])
    if case.code == 0:
        assert no_negative_zero(out), out[-2000:]
    if case.check is not None:
        assert case.check(out), out[-2000:]


def test_the_table_covers_every_command():
    """At least 120 cases, and hostile input for each of the eight commands."""
    commands = {c.argv[0] for c in CASES if c.argv}
    assert len(CASES) >= 120
    assert {"bounds", "certificate", "region", "complete", "plan", "verify", "analyze", "experiment"} <= commands


# -- hypothesis: the parsers at the Python level --------------------------------

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_RATIO = re.compile(r"[+-]?\d+/\d+", re.ASCII)


def _reference(text: str) -> Fraction | None:
    """The value of a number as the documented syntax defines it, read with Decimal (not Fraction); None if refused."""
    t = text.strip()
    if len(t) > MAX_NUMBER_LENGTH:
        return None
    if _RATIO.fullmatch(t):
        p, q = t.split("/")
        return None if int(q) == 0 else Fraction(int(p), int(q))
    m = _DECIMAL.fullmatch(t)
    if m is None:
        return None
    mantissa, _, exp = t.lower().partition("e")
    if exp and abs(int(exp)) > MAX_EXPONENT:
        return None
    sign, digits, exponent = Decimal(mantissa).as_tuple()
    value = Fraction(int("".join(map(str, digits)) or "0") * (-1 if sign else 1)) * Fraction(10) ** (exponent + int(exp or 0))
    return value


_NUMBER_TEXT = st.one_of(
    st.text(alphabet="0123456789.eE+-/_ \t", max_size=30),
    st.text(max_size=20),
    st.from_regex(r"\A[+-]?\d{1,20}(\.\d{0,20})?([eE][+-]?\d{1,5})?\Z"),
    st.from_regex(r"\A[+-]?\d{1,30}/\d{1,30}\Z"),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_NUMBER_TEXT)
def test_number_text_parses_right_or_refuses(text):
    expected = _reference(text)
    if expected is not None and abs(expected) > MAX_MAGNITUDE:
        expected = None
    try:
        value = exact_number(text, "x")
    except InputError as exc:
        assert expected is None, (text, exc)
        assert "\n" not in str(exc) and str(exc).startswith("x=")
        return
    assert value == expected


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(), st.integers(min_value=-(10**400), max_value=10**400), st.fractions(),
                 st.decimals(allow_nan=True), st.none(), st.booleans(), st.lists(st.floats(), max_size=2)))
def test_number_values_parse_right_or_refuse(value):
    try:
        got = exact_number(value, "x")
    except InputError as exc:
        assert "\n" not in str(exc)
        if isinstance(value, Decimal) and value.is_finite():
            # The only reasons to refuse a finite Decimal: its exponent or its size.
            assert abs(value.adjusted()) > MAX_EXPONENT or abs(Fraction(value)) > MAX_MAGNITUDE
        elif isinstance(value, (int, Fraction)) and not isinstance(value, bool) or (
                isinstance(value, float) and math.isfinite(value)):
            assert abs(Fraction(value)) > MAX_MAGNITUDE  # the only reason to refuse a finite number
        return
    assert got == Fraction(value) and abs(got) <= MAX_MAGNITUDE


_OBJECTIVE_ATOMS = st.sampled_from(["q", "P0", "P1", "P3", "V2", "V5", "V0", "Z", "2", "1/3", "0.5", "1e400", "1e-400",
                                    "(", ")", "+", "-", "*", "/", "**", "^", " ", "9", "999", "q**600", "sin", "."])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.lists(_OBJECTIVE_ATOMS, max_size=12).map("".join), st.text(max_size=40)))
def test_objective_text_parses_or_refuses(text):
    """Random objective text: an objective of bounded degree that evaluates finitely, or ObjectiveError."""
    try:
        obj = parse_objective(text)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert len(obj.bernstein) - 1 <= MAX_EXPANDED_DEGREE
    assert all(math.isfinite(obj.evaluate(x)) for x in (0.0, 0.3, 1.0))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=50), min_size=1, max_size=6))
def test_objective_polynomial_text_has_its_value(coeffs):
    """A polynomial written as text evaluates to the value computed here from its coefficients."""
    text = " + ".join(f"({c})*q**{i}" for i, c in enumerate(coeffs))
    obj = parse_objective(text)
    for x in (Fraction(0), Fraction(1, 3), Fraction(1)):
        expected = sum(c * x**i for i, c in enumerate(coeffs))
        assert obj.evaluate(float(x)) == pytest.approx(float(expected), abs=1e-12)


def test_products_at_the_degree_limit_are_multiplied_exactly():
    """A product of degree MAX_EXPANDED_DEGREE (multiplied in the polynomial ring, not by sympy.expand)."""
    half = MAX_EXPANDED_DEGREE // 2
    obj = parse_objective(f"(q+1)**{half}*(q-1)**{half}")
    assert obj.degree == MAX_EXPANDED_DEGREE
    coeffs = obj.monomial_coefficients()  # (q^2 - 1)^half: only even powers, binomial coefficients with alternating signs
    assert coeffs[2 * half] == 1 and coeffs[2 * half - 1] == 0 and coeffs[2 * half - 2] == -half and coeffs[0] == (-1) ** half
    assert obj.evaluate(0.3) == pytest.approx(0.91**half * (-1) ** half, rel=1e-9)
