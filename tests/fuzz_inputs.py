"""Hostile command lines for every ``certify`` command, each with the outcome it must have.

tests/test_fuzz_cli.py runs every :data:`CASES` entry through the real CLI in a fresh
process. An entry's ``argv`` may name ``{dir}``: a scratch directory holding the files
of :data:`FILES` (the process also runs there, so relative paths land in it).

Expected outcomes:

* ``code=2``: an input error, exactly one non-empty line on stderr, containing ``says``
  when given; nothing on stdout.
* ``code=1``: a failed check or solver (``verify`` of a broken file, an order the solver
  cannot reach); ``says`` must appear in stderr + stdout, and stderr is at most one line.
* ``code=0``: an answer; ``check(stdout)`` states what a correct one is (closed forms
  computed here, independently of the package), and no "-0" appears in it.

``xfail`` names why an entry fails in code another engineer owns; the test marks it
``xfail(strict=True)`` so that it is noticed when fixed.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from itertools import count, islice
from typing import Callable

import zstandard

__all__ = ["Case", "CASES", "FILES", "no_negative_zero"]


@dataclass(frozen=True)
class Case:
    """One hostile command line and its required outcome."""

    argv: tuple[str, ...]
    code: int = 2
    says: str | None = None
    check: Callable[[str], bool] | None = None
    xfail: str | None = None
    id: str = field(default="")
    #: ``verify`` writes its one-line verdict per file on stdout, also for exit 2 (UNREADABLE).
    verdict_on_stdout: bool = False

    @property
    def command(self) -> str:
        return self.argv[0] if self.argv else ""


# -- files ------------------------------------------------------------------

GOOD_TOML = """
[experiment]
name = "fuzz"
store = "fuzz.sqlite"
repeats = 2

[[datasets]]
name = "parity"
n = 4
seed = 1

[backends.embedded]
mode = "choice"

[defaults]
backend = "embedded"
model = "gemma3:270m"

