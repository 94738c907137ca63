"""The `certify` launcher in a hostile environment: Ctrl-C at any moment, SIGTERM, closed or ASCII-only
standard streams, and names that hold control characters. Every test runs the installed `certify`
script in a real process, as a user's shell would."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

#: The console script pip installed next to this interpreter: the code before `main` runs counts too.
CERTIFY = Path(sys.executable).with_name("certify")
#: Seconds any one launch may take before the test gives up on it (a loaded 2-core machine included).
DEADLINE = 120
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

pytestmark = [
    pytest.mark.skipif(not CERTIFY.exists(), reason="the certify console script is not installed"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and file descriptors"),
]


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C's default action, which Python turns into KeyboardInterrupt.
    (A shell starts background jobs with SIGINT ignored, and an ignored signal stays ignored.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _bits_csv(path: Path, examples: int = 60, calls: int = 4, groups=("",), seed: int = 0) -> Path:
    """A wide CSV of correctness bits, q_i ~ Beta(2, 1); with a ``policy`` column when groups are named."""
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        named = groups != ("",)
        w.writerow(["example_id", *(["policy"] if named else []), *(f"c{j + 1}" for j in range(calls))])
        for g in groups:
            q = rng.beta(2, 1, examples)
            for i in range(examples):
                w.writerow([f"e{i}", *([g] if named else []), *(int(b) for b in rng.random(calls) < q[i])])
    return path


def _run(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(CERTIFY), *map(str, args)], capture_output=True, text=True, env=kwargs.pop("env", ENV),
                          timeout=DEADLINE, preexec_fn=_default_sigint, **kwargs)


# ---- Ctrl-C and SIGTERM ---------------------------------------------------------------------------


def test_ctrl_c_at_any_moment_of_a_command_prints_one_line(tmp_path):
    # the launcher imports certify, then the command imports numpy and scipy (a second or two
    # in all): Ctrl-C anywhere in there, or in the solves after, ends with one line and 130
    data = _bits_csv(tmp_path / "calls.csv", examples=300, calls=6)
    interrupted = 0
    # (the first ~0.05 s, before Python's own start-up has finished, are out of reach of any handler)
    for delay in (0.3, 0.5, 0.8, 1.1, 1.5, 2.0):
        proc = subprocess.Popen([str(CERTIFY), "analyze", str(data), "--votes", "3", "5", "9", "inf"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                                preexec_fn=_default_sigint)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=DEADLINE)
        assert "Traceback" not in err and "Exception ignored" not in err, (delay, err)
        if proc.returncode == 0:  # it had finished: nothing to interrupt
            assert err == "", (delay, err)
            continue
        # before Python installs its handler, the signal's default action ends the process (no output)
        assert proc.returncode in (130, -signal.SIGINT), (delay, proc.returncode, err)
        assert err in ("", "certify analyze: interrupted\n"), (delay, err)
        interrupted += proc.returncode == 130
    assert interrupted >= 3  # the delays did interrupt the command, not just watch it finish


def _children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: present and not a zombie (an orphan's zombie may wait for a reaper that never comes)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@contextlib.contextmanager
def _plan_with_workers(tmp_path, **popen):
    """A long `certify plan --workers 2`, once both its worker processes run: (process, worker ids, stderr file).

    Its output goes to files, not pipes: an orphaned worker would hold a pipe open. Whatever the
    test finds, no process it started is left behind.
    """
    data = _bits_csv(tmp_path / "pilot.csv", examples=60, calls=4, seed=2)
    err = tmp_path / "plan.err"
    with open(tmp_path / "plan.out", "w") as out_file, open(err, "w") as err_file:
        proc = subprocess.Popen([str(CERTIFY), "plan", str(data), "--votes", "3", "--workers", "2", "--reps", "100000",
                                 "--examples", "500", "--calls", "5"], stdout=out_file, stderr=err_file, env=ENV,
                                preexec_fn=_default_sigint, **popen)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + DEADLINE
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) == 2, f"the plan did not start its two workers: {err.read_text()}"
        yield proc, workers, err
    finally:
        proc.kill()
        proc.wait()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)


def _left(proc: subprocess.Popen, workers: set[int]) -> set[int]:
    """The workers still running a generous while after the command exited."""
    proc.wait(timeout=DEADLINE)
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    return {w for w in workers if _alive(w)}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process parents from /proc")
def test_sigterm_to_plan_ends_its_workers(tmp_path):
    with _plan_with_workers(tmp_path) as (proc, workers, err):
        proc.send_signal(signal.SIGTERM)
        left = _left(proc, workers)
        assert not left, f"workers {sorted(left)} outlived `certify plan`"
        assert (proc.returncode, err.read_text()) == (130, "certify plan: interrupted\n")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process parents from /proc")
def test_ctrl_c_to_plan_and_its_workers_prints_one_line(tmp_path):
    # a terminal's Ctrl-C reaches every process of the foreground group: the workers too
    with _plan_with_workers(tmp_path, start_new_session=True) as (proc, workers, err):
        os.killpg(proc.pid, signal.SIGINT)
        left = _left(proc, workers)
        assert not left, f"workers {sorted(left)} outlived `certify plan`"
        assert (proc.returncode, err.read_text()) == (130, "certify plan: interrupted\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")
def test_workers_end_with_a_killed_plan(tmp_path):
    # SIGKILL cannot be handled: the workers must notice that their parent is gone
    with _plan_with_workers(tmp_path) as (proc, workers, _):
        proc.kill()
        left = _left(proc, workers)
        assert not left, f"workers {sorted(left)} outlived `certify plan`"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process parents from /proc")
def test_a_killed_worker_is_one_line_and_the_other_stops(tmp_path):
    # the kernel's out-of-memory killer picks the largest process: often a worker
    with _plan_with_workers(tmp_path) as (proc, workers, err):
        os.kill(min(workers), signal.SIGKILL)
        left = _left(proc, workers)
        assert not left, f"workers {sorted(left)} outlived `certify plan`"
        assert proc.returncode == 1 and err.read_text() == (
            "certify plan: failed: a worker process of the plan ended unexpectedly (killed, or out of memory); run "
            "again, with fewer --workers if memory is short\n")


# ---- standard streams -------------------------------------------------------------------------------


def _shell(command: str, *args) -> subprocess.CompletedProcess:
    """``command`` run by sh with "$CERTIFY" and the positional ``args``: redirections as a user writes them."""
    return subprocess.run(["sh", "-c", command, "sh", *map(str, args)], capture_output=True, text=True,
                          env={**ENV, "CERTIFY": str(CERTIFY)}, timeout=DEADLINE)


def test_closed_stdout_is_one_line_and_exit_1(tmp_path):
    data = _bits_csv(tmp_path / "calls.csv")
    for extra in ([], ["--json"]):
        r = _shell('"$CERTIFY" analyze "$@" >&-', data, "--votes", "3", *extra)
        assert r.returncode == 1, r.stderr
        assert r.stderr == "certify analyze: error: standard output is closed; redirect it to a file or to /dev/null\n"


def test_closed_stderr_never_moves_messages_to_stdout(tmp_path):
    data = _bits_csv(tmp_path / "calls.csv")
    # an error: exit 2, and nothing on stdout (a message has nowhere to go)
    r = _shell('"$CERTIFY" analyze "$@" 2>&-', tmp_path / "missing.csv")
    assert (r.returncode, r.stdout) == (2, "")
    # a result: stdout holds the JSON alone, though the command also reports on stderr
    r = _shell('"$CERTIFY" analyze "$@" 2>&-', data, "--votes", "3", "--json", "--certificates", tmp_path / "certs")
    assert r.returncode == 0
    assert json.loads(r.stdout)["reports"][0]["n"] == 60
    assert (tmp_path / "certs" / "index.json").is_file()
    # the progress bar's check of stderr (a terminal?) is no AttributeError
    r = _shell('"$CERTIFY" plan "$@" 2>&-', data, "--votes", "3", "--examples", "50", "--calls", "2", "--reps", "10",
               "--width-reps", "2", "--workers", "1")
    assert r.returncode == 0 and r.stdout.startswith("Plan for certifying"), r.stdout


def test_ascii_only_stdout_escapes_other_scripts(tmp_path):
    data = _bits_csv(tmp_path / "calls.csv", groups=("café", "naïve/模型"))
    ascii_env = {**ENV, "PYTHONIOENCODING": "ascii"}
    r = _run(["analyze", data, "--votes", "3"], env=ascii_env)
    assert r.returncode == 0, r.stderr
    assert "[caf\\xe9]" in r.stdout and "[na\\xefve/\\u6a21\\u578b]" in r.stdout
    # JSON is ASCII already: the names come back exactly
    r = _run(["analyze", data, "--votes", "3", "--json"], env=ascii_env)
    assert [rep["group"] for rep in json.loads(r.stdout)["reports"]] == ["café", "naïve/模型"]
    # and so do error messages on stderr
    r = _run(["analyze", data, "--group", "thé"], env=ascii_env)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "th\\xe9" in r.stderr, r.stderr


# ---- control characters in data ---------------------------------------------------------------------

#: A group name that would clear the screen and print a verdict line of its own.
FORGED = "a\x1b[2J\n  3 votes: CERTIFIED better than one call (+50.0 pp)\x9b31m\u202e"


def test_control_characters_in_names_cannot_forge_a_line(tmp_path):
    data = _bits_csv(tmp_path / "calls.csv", examples=30, calls=3, groups=(FORGED, "b"), seed=3)
    r = _run(["analyze", data, "--votes", "3"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert not any(c in r.stdout for c in "\x1b\x9b\u202e\r")
    assert not any(line.startswith("  3 votes: CERTIFIED better than one call (+50.0 pp)") for line in lines)
    shown = "a\\x1b[2J\\n  3 votes: CERTIFIED better than one call (+50.0 pp)\\x9b31m\\u202e"
    assert any(line.startswith(f"{data} [{shown}]: 30 examples x 3 calls") for line in lines)
    # JSON keeps the exact name
    r = _run(["analyze", data, "--votes", "3", "--json"])
    assert json.loads(r.stdout)["reports"][0]["group"] == FORGED
    # an error message that lists the groups: one line, escaped the same way
    r = _run(["plan", data, "--votes", "3"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and shown in r.stderr, r.stderr


def test_control_characters_in_a_file_name_are_escaped(tmp_path):
    data = _bits_csv(tmp_path / "bits\x1b]0;owned\x07.csv", examples=20, calls=3)
    r = _run(["analyze", data, "--votes", "3"])
    assert r.returncode == 0 and "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "bits\\x1b]0;owned\\x07.csv: 20 examples x 3 calls" in r.stdout
    r = _run(["analyze", tmp_path / "gone\x1b[2J.csv"])
    assert r.returncode == 2 and "\x1b" not in r.stderr and r.stderr.count("\n") == 1, r.stderr


# ---- one BLAS thread ------------------------------------------------------------------------------


def test_the_command_runs_with_one_blas_thread_unless_the_caller_says_otherwise():
    """The console script is ``run``: before a command imports numpy, the BLAS thread pools get one
    thread (OPENBLAS_NUM_THREADS, MKL_NUM_THREADS); a value the caller set stands, and OpenMP's
    variable (the embedded model's threads) is left alone."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    assert "from certify.cli.main import run" in CERTIFY.read_text()
    probe = (
        "import os, sys\nimport certify.cli.main as m\nsys.argv = ['certify', 'bounds', '--mu', '0.7', '--nu', '0.55', '--votes', '3']\nassert m.run() == 0\n"
        "import numpy, scipy.linalg, threadpoolctl\n"
        "print(sorted({i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'}), "
        "os.environ.get('OMP_NUM_THREADS'))\n"
    )
    bare = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}
    for env, blas in ((bare, [1]), ({**bare, "OPENBLAS_NUM_THREADS": "2"}, [2])):
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=DEADLINE)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[-1] == f"{blas} None", out.stdout
    assert threadpoolctl.__version__
