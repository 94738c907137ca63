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

import json
import re
from dataclasses import dataclass, field
from typing import Callable

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
_add(*CERT, "--votes", "20003", says="limit of 20001")
_add(*CERT, "--objective", "V100001 - V1", says="limit of 20001")
_add(*CERT, "--objective", "P99999 + q", says="limit of 20001")
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
# the lm-eval samples reader tests the first line of every .jsonl first (certify/readers/_lmeval.py)
_LMEVAL_SNIFF = "the lm-eval sniffer parses the first line with json.loads, without the limits"
for name, says in {"nul_deep.csv": "NUL byte", "long_line.csv": "is longer than the limit",
                   "header_no_newline.csv": "no data rows", "repeated_key.jsonl": "appears twice in one object",
                   "nan_bit.jsonl": "NaN is not a JSON number", "long_int.jsonl": "4300 digits",
                   "deep_line.jsonl": "deeper than the limit", "rounds_to_one.jsonl": "not binary",
                   "call_underscore.csv": "not an integer", "call_arabic.csv": "ASCII digits",
                   "spaced_ids.csv": "appears twice", "answers_no_target.csv": "without a target column",
                   "answers_mixed_target.jsonl": "mixes numbers", "answers_disagree.csv": "must agree with answer == target",
                   "answer_unpaired.csv": "no matching call column"}.items():
    _add("analyze", f"{{dir}}/{name}", says=says, id=f"analyze {name}",
         xfail=_LMEVAL_SNIFF if name in ("long_int.jsonl", "deep_line.jsonl") else None)
_add("analyze", "{dir}/calls.csv", "--answer-normalize", "lower", says="invalid choice", id="analyze --answer-normalize lower")
_add("analyze", "{dir}/answers_wide.csv", "--votes", "3", code=0,
     check=lambda out: out.startswith("columns: id = example_id; answers = answer1, answer2, answer3; target = target")
     and "30 examples x 3 calls" in out, id="analyze wide answers")
_add("analyze", "{dir}/call_gap.csv", "--votes", "3", code=0, check=lambda out: "skip the number 3" in out,
     id="analyze wide call columns with a gap")

CASES: tuple[Case, ...] = tuple(_cases)
