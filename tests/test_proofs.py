"""Every script in proofs/ runs, succeeds, and writes a record whose claims hold."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROOFS = sorted((Path(__file__).resolve().parent.parent / "proofs").glob("*.py"))

#: What each record must say; a script without an entry here fails the test.
CHECKS = {
    "even_budget_collapse": lambda r: r["symbolic_boundary_cancellation"] is True and r["exact_n"] == list(range(1, 51)),
}


@pytest.mark.parametrize("script", PROOFS, ids=[p.stem for p in PROOFS])
def test_proof_script(script):
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    record = json.loads((script.parent / "records" / f"{script.stem}.json").read_text())
    assert CHECKS[script.stem](record)