[[policies]]
name = "t1"
temperature = 1.0
seed_base = 1
"""


def _toml(old: str, new: str) -> bytes:
    """GOOD_TOML with one fragment replaced: a config that differs from a valid one in one place."""
    assert old in GOOD_TOML, old
    return GOOD_TOML.replace(old, new, 1).encode()


#: Bad experiment configs: each must be refused by ``experiment run`` before any call is made.
BAD_TOML: dict[str, tuple[bytes, str | None]] = {
    "syntax_unclosed_table.toml": (b"[experiment\nname = 'x'\n", "not valid TOML"),
    "syntax_no_value.toml": (b"[experiment]\nname =\n", "not valid TOML"),
    "syntax_bad_string.toml": (b"[experiment]\nname = \"abc\n", "not valid TOML"),
    "syntax_duplicate_key.toml": (_toml('repeats = 2', 'repeats = 2\nrepeats = 3'), "not valid TOML"),
    "syntax_duplicate_table.toml": (GOOD_TOML.encode() + b"\n[experiment]\nname = 'y'\n", "not valid TOML"),
    "syntax_nul_byte.toml": (b"[experiment]\nname = \"a\x00b\"\n", "not valid TOML"),
    "missing_experiment.toml": (_toml('[experiment]\nname = "fuzz"\nstore = "fuzz.sqlite"\nrepeats = 2\n', ''), "experiment"),
    "missing_datasets.toml": (_toml('[[datasets]]\nname = "parity"\nn = 4\nseed = 1\n', ''), "datasets"),
    "missing_policies.toml": (_toml('[[policies]]\nname = "t1"\ntemperature = 1.0\nseed_base = 1\n', ''), "policies"),
    "missing_name.toml": (_toml('name = "fuzz"\n', ''), "name"),
    "missing_store.toml": (_toml('store = "fuzz.sqlite"\n', ''), "store"),
    "unknown_top_key.toml": (GOOD_TOML.encode() + b"\nsurprise = 1\n", "surprise"),
    "unknown_experiment_key.toml": (_toml('repeats = 2', 'repeats = 2\ncolour = "red"'), "colour"),
    "unknown_dataset_key.toml": (_toml('seed = 1', 'seed = 1\nshuffle = true'), "shuffle"),
    "unknown_policy_key.toml": (_toml('seed_base = 1', 'seed_base = 1\nwarmth = 3'), "warmth"),
    "repeats_negative.toml": (_toml('repeats = 2', 'repeats = -5'), "repeats"),
    "repeats_zero.toml": (_toml('repeats = 2', 'repeats = 0'), "repeats"),
    "repeats_string.toml": (_toml('repeats = 2', 'repeats = "five"'), "repeats"),
    "repeats_float.toml": (_toml('repeats = 2', 'repeats = 2.5'), "repeats"),
    "repeats_bool.toml": (_toml('repeats = 2', 'repeats = true'), "repeats"),
    "repeats_huge.toml": (_toml('repeats = 2', 'repeats = 9223372036854775807'), "repeats"),
    "repeats_inf.toml": (_toml('repeats = 2', 'repeats = inf'), "repeats"),
    "repeats_array.toml": (_toml('repeats = 2', 'repeats = [1, 2]'), "repeats"),
    "n_negative.toml": (_toml('n = 4', 'n = -4'), "n"),
    "n_huge.toml": (_toml('n = 4', 'n = 100000000000000000'), "n"),
    "n_string.toml": (_toml('n = 4', 'n = "4"'), "n"),
    "seed_string.toml": (_toml('seed = 1', 'seed = "one"'), "seed"),
    "seed_huge.toml": (_toml('seed = 1', 'seed = 999999999999999999999'), None),  # beyond TOML's 64-bit integers
    "seed_base_max.toml": (_toml('seed_base = 1', 'seed_base = 9223372036854775807\nnum_predict = 99999999'), "num_predict"),
    "n_ctx_huge.toml": (_toml('mode = "choice"', 'mode = "choice"\nn_ctx = 99999999999999'), "n_ctx"),
    "num_predict_huge.toml": (_toml('seed_base = 1', 'seed_base = 1\nnum_predict = 99999999999999'), "num_predict"),
    "repeats_1001.toml": (_toml('repeats = 2', 'repeats = 1001'), "repeats"),
    "dataset_unknown_task.toml": (_toml('name = "parity"', 'name = "chess"'), None),
    "temperature_negative.toml": (_toml('temperature = 1.0', 'temperature = -1.0'), "temperature"),
    "temperature_nan.toml": (_toml('temperature = 1.0', 'temperature = nan'), "temperature"),
    "temperature_huge.toml": (_toml('temperature = 1.0', 'temperature = 1e308'), "temperature"),
    "temperature_string.toml": (_toml('temperature = 1.0', 'temperature = "hot"'), "temperature"),
    "top_p_zero.toml": (_toml('model = "gemma3:270m"', 'model = "gemma3:270m"\ntop_p = 0'), "top_p"),
    "policy_name_empty.toml": (_toml('name = "t1"', 'name = ""'), "name"),
    "policy_name_slash.toml": (_toml('name = "t1"', 'name = "../../etc"'), "name"),
    "policy_names_repeated.toml": (GOOD_TOML.encode() + b'\n[[policies]]\nname = "t1"\ntemperature = 0.5\nseed_base = 2\n',
                                   "unique"),
    "datasets_not_array.toml": (_toml('[[datasets]]\nname = "parity"\nn = 4\nseed = 1\n',
                                      '[datasets]\nname = "parity"\n'), "datasets"),
    "policies_is_string.toml": (_toml('[[policies]]\nname = "t1"\ntemperature = 1.0\nseed_base = 1\n', '')
                                .replace(b'[experiment]', b'policies = "all"\n[experiment]'), "policies"),
    "backends_not_table.toml": (_toml('[backends.embedded]\nmode = "choice"\n', '').replace(b'[experiment]', b'backends = 3\n[experiment]'),
                                "backends"),
    "backend_unknown_kind.toml": (_toml('backend = "embedded"', 'backend = "telepathy"'), "backend"),
    "backend_mode_bad.toml": (_toml('mode = "choice"', 'mode = "guess"'), "mode"),
    "embedded_concurrency.toml": (_toml('mode = "choice"', 'mode = "choice"\nconcurrency = 8'), "concurrency"),
    "defaults_not_table.toml": (_toml('[defaults]\nbackend = "embedded"\nmodel = "gemma3:270m"\n', '')
                                .replace(b'[experiment]', b'defaults = 1\n[experiment]'), "defaults"),
    "empty_document.toml": (b"", None),
    "only_comments.toml": (b"# nothing here\n", None),
}

# -- hostile certificates: small files that would make the checker work for minutes ---------

#: A genuine sharp-bound certificate (schema 1): the lower bound of E[V3] at mu = 0.7, rho = 0.2.
GENUINE_SHARP = json.loads(
    '{"schema_version": "1", "kind": "sharp-bound-certificate", "side": "lower", "objective": {"name": "V3", '
    '"degree": 3, "majority": [{"coefficient": ["1/1", 1.0], "n": 1, "votes": 3}], "bernstein": []}, '
    '"moments": {"order": 2, "given": [{"name": "mu", "text": "0.7", "exact_from": "text"}, {"name": "rho", '
    '"text": "0.2", "exact_from": "text"}], "exact": [["7/10", 0.7], ["133/250", 0.532]]}, '
    '"law": {"atoms": [["14/25", 0.56], ["1/1", 1.0]], "weights": [["15/22", 0.6818181818181818], ["7/22", '
    '0.3181818181818182]]}, "dual": {"coefficients": [["-392/625", -0.6272], ["1792/625", 2.8672], ["-31/25", '
    '-1.24]], "contacts": [{"point": ["14/25", 0.56], "multiplicity": 2}, {"point": ["1/1", 1.0], '
    '"multiplicity": 1}]}, "primal_value": ["4501/6250", 0.72016], "dual_value": ["4501/6250", 0.72016], '
    '"enclosure": [["4501/6250", 0.72016], ["4501/6250", 0.72016]], "width": ["0/1", 0.0], '
    '"value": ["4501/6250", 0.72016], "provenance": {"package": "certify", "version": "0.1.0", '
    '"method": "exact", "construction": "hermite", "digits": null, "seconds": 0.0, "created": ""}}'
)

#: A genuine likelihood certificate (schema 2): the lower end of V3 from 400 examples x 5 calls.
GENUINE_LIKELIHOOD = json.loads(
    '{"schema_version": "2", "kind": "likelihood-bound-certificate", "side": "lower", '
    '"objective": {"name": "V3", "degree": 3, "majority": [{"coefficient": ["1/1", 1.0], "n": 1, "votes": 3}], '
    '"bernstein": []}, "cells": [{"calls": 5, "successes": 0, "count": 3}, {"calls": 5, "successes": 1, '
    '"count": 17}, {"calls": 5, "successes": 2, "count": 39}, {"calls": 5, "successes": 3, "count": 90}, '
    '{"calls": 5, "successes": 4, "count": 120}, {"calls": 5, "successes": 5, "count": 131}], '
    '"threshold": {"c": ["1168294329634233/562949953421312", 2.0753076228783005], "alpha": 0.05, '
    '"calibration": "approximate, profile likelihood ratio, '
    'c = 2.075 from the small-count calibration (simulated lattice quantile at 0.95; above chi2(1))"}, '
    '"reference_law": {"atoms": [["1036404976817381/2500000000000000", 0.4145619907269524], '
    '["941020708945463/1250000000000000", 0.7528165671563704], ["1/1", 1.0]], '
    '"weights": [["2919077305803087/25000000000000000", 0.11676309223212349], '
    '["1469697589659809/2000000000000000", 0.7348487948299045], ["7419405646898601/50000000000000000", '
    '0.14838811293797202]]}, "law": {"atoms": [["2624085861565417/6250000000000000", 0.4198537378504667], '
    '["290191945572129/390625000000000", 0.7428913806646502], ["1/1", 1.0]], '
    '"weights": [["8449422642638503/50000000000000000", 0.16898845285277006], '
    '["17027647567750819/25000000000000000", 0.6811059027100328], ["7495282221859859/50000000000000000", '
    '0.14990564443719717]]}, "lagrangian": {"lambda": ["6233783532473/800000000000000", 0.00779222941559125], '
    '"a": ["-37335176955603/16000000000000", -2.3334485597251877]}, "bound": ["626754565209/800000000000", '
    '0.78344320651125], "provenance": {"package": "certify", "version": "0.1.0", "margin": 1e-12, '
    '"seconds": 0.0, "created": ""}}'
)


def _copy(certificate: dict) -> dict:
    return json.loads(json.dumps(certificate))


def huge_degree(votes: int = 10001) -> dict:
    """The genuine V3 certificate claiming the majority of ``votes`` votes (the objective of degree ``votes``)."""
    cert = _copy(GENUINE_SHARP)
    n = (votes - 1) // 2
    cert["objective"].update(name=f"V{votes}", degree=votes, majority=[{"coefficient": ["1/1", 1.0], "n": n, "votes": votes}])
    return cert


def huge_digits(digits: int = 5000, certificate: dict = GENUINE_SHARP) -> dict:
    """A certificate whose first law atom has a denominator of ``digits`` digits (ones: the float reads 1e-digits)."""
    cert = _copy(certificate)
    cert["law"]["atoms"][0] = ["1/" + "1" * digits, 0.0]
    return cert


def huge_calls(calls: int = 10000, every_count: bool = False, atom_digits: int = 0) -> dict:
    """The genuine likelihood certificate with cells of ``calls`` calls: one cell, or (``every_count``) one per
    count of correct calls 0..calls (490 kB at 10000); optionally an atom of ``atom_digits`` digits."""
    cert = _copy(GENUINE_LIKELIHOOD)
    counts = range(calls + 1) if every_count else [calls // 2]
    cert["cells"] = [{"calls": calls, "successes": s, "count": 1} for s in counts]
    return huge_digits(atom_digits, cert) if atom_digits else cert


def many_cells(cells: int = 20000) -> dict:
    """The genuine likelihood certificate with ``cells`` distinct cells (ragged counts K = 1, 2, ...)."""
    cert = _copy(GENUINE_LIKELIHOOD)
    pairs = islice(((k, s) for k in count(1) for s in range(k + 1)), cells)
    cert["cells"] = [{"calls": k, "successes": s, "count": 1} for k, s in pairs]
    return cert


def many_atoms(atoms: int = 5000) -> dict:
    """The genuine likelihood certificate whose law pi* has ``atoms`` atoms."""
    cert = _copy(GENUINE_LIKELIHOOD)
    cert["law"] = {"atoms": [[f"{i}/{atoms}", i / atoms] for i in range(atoms)], "weights": [[f"1/{atoms}", 1 / atoms]] * atoms}
    return cert


def costly_proof() -> dict:
    """Within every single limit, but too costly as a whole: V4001 with a dual coefficient of 2999 digits."""
    cert = huge_degree(4001)
    cert["dual"]["coefficients"][0] = ["1/" + "3" * 2999, 0.0]
    return cert


def costly_probabilities() -> dict:
    """Within every single limit, but costly cell probabilities: K = 2000 with a 2999-digit atom."""
    return huge_calls(2000, atom_digits=2999)


def costly_lagrangian(cells: int = 10000, calls: int = 2000) -> dict:
    """Within every single limit, but a costly Lagrangian: ``cells`` distinct cells of K just below ``calls``."""
    cert = _copy(GENUINE_LIKELIHOOD)
    pairs = islice(((k, s) for k in range(calls, 0, -1) for s in range(k + 1)), cells)
    cert["cells"] = [{"calls": k, "successes": s, "count": 1} for k, s in pairs]
    return cert


#: name -> (hostile certificate, what its refusal names); each is refused with exit 2 (``work_limit``).
HOSTILE_CERTIFICATES: dict[str, tuple[dict, str]] = {
    "degree_10001": (huge_degree(), "objective degree = 10001 exceeds the checker's work limit of 4001"),
    "digits_5000": (huge_digits(), "digits of an exact number = 5000 exceeds the checker's work limit of 4300"),
    "calls_10000_atom_4000_digits": (huge_calls(atom_digits=4000), "calls K = 10000 exceeds the checker's work limit of 2000"),
    "calls_10000_every_count": (huge_calls(every_count=True), "calls K = 10000 exceeds the checker's work limit of 2000"),
    "cells_20000": (many_cells(), "cells = 20000 exceeds the checker's work limit of 10000"),
    "atoms_5000": (many_atoms(), "atoms of a law = 5000 exceeds the checker's work limit of 2001"),
    "costly_proof": (costly_proof(), "the sign proof's cost estimate"),
    "costly_probabilities": (costly_probabilities(), "the cell probabilities' cost estimate"),
    "costly_lagrangian": (costly_lagrangian(), "the Lagrangian's cost estimate"),
}


#: Files written into the scratch directory ``{dir}`` before the cases run.
FILES: dict[str, bytes] = {
    "empty.csv": b"",
    "empty.json": b"",
    "empty.toml": b"",
    "binary.csv": bytes(range(256)) * 4,
    "binary.json": b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
    "binary.toml": b"\xff\xfe\x00\x00" + bytes(range(128, 256)),
    "binary.sqlite": b"\x00" * 512,
    "not_sqlite.sqlite": b"SQLite format 2\x00 this is not a database",
    "header_only.csv": b"example_id,b0,b1\n",
    "calls.csv": b"example_id,b0,b1,b2\n" + b"".join(
        f"e{i},{int(i % 3 != 0)},{int(i % 4 != 0)},{int(i % 5 != 0)}\n".encode() for i in range(40)),
    "notes.txt": b"just some text\n",
    "json_array.json": b"[1, 2, 3]",
    "deep.json": b"[" * 100000 + b"]" * 100000,
    "sub/placeholder.txt": b"",
    "jsondir/placeholder.txt": b"",
    **{f"toml/{name}": content for name, (content, _) in BAD_TOML.items()},
    **{f"hostile/{name}.json": json.dumps(cert).encode() for name, (cert, _) in HOSTILE_CERTIFICATES.items()},
}


# -- independent reference values -------------------------------------------

def _v3(m1: float, m2: float, m3: float) -> float:
    """E[V3] = E[3 Q^2 - 2 Q^3]: fixed by three moments."""
    return 3 * m2 - 2 * m3


def _json_results(out: str) -> list[dict]:
    return json.loads(out)["results"]


def _both(value: float, tol: float = 1e-9) -> Callable[[str], bool]:
    """Every JSON result has lower = upper = value (an objective the moments fix)."""
    def check(out: str) -> bool:
        res = _json_results(out)
        return bool(res) and all(abs(r["lower"] - value) <= tol and abs(r["upper"] - value) <= tol for r in res)
    return check


def _inf_in_defaults(out: str) -> bool:
    """Order 3: the default budgets keep inf, and its bounds hold V_inf of a law with these moments."""
    res = _json_results(out)
    inf = res[-1]
    # {0: 0.048, 2/3: 0.756, 1: 0.196} has moments (0.7, 0.532, 0.42) and V_inf = 0.756 + 0.196.
    return ([r.get("votes") for r in res] == [3, 5, "inf"] and abs(res[0]["lower"] - _v3(0.7, 0.532, 0.42)) < 1e-9
            and inf["lower"] <= 0.952 <= inf["upper"] and 0 <= inf["lower"] < inf["upper"] <= 1)


def _fair_ties(out: str) -> bool:
    r3, r4 = _json_results(out)
    return r3["lower"] == r4["lower"] and r3["upper"] == r4["upper"]


def no_negative_zero(out: str) -> bool:
    """No number in ``out`` is written as -0 (or -0.0, -0.000): solvers' -0.0 must not reach the user."""
    return re.search(r"(?<![\w.])-0(?:\.0*)?(?![\d.eE])", out) is None


