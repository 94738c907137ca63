"""The quick commands do not load the compiled core: numba's import (and its cache) is for the solvers.

`certify --version`, `certify bounds` and `certify verify` answer in a fraction of a second;
importing numba alone costs about 0.3 s and loading compiled functions more. Each command runs
in a fresh interpreter, as a user runs it, and reports what it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from certify.cli.main import main

#: Runs one command in a fresh interpreter and prints its exit code and whether numba was loaded.
_RUN = """
import contextlib, io, json, sys
from certify.cli.main import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        code = main(json.loads(sys.argv[1]))
    except SystemExit as exc:  # --version exits from argparse
        code = exc.code
print(json.dumps({"code": code, "numba": "numba" in sys.modules, "out": out.getvalue()}))
"""


def _run(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _RUN, json.dumps(argv)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A moment certificate and a likelihood certificate set (analyze --certificates)."""
    d = tmp_path_factory.mktemp("startup")
    moment = d / "v3.json"
    certificate = ["certificate", "--mu", "0.7", "--rho", "0.2", "--votes", "3", "--side", "upper"]
    assert main([*certificate, "-o", str(moment)]) == 0
    rows = "".join(f"e{i},{i % 2},{i // 2 % 2},{i // 3 % 2},1\n" for i in range(40))
    data = d / "calls.csv"
    data.write_text("example_id,c1,c2,c3,c4\n" + rows)
    sets = d / "likelihood"
    assert main(["analyze", str(data), "--votes", "3", "--certificates", str(sets)]) == 0
    return moment, sets


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["bounds", "--mu", "0.6", "--nu", "0.4"],
        # four moments: the moment-space check of any order (certify._moments) runs too
        ["bounds", "--moments", "0.5", "0.3", "0.2", "0.15", "--votes", "3", "5", "--json"],
    ],
)
def test_version_and_bounds_do_not_load_numba(argv):
    got = _run(argv)
    assert got["code"] == 0
    assert not got["numba"], f"certify {' '.join(argv)} imported numba"


def test_verify_does_not_load_numba(certificates):
    moment, sets = certificates
    for target in (moment, sets):
        got = _run(["verify", str(target)])
        assert got["code"] == 0 and "OK" in got["out"], got["out"]
        assert not got["numba"], f"certify verify {target.name} imported numba"


#: Imports the kernels module copied to a read-only folder, with no writable cache anywhere, and
#: prints W of a few rows (the same arithmetic as the installed module's).
_READ_ONLY = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import certify.likelihood._calibration_kernels as k
assert k.__file__.startswith(sys.argv[1]), k.__file__
counts = np.array([[3, 5, 2], [1, 8, 1], [4, 2, 4]], dtype=np.int64)
d = np.array([-0.5, 0.25, 1.0])
print(json.dumps(k.saturated_ratios(counts, d, 1e-12, 60, 1e-300).tolist()))
"""


def test_the_compiled_kernels_work_where_no_cache_can_be_written(tmp_path):
    """A read-only file system without a writable home: numba cannot cache, the kernels still compile and agree."""
    import os
    import shutil

    import numpy as np

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent / "experiment"))
    from hostile_server import mount_tmpfs, remount, unmount

    from certify.likelihood import _calibration_kernels as installed

    media = tmp_path / "ro"
    mount_tmpfs(media, "64m")
    try:
        package = __import__("pathlib").Path(installed.__file__).parents[1]
        shutil.copytree(package, media / "certify", ignore=shutil.ignore_patterns("__pycache__"))
        (media / "home").mkdir()
        remount(media, "ro")
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        env.update(HOME=str(media / "home"), XDG_CACHE_HOME=str(media / "home" / ".cache"))
        done = subprocess.run(
            [sys.executable, "-c", _READ_ONLY, str(media)], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert not any(media.rglob("*.nbi"))  # nothing could be (and nothing was) cached there
    finally:
        unmount(media)
    counts = np.array([[3, 5, 2], [1, 8, 1], [4, 2, 4]], dtype=np.int64)
    want = installed.saturated_ratios(counts, np.array([-0.5, 0.25, 1.0]), 1e-12, 60, 1e-300)
    assert json.loads(done.stdout.splitlines()[-1]) == want.tolist()
