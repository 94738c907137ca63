"""Run llama.cpp's native code on the packaged model in a child process.

A crash in native code (an illegal instruction, a segmentation fault) kills the
process that runs it. The suite therefore first runs one prompt pass and one short
generation in a child process: if that child dies of a signal, the probe's test
fails with the signal and llama.cpp's system information, and the tests that would
load the model in the pytest process itself are skipped instead of taking the whole
run down with them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# One prompt pass (choice mode's next-token logits) and one short generation, through
# the same EmbeddedModel the experiment uses.
_CHILD = """
import json, sys
from certify.experiment import TASKS, build_prompt, load_model
model = load_model(sys.argv[1], 512, 1)
prompt = build_prompt(TASKS["parity"], {"number": "42"})
logits, n_prompt = model.choice_logits(prompt, "answer", ("Yes", "No"))
out = model.generate("Say hello.", None, 0.0, 1.0, 8, 1)
print(json.dumps({"logits": logits, "prompt_tokens": n_prompt, "completion_tokens": out["completion_tokens"]}))
"""

_SYSTEM_INFO = "import llama_cpp; print(llama_cpp.__version__, llama_cpp.llama_print_system_info().decode())"


@dataclass(frozen=True)
class ProbeResult:
    """What the child process did: its exit code, its output, and llama.cpp's system info."""

    returncode: int
    stdout: str
    stderr: str
    system_info: str

    @property
    def crashed(self) -> bool:
        return self.returncode < 0

    def describe(self) -> str:
        if self.crashed:
            what = f"killed by {signal.Signals(-self.returncode).name}"
        else:
            what = f"exit code {self.returncode}"
        return (f"native llama.cpp probe {what}; llama-cpp-python and system info: {self.system_info}\n"
                f"stderr (last 3000 characters):\n{self.stderr[-3000:]}")

    def output(self) -> dict:
        return json.loads(self.stdout.strip().splitlines()[-1])


def system_info() -> str:
    """``llama_cpp.__version__`` and ``llama_print_system_info()``, read in a child of their own."""
    run = subprocess.run([sys.executable, "-c", _SYSTEM_INFO], capture_output=True, text=True, timeout=120)
    return run.stdout.strip() if run.returncode == 0 else f"(unreadable: exit {run.returncode}) {run.stderr[-500:]}"


def run_probe(model: str, code: str = _CHILD, timeout: float = 300) -> ProbeResult:
    """Run ``code`` (default :data:`_CHILD`) on ``model`` with faulthandler on.

    ``model`` is ``gemma3:270m`` or a GGUF path; ``code`` is only replaced by the test
    of the crash report itself.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code, model], capture_output=True,
                         text=True, timeout=timeout, env=env)
    return ProbeResult(run.returncode, run.stdout, run.stderr, system_info())