def _text_point_mass_zero(out: str) -> bool:
    return "snapped to 0" in out and "{0: 1}" in out and no_negative_zero(out)


def _completion(value: float) -> Callable[[str], bool]:
    def check(out: str) -> bool:
        res = json.loads(out)["results"]
        return bool(res) and all(abs(r["value"] - value) < 1e-9 for r in res if r["votes"] == 3)
    return check


def _region_sane(out: str) -> bool:
    res = json.loads(out)["results"]
    return all(0 <= r["lower"] <= r["upper"] <= 1 for r in res)


# -- the table ----------------------------------------------------------------

B = ("bounds", "--mu", "0.7", "--rho", "0.2")
MOM3 = ("--moments", "0.7", "0.532", "0.42")
CERT = ("certificate", "--mu", "0.7", "--rho", "0.2", "--side", "upper")
REG = ("region", "--mu-hat", "0.7", "--rho-hat", "0.2", "--n", "100")
COMP = ("complete", "--mu", "0.7", "--rho", "0.2")

#: Numbers every number option must refuse, with a fragment of the rule the message states.
BAD_NUMBERS = {
    "0_7": "plain decimal",          # float() and Fraction() read it as 7
    "\u0667": "plain decimal",       # ARABIC-INDIC DIGIT SEVEN
    "\uff17": "plain decimal",       # FULLWIDTH DIGIT SEVEN
    "nan": "plain decimal",
    "inf": "plain decimal",
    "-Infinity": "plain decimal",
    "0x1": "plain decimal",
    "1,5": "plain decimal",
    "0.7.1": "plain decimal",
    "": "plain decimal",
    "   ": "plain decimal",
    "1 / 2": "plain decimal",
    "1/-2": "plain decimal",
    "1/0": "divides by zero",
    "1e999": "1e300",
    "1e999999999": "exponent",
    "1e-999999999": "exponent",
    "0." + "7" * 5000: "characters",
    "7" * 5000: "characters",
}

_cases: list[Case] = []



def _short(text: str, n: int = 16) -> str:
    """A case id's picture of a long token: its start and its length."""
    return repr(text) if len(text) <= n else f"{text[:n]!r}..({len(text)} chars)"


def _add(*argv, code=2, says=None, check=None, xfail=None, id=None, verdict_on_stdout=False):
    _cases.append(Case(tuple(argv), code, says, check, xfail, id or " ".join(a[:24] for a in argv)[:90], verdict_on_stdout))


# bounds: every number option against every bad number
# --mu=TEXT: argparse itself would take "-Infinity" for an option (that form is below).
for text, rule in BAD_NUMBERS.items():
    _add("bounds", f"--mu={text}", "--votes", "3", says=rule, id=f"bounds --mu {_short(text)}")
_add("bounds", "--mu", "-Infinity", says="expected one argument")
for text in ("0_2", "1e999", "nan", "\u0662"):
    _add("bounds", "--mu", "0.7", "--rho", text, says="rho=", id=f"bounds --rho {text!r}")
    _add("bounds", "--mu", "0.7", "--nu", text, says="nu=", id=f"bounds --nu {text!r}")
    _add("bounds", "--moments", "0.7", "0.5", text, says="m3=", id=f"bounds --moments .. {text!r}")
# bounds: infeasible moments
_add(*B[:3], "--nu", "0.8", says="nu <= mu")
_add(*B[:3], "--nu", "0.3", says="mu^2 <= nu")
_add("bounds", "--mu", "-0.1", says="0 <= mu <= 1")
_add("bounds", "--mu", "1.0000001", says="0 <= mu <= 1")
_add("bounds", "--mu", "0.7", "--rho", "-0.5", says="0 <= rho <= 1")
_add("bounds", "--mu", "0.7", "--rho", "1.5", says="0 <= rho <= 1")
_add("bounds", "--moments", "0.5", "0.3", "0.4", says="infeasible")
_add("bounds", "--moments", "0.5", "0.2", "0.1", says="infeasible")
_add("bounds", "--moments", "0.5", "0.3", "0.2", "0.5", says="infeasible")
# bounds: budgets
for text, rule in {"0": "at least 1", "-1": "at least 1", "-0": "at least 1", "1e30": "plain digits", "3.0": "plain digits",
                   "3.5": "plain digits", "1_000": "plain digits", "\u0663": "plain digits", "+3": "plain digits",
                   "nan": "plain digits", "10**3": "plain digits", "": "plain digits",
                   "1000001": "limit", "1" * 5000: "limit", "1" * 40: "limit"}.items():
    _add(*B, f"--votes={text}", says=rule, id=f"bounds --votes {_short(text)}")
_add(*B, "--votes", "3", "-inf", says="unrecognized arguments")
_add(*B, "--votes", "inf", "3", "99999999999999999999999", says="limit")  # refused before any bound is computed
# bounds: objectives
for text, rule in {
    "9**9**9": "exponent", "(1+q)**2000": "exponent", "q**4000": "exponent", "q**100000": "exponent",
    "1e-400999": "magnitudes", "0.5e-4009999999*q": "magnitudes", "q + 1e99999": "magnitudes",
    "1e400*q": "magnitudes", "1e-400*q": "magnitudes", "0.5**2000*q": "exponent", "2**1000*q": "exponent", "10**301*q": "magnitudes",
    "q**-1": "polynomial", "1/q": "polynomial", "q**0.5": "integer literal", "q**(1/2)": "integer literal", "q**q": "integer literal",
    "sin(q)": "unknown name", "__import__('os')": "unknown name", "lambda: 0": "unknown name", "q.real": "unexpected character",
    "q[0]": "unexpected character", "q;q": "unexpected character", "q\u00b2": "unexpected character", "\u0663*q": "unexpected character",
    "q\x00": "unexpected character", "P3 - Z": "unknown name", "V0": "at least 1", "P-1": "", "V1e5": "unknown name",
    "1_000*q": "unknown name", "q**": "not a valid expression", "**q": "not a valid expression", "(q": "not a valid expression",
    "q)": "not a valid expression", "": "empty", "   ": "empty", "(" * 60 + "q" + ")" * 60: "nested", "q" + "+q" * 1500: "longer",
    "P300*P300": "degree", "V3" + "*V3" * 200: "degree", "V1000001": "limit", "P" + "9" * 1900: "limit",
    "2**2**2**2**2": "exponent", "(q+1)**512*(q+1)**512": "degree", "q**512*q": "degree",
}.items():
    _add(*B, "--objective", text, says=rule, id=f"bounds --objective {_short(text, 30)}")
# bounds: argument structure
_add("bounds", "--rho", "0.2", says="--mu is required")
_add("bounds", says="--mu is required")
_add(*B, "--moments", "0.7", "0.5", says="not both")
_add(*B, "--nu", "0.5", says="not allowed with")
_add(*B, "--method", "magic", says="invalid choice")
_add(*B, "--votes", says="expected at least one")
_add("bounds", "--mu", says="expected one argument")
_add(*B, "--frobnicate", says="unrecognized")
# order 4 of the point mass at 1/2: one law, V_inf = 1/2 exactly (half the atom at 1/2)
_add("bounds", "--moments", "0.5", "0.25", "0.125", "0.0625", "--votes", "3", "inf", "--json", code=0,
     check=lambda out: [(r["lower"], r["upper"]) for r in _json_results(out)] == [(0.5, 0.5), (0.5, 0.5)])
_add("bounds", "--moments", *(["0.5"] * 2000), says="limit of 100", id="bounds order 2000")
_add("certificate", "--moments", *(["0.5"] * 101), "--votes", "3", "--side", "lower", says="limit of 100", id="certificate order 101")
# Order 40, feasible (the law on {0, 1} with weights 1/2): every budget is fixed at 1/2.
_add("bounds", "--moments", *(["0.5"] * 40), "--json", code=0, check=_both(0.5), id="bounds order 40 on {0, 1}")
_add(*B, "--method", "sos", "--votes", "1001", says="too large for method 'sos'")
_add(*B, "--method", "sos", "--objective", "q**500", says="too large for method 'sos'")
_add(*B, "--objective", *(["q**9999"] * 3), says="exponent")
# bounds: answers that must be right
_add("bounds", *MOM3, "--votes", "3", "--json", code=0, check=_both(_v3(0.7, 0.532, 0.42)))
_add("bounds", *MOM3, "--json", code=0, check=_inf_in_defaults, id="bounds order 3, default budgets with inf")
_add("bounds", *MOM3, "--objective", "3*q^2 - 2*q**3", "--json", code=0, check=_both(_v3(0.7, 0.532, 0.42)))
_add(*B, "--objective", "q", "2*q - 1", "--json", code=0,
     check=lambda out: [round(r["lower"], 12) for r in _json_results(out)] == [0.7, 0.4])
_add(*B, "--objective", "q^2", "P0", "--json", code=0, check=lambda out: [round(r["upper"], 12) for r in _json_results(out)] == [0.532, 0.7])
_add("bounds", "--mu", "0.7", "--nu", "0.7", "--votes", "3", "101", "--json", code=0, check=_both(0.7))  # law on {0, 1}
_add("bounds", "--mu", "0.7", "--nu", "0.49", "--votes", "3", "--json", code=0, check=_both(_v3(0.7, 0.49, 0.343)))  # point mass
_add("bounds", "--mu", "1", "--votes", "5", "--json", code=0, check=_both(1.0))
_add("bounds", "--mu", "0", "--nu", "0", "--votes", "5", "inf", "--json", code=0, check=_both(0.0))
_add("bounds", "--mu", "1e-300", "--votes", "3", code=0, check=_text_point_mass_zero)
_add("bounds", "--mu", "1e-300", "--votes", "3", "--json", code=0, check=lambda out: no_negative_zero(out) and _both(0.0)(out))
_add("bounds", "--mu", " 0.7 ", "--rho", "+0.2", "--votes", "3", "4", "--json", code=0, check=_fair_ties)
# The largest budget: its lower bound lies just above the V_inf endpoint of Theorem 4.3,
# L_inf = 1 - (nu' - mu'^2) / (nu' + 1/4 - mu') with mu' = 1 - mu, nu' = 1 - 2 mu + nu.
_L_INF = 1 - ((1 - 1.4 + 0.532) - 0.09) / ((1 - 1.4 + 0.532) + 0.25 - 0.3)
_add("bounds", "--mu", "7e-1", "--rho", "1/5", "--votes", "1000000", "--json", code=0,
     check=lambda out: _L_INF < _json_results(out)[0]["lower"] < _L_INF + 1e-2)
_add("bounds", "--mu", "4517/8192", "--nu", "3301/8192", "--objective", "V7 - V3", "--json", code=0,
     check=lambda out: _json_results(out)[0]["lower"] < 0 < _json_results(out)[0]["upper"] + 1)

# certificate
for text, rule in {"0": "at least 1", "1_0": "plain digits", "1e3": "plain digits", "1000001": "limit"}.items():
    _add(*CERT, "--votes", text, says=rule, id=f"certificate --votes {text!r}")
for text, rule in {"0": ">= 1", "-1": ">= 1", "1_0": "plain digits", "x": "plain digits", "99999999999": "<= ",
                   "1000": "from 1 to 200"}.items():
    _add(*CERT, "--votes", "3", "--digits", text, says=rule, id=f"certificate --digits {text!r}")
_add(*CERT, "--votes", "4003", says="limit of 4001")  # the checker's work budget (certify/certificates/_budget.py)
_add(*CERT, "--votes", "20003", says="limit of 4001")
_add(*CERT, "--objective", "V100001 - V1", says="limit of 4001")
_add(*CERT, "--objective", "P99999 + q", says="limit of 4001")
_add("certificate", "--mu", "0_7", "--rho", "0.2", "--side", "upper", "--votes", "3", says="plain decimal")
_add("certificate", "--mu", "0.7", "--rho", "1e999", "--side", "upper", "--votes", "3", says="1e300")
_add(*CERT, "--objective", "q**100000", says="exponent")
_add(*CERT, "--objective", "sin(q)", says="unknown name")
_add(*CERT, says="one of the arguments --votes --objective is required")
_add("certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", says="--side")
_add(*CERT, "--votes", "3", "--side", "middle", says="invalid choice")
_add(*CERT, "--votes", "3", "-o", "{dir}/no/such/dir/cert.json", says="cert.json")
_add(*CERT, "--votes", "3", "-o", "{dir}/sub", says="sub")
_add(*CERT, "--votes", "3", "-o", "{dir}/sub/cert.json", code=0, check=lambda out: "written to" in out)

# region
for text, rule in {"0": ">= 2", "1": ">= 2", "-5": ">= 2", "1e5": "plain digits", "100.0": "plain digits",
                   "1_000": "plain digits", "10000000000000": "<= "}.items():
    _add(*REG[:5], "--n", text, says=rule, id=f"region --n {text!r}")
for text, rule in {"0": "at least", "1": "below 1", "nan": "plain decimal", "1e-300": "at least", "0_05": "plain decimal",
                   "-0.05": "at least"}.items():
    _add(*REG, "--alpha", text, says=rule, id=f"region --alpha {text!r}")
_add("region", "--mu-hat", "1.5", "--rho-hat", "0.2", "--n", "100", says="mu-hat")
_add("region", "--mu-hat", "0_7", "--rho-hat", "0.2", "--n", "100", says="plain decimal")
_add("region", "--mu-hat", "0.7", "--rho-hat", "1e999", "--n", "100", says="1e300")
_add(*REG, "--votes", "0", says="at least 1")
_add(*REG, "--votes", "1e30", says="plain digits")
_add(*REG, "--objective", "q**4000", says="exponent")
_add("region", "{dir}/no_such.csv", says="no_such.csv")
_add("region", "{dir}/sub", says="sub")
_add("region", "{dir}/empty.csv", says="empty.csv")
_add("region", "{dir}/binary.csv", says="binary.csv")
_add("region", "{dir}/empty.csv", "--n", "100", says="not both")
_add(*REG, "--votes", "3", "inf", "--json", code=0, check=_region_sane)
# A degenerate estimate: the floor rule widens the singular covariance, so the interval reaches
# below 1, but the estimate itself (every call right) stays inside it.
_add("region", "--mu-hat", "1", "--nu-hat", "1", "--n", "2", "--votes", "3", "--json", code=0,
     check=lambda out: _region_sane(out) and json.loads(out)["results"][0]["upper"] == 1.0,
     id="region at mu-hat = 1 (singular covariance)")
_add(*REG, "--singular", "magic", says="invalid choice")
_add(*REG, "--votes", "99999999999", says="limit")
_add(*REG, "--votes", "1000000000", says="limit")  # the projection stopped converging here

# complete
for text, rule in {"0_7": "plain decimal", "1e999": "1e300", "nan": "plain decimal", "1.5": "0 <= mu <= 1"}.items():
    _add("complete", "--mu", text, "--rho", "0.2", says=rule, id=f"complete --mu {text!r}")
_add(*COMP, "--votes", "0", says="at least 1")
_add(*COMP, "--votes", "1e30", says="plain digits")
_add(*COMP, "--votes", "99999999999", says="limit")
_add(*COMP, "--method", "spline", says="invalid choice")
_add("complete", "--mu", "0.7", says="one of the arguments --nu --rho is required")
_add("complete", "--mu", "0.7", "--rho", "2", says="rho")
for method in ("maxent", "ldgp"):
    _add("complete", "--mu", "0.7", "--nu", "0.7", "--method", method, "--votes", "3", "--json", code=0,
         check=_completion(0.7), id=f"complete {method} at rho = 1: V3 = mu")
    _add("complete", "--mu", "0.7", "--nu", "0.49", "--method", method, "--votes", "3", "--json", code=0,
         check=_completion(_v3(0.7, 0.49, 0.343)), id=f"complete {method} at rho = 0: V3 of a point mass")

# plan
for name, path in {"missing": "no_such.csv", "directory": "sub", "empty": "empty.csv", "binary": "binary.csv",
                   "header only": "header_only.csv"}.items():
    _add("plan", f"{{dir}}/{path}", "--votes", "3", says=path, id=f"plan {name} file")
for opt, text, rule in [("--votes", "1", ">= 2"), ("--votes", "1000000", "<= 10001"), ("--votes", "1_0", "plain digits"), ("--votes", "1e30", "plain digits"),
                        ("--alpha", "2", "below 1"), ("--alpha", "nan", "plain decimal"), ("--examples", "1000000000000", "<= "),
                        ("--examples", "1", ">= 2"), ("--calls", "1", ">= 2"), ("--calls", "100000", "<= "),
                        ("--reps", "5", ">= 10"), ("--reps", "1000000000", "<= "), ("--seed", "-1", ">= 0"),
                        ("--seed", "x", "plain digits"), ("--workers", "0", ">= 1"), ("--workers", "1000", "<= 64")]:
    args = ("plan", "{dir}/no_such.csv", "--votes", "3") if opt != "--votes" else ("plan", "{dir}/no_such.csv")
    _add(*args, opt, text, says=rule, id=f"plan {opt} {text!r}")
_add("plan", "--votes", "3", says="FILE")

# verify (certify/cli/verify.py and certify/certificates are another engineer's)
_add("verify", "{dir}/no_such.json", says="does not exist")
_add("verify", "{dir}/jsondir", says="without any *.json")
_add("verify", says="required")
_add("verify", "{dir}/empty.json", code=1, says="FAILED")
_add("verify", "{dir}/binary.json", code=2, says="UNREADABLE", verdict_on_stdout=True)
_add("verify", "{dir}/json_array.json", code=1, says="FAILED")
_add("verify", "{dir}/deep.json", code=1, says="deep")
for _name, (_, _says) in HOSTILE_CERTIFICATES.items():
    _add("verify", f"{{dir}}/hostile/{_name}.json", code=2, says=_says, verdict_on_stdout=True, id=f"verify hostile {_name}")

# analyze (certify/cli/analyze.py and the readers, certify/readers/)
for name, path in {"missing": "no_such.csv", "directory": "sub", "empty": "empty.csv", "binary": "binary.csv",
                   "unknown suffix": "notes.txt", "header only": "header_only.csv", "empty json": "empty.json",
                   "binary sqlite": "binary.sqlite", "fake sqlite": "not_sqlite.sqlite"}.items():
    _add("analyze", f"{{dir}}/{path}", says=path.split("/")[-1].split(".")[0], id=f"analyze {name} file")
_add("analyze", says="FILE")
_add("analyze", "{dir}/no_such.csv", "--method", "magic", says="invalid choice")
_add("analyze", "{dir}/no_such.csv", "--alpha", "x", says="alpha")
_add("analyze", "{dir}/calls.csv", "--calls", "1000000000", says="calls=")
_add("analyze", "{dir}/calls.csv", "--votes", "10000001", says="limit")  # its grids grow with the budget
_add("analyze", "{dir}/calls.csv", "--delimiter", "xyz", says="delimiter")
_add("analyze", "{dir}/calls.csv", "--certificates", "", says="--certificates '': an empty name")
_add("analyze", "{dir}/calls.csv", "--certificates", "/proc/x", says="cannot write in '/proc'")
_add("analyze", "{dir}/calls.csv", "--certificates", "c" * 300, says="File name too long")
_add("analyze", "{dir}/calls.csv", "--certificates", "{dir}/sub", says="is not empty")
_add("analyze", "{dir}/calls.csv", "--certificates", "{dir}/calls.csv", says="not a folder")
_add("analyze", "{dir}/calls.csv", "--force", says="--force applies to --certificates only")
_add("analyze", "{dir}/calls.csv", "--alpha", "0_5", says="plain decimal")
_add("analyze", "{dir}/calls.csv", "--alpha", "1e-300", says="alpha")
_add("analyze", "{dir}/calls.csv", "--votes", "\u0663", says="votes")

# experiment (certify/cli/experiment.py and certify/experiment are another engineer's)
for name, path in {"missing": "no_such.toml", "directory": "sub", "empty": "empty.toml", "binary": "binary.toml"}.items():
    _add("experiment", "run", f"{{dir}}/{path}", "--no-progress", says=None, id=f"experiment run {name} config")
for name, (_, says) in BAD_TOML.items():
    _add("experiment", "run", f"{{dir}}/toml/{name}", "--no-progress", says=says, id=f"experiment run {name}")
_add("experiment", says="required")
_add("experiment", "fly", says="invalid choice")
_add("experiment", "status", "{dir}/no_such.sqlite", says="no_such")
_add("experiment", "status", "{dir}/binary.sqlite", says="binary")
_add("experiment", "status", "{dir}/not_sqlite.sqlite", says="not_sqlite")
_add("experiment", "status", "{dir}/sub", says="sub")
_add("experiment", "export", "{dir}/no_such.sqlite", "-o", "{dir}/out.csv", says="no_such")
_add("experiment", "export", "{dir}/binary.sqlite", "-o", "{dir}/out.csv", says="binary")
_add("experiment", "report", "{dir}/no_such.sqlite", "-o", "{dir}/report", says="no_such")

# the top level
_add(says="required")
_add("frobnicate", says="invalid choice")
_add("--version", code=0, check=lambda out: out.startswith("certify "))

# analyze: hostile tables and answers (certify/readers: _csv, _jsonl, _cells, _columns)
# Generators: one bad byte or line in a valid file (a NUL byte deep inside, a line past
# MAX_LINE_BYTES, a JSON line with a repeated key, NaN, a 5000-digit integer or deep
# nesting), misreads of the call index and of ids, and answer tables that break one rule.
# Sparse files of gigabytes, FIFOs, devices and link loops are made in tests/stats/test_readers_limits.py.
_GOOD_ROWS = b"".join(f"e{i},{i % 2},1\n".encode() for i in range(30))
FILES.update({
    "nul_deep.csv": b"example_id,b0,b1\n" + _GOOD_ROWS * 1000 + b"e\x00x,1,0\n",
    "long_line.csv": b"example_id,b0,b1\n" + _GOOD_ROWS + b"e99,1," + b"0" * (600 * 1024) + b"\n",
    "header_no_newline.csv": b"example_id,b0,b1",
    "repeated_key.jsonl": b'{"example_id": "a", "b0": 1, "b1": 0}\n{"example_id": "b", "b0": 1, "b0": 0, "b1": 1}\n',
    "nan_bit.jsonl": b'{"example_id": "a", "b0": NaN, "b1": 0}\n',
    "long_int.jsonl": b'{"example_id": "a", "b0": ' + b"1" * 5000 + b', "b1": 0}\n',
    "deep_line.jsonl": b'{"example_id": "a", "b0": 1, "b1": 0, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n",
    "rounds_to_one.jsonl": b'{"example_id": "a", "b0": 0.99999999999999999, "b1": 0}\n',
    "call_underscore.csv": b"example_id,call,correct\na,0,1\na,1_0,1\n",
    "call_arabic.csv": "example_id,call,correct\na,0,1\na,\u0661,1\n".encode(),
    "spaced_ids.csv": b"example_id,b0,b1\ne1,1,0\n e1,0,1\n",
    "answers_no_target.csv": b"example_id,call,answer,correct\na,0,x,1\na,1,y,0\n",
    "answers_mixed_target.jsonl": b'{"example_id": "a", "answer1": "5", "answer2": "5", "target": 5}\n'
                                  b'{"example_id": "b", "answer1": "x", "answer2": "y", "target": "x"}\n',
    "answers_disagree.csv": b"example_id,call,answer,target,correct\na,0,x,x,1\na,1,y,x,1\n",
    "answer_unpaired.csv": b"example_id,b1,b2,answer1,answer2,answer3,target\na,1,0,x,y,z,x\n",
    "answers_wide.csv": b"example_id,answer1,answer2,answer3,target\n" + b"".join(
        f"q{i},{'A' if i % 3 else 'B'},{'A' if i % 2 else 'C'}, A ,A\n".encode() for i in range(30)),
    "call_gap.csv": b"example_id,call1,call2,call4\n" + _GOOD_ROWS.replace(b",1\n", b",1,0\n"),
})
# the lm-eval samples reader tests the first line of every .jsonl first (certify/readers/_lmeval.py),
# within the log limits: a line it cannot parse is left to the table reader, whose message is the one shown
for name, says in {"nul_deep.csv": "NUL byte", "long_line.csv": "is longer than the limit",
                   "header_no_newline.csv": "no data rows", "repeated_key.jsonl": "appears twice in one object",
                   "nan_bit.jsonl": "NaN is not a JSON number", "long_int.jsonl": "4300 digits",
                   "deep_line.jsonl": "deeper than the limit", "rounds_to_one.jsonl": "not binary",
                   "call_underscore.csv": "not an integer", "call_arabic.csv": "ASCII digits",
                   "spaced_ids.csv": "appears twice", "answers_no_target.csv": "without a target column",
                   "answers_mixed_target.jsonl": "mixes numbers", "answers_disagree.csv": "must agree with answer == target",
                   "answer_unpaired.csv": "no matching call column"}.items():
    _add("analyze", f"{{dir}}/{name}", says=says, id=f"analyze {name}")
_add("analyze", "{dir}/calls.csv", "--answer-normalize", "lower", says="invalid choice", id="analyze --answer-normalize lower")
_add("analyze", "{dir}/answers_wide.csv", "--votes", "3", code=0,
     check=lambda out: out.startswith("columns: id = example_id; answers = answer1, answer2, answer3; target = target")
     and "30 examples x 3 calls" in out, id="analyze wide answers")
_add("analyze", "{dir}/call_gap.csv", "--votes", "3", code=0, check=lambda out: "skip the number 3" in out,
     id="analyze wide call columns with a gap")

# -- logs: inspect_ai logs and lm-eval samples files, hostile and damaged -----------------------
# (certify/readers/_inspect*.py, _zip.py, _lmeval.py, _answer_regex.py; limits in _log_limits.py)


def _inspect_log(epochs=2, sample_epochs=(1, 2), status='"success"', extra="") -> bytes:
    """A minimal inspect_ai .json log both readers read: samples a and b, scorer "match", target 7.

    ``status`` and ``extra`` are JSON text put into the top-level object as they are."""
    samples = [{"id": sid, "epoch": e, "input": "?", "target": "7",
                "output": {"model": "m", "choices": [], "completion": f"The answer is {7 + (sid == 'b') * e}"},
                "scores": {"match": {"value": "C" if sid == "a" or e == 0 else "I"}}}
               for e in sample_epochs for sid in ("a", "b")]
    head = {"created": "2026-01-01T00:00:00+00:00", "task": "t", "model": "m",
            "dataset": {"samples": 2, "sample_ids": ["a", "b"]}, "config": {"epochs": epochs}}
    return (f'{{"status": {status}, {extra}"eval": {json.dumps(head)}, "samples": {json.dumps(samples)}}}').encode()


def _eval_archive(members: dict[str, bytes]) -> bytes:
    """A .eval archive of stored members."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def _eval_of(log: bytes) -> dict[str, bytes]:
    doc = json.loads(log)
    samples = doc.pop("samples")
    return {"header.json": json.dumps(doc).encode(),
            **{f"samples/{s['id']}_epoch_{s['epoch']}.json": json.dumps(s).encode() for s in samples}}


def _zstd_bomb(mib: int, declared: int | None = None) -> bytes:
    """A .eval whose one sample member is ``mib`` MiB of spaces compressed with zstd (zip method 93),
    declaring ``declared`` bytes (default: the truth). zipfile cannot write zstd: the member is
    written stored, then its method, sizes and CRC are set in both headers."""
    comp = zstandard.ZstdCompressor(level=1).compressobj()
    block, crc = b" " * 2**20, 0
    parts = []
    for _ in range(mib):
        parts.append(comp.compress(block))
        crc = zlib.crc32(block, crc)
    data = b"".join(parts) + comp.flush()
    archive = bytearray(_eval_archive({"header.json": _eval_of(_inspect_log())["header.json"], "samples/a_epoch_1.json": data}))
    size = mib * 2**20 if declared is None else declared
    for sig, method_at, crc_at in ((b"PK\x03\x04", 8, 14), (b"PK\x01\x02", 10, 16)):
        at = archive.rfind(sig)  # the sample member is the last one: its local and its central header
        struct.pack_into("<H", archive, at + method_at, 93)
        struct.pack_into("<III", archive, at + crc_at, crc, len(data), size)
    return bytes(archive)


def _flipped() -> bytes:
    """A valid stored .eval with one letter of a completion changed (its CRC no longer holds)."""
    archive = bytearray(_eval_archive(_eval_of(_inspect_log())))
    at = archive.index(b"The answer is 8")
    archive[at] = ord("X")
    return bytes(archive)


def _lmeval_lines(responses, target="7", doc=None, flt="none") -> bytes:
    return b"".join(json.dumps({"doc_id": i, "doc": doc or {"id": i}, "target": target, "resps": [r],
                                "filtered_resps": [r[0]], "filter": flt, "metrics": ["exact_match"],
                                "exact_match": float(r[0] == target)}).encode() + b"\n"
                    for i, r in enumerate(responses))


_LM_OK = [["7", "8"], ["6", "7"], ["7", "7"]]
FILES.update({
    "logs/ok.json": _inspect_log(),
    "logs/ok.eval": _eval_archive(_eval_of(_inspect_log())),
    "logs/bomb.eval": _zstd_bomb(130),
    "logs/liar.eval": _zstd_bomb(130, declared=1000),
    "logs/flipped.eval": _flipped(),
    "logs/deep.json": _inspect_log(extra='"x": ' + "[" * 100_000 + "]" * 100_000 + ", "),
    "logs/twice.json": _inspect_log(status='"error", "status": "success"'),
    "logs/nan.json": _inspect_log(extra='"x": NaN, '),
    "logs/bigint.json": _inspect_log(extra='"x": ' + "9" * 5000 + ", "),
    "logs/epochs0.json": _inspect_log(epochs=0),
    "logs/epochs-2.json": _inspect_log(epochs=-2),
    "logs/beyond.json": _inspect_log(sample_epochs=(1, 2, 3)),
    "logs/samples_ok.jsonl": _lmeval_lines(_LM_OK),
    "logs/samples_mixed.jsonl": _lmeval_lines(_LM_OK) + _lmeval_lines(_LM_OK + [["7", "8"]], flt="strict"),
    "logs/samples_two_datasets.jsonl": _lmeval_lines(_LM_OK) + _lmeval_lines([["x", "y"]], doc={"question": "?"}, flt="x"),
    "logs/samples_cot.jsonl": _lmeval_lines([["a," * 3000, "The answer is 7."], ["no digits here " * 4000, "7"]]),
})


def _analyzed(n: int) -> Callable[[str], bool]:
    def check(out: str) -> bool:
        data = json.loads(out)
        return data["reports"][0]["n"] == n
    return check


for name in ("ok.json", "ok.eval"):
    _add("analyze", f"{{dir}}/logs/{name}", "--votes", "3", "--json", code=0, check=_analyzed(2), id=f"analyze inspect {name}")
_add("analyze", "{dir}/logs/ok.json", "--answer-regex", "(", says="not a valid Python regular expression")
_add("analyze", "{dir}/logs/bomb.eval", says="more than the limit of 128 MiB for one log document")
_add("analyze", "{dir}/logs/liar.eval", says="decompresses to more than its declared 1000 bytes")
_add("analyze", "{dir}/logs/flipped.eval", says="is corrupt")
_add("analyze", "{dir}/logs/deep.json", says="nest 100001 levels deep")
_add("analyze", "{dir}/logs/twice.json", says="the key 'status' appears twice in one object")
_add("analyze", "{dir}/logs/nan.json", says="NaN is not a JSON number")
_add("analyze", "{dir}/logs/bigint.json", says="a number has more than 4300 digits")
_add("analyze", "{dir}/logs/epochs0.json", says="eval.config.epochs is 0")
_add("analyze", "{dir}/logs/epochs-2.json", says="eval.config.epochs is -2")
_add("analyze", "{dir}/logs/beyond.json", says="epoch 3 is outside the log's epochs")
_add("analyze", "{dir}/logs/samples_ok.jsonl", "--votes", "3", "--json", code=0, check=_analyzed(3), id="analyze lm-eval samples")
_add("analyze", "{dir}/logs/samples_mixed.jsonl", says="mixes tasks or runs")
_add("analyze", "{dir}/logs/samples_two_datasets.jsonl", says="documents of two data sets")
_add("analyze", "{dir}/logs/samples_cot.jsonl", "--answer-regex", "(?s)(.*?,){15}z", says="took more than 1 s on the response")
_add("analyze", "{dir}/logs/samples_cot.jsonl", "--answer-regex", "(?s).*(?<![0-9-])(-?[0-9]+)", "--votes", "3", "--json",
     code=0, check=_analyzed(2), id="analyze lm-eval last-number regex on 60000 characters without a digit")
_add("analyze", "{dir}/logs/samples_ok.jsonl", "--answer-ignore-case", "--scorer", "x", says="--scorer")

CASES: tuple[Case, ...] = tuple(_cases)
