"""llama.cpp's native code: it runs here, a crash is reported, and the build is portable."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import pytest

from certify.experiment import BackendError
from certify.experiment._backends._embedded import LLAMA_CPP_SUPPORTED, check_llama_cpp_version
from native_probe import ROOT, run_probe

# CPU features that llama.cpp's portable x86-64 build (GGML_NATIVE=OFF) never compiles
# in: kernels for them are what made the native build crash on an AVX-512 + AMX host,
# and what a wheel built on such a host would carry to a host without them.
NON_PORTABLE = ("AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AMX_INT8", "AVX_VNNI")


def test_packaged_model_runs_in_a_child_process(native_probe):
    assert native_probe.returncode == 0, native_probe.describe()
    out = native_probe.output()
    assert len(out["logits"]) == 2 and all(math.isfinite(x) for x in out["logits"])
    assert out["logits"][0] != out["logits"][1]
    assert out["prompt_tokens"] > 20
    assert 1 <= out["completion_tokens"] <= 8


def test_a_native_crash_fails_with_the_signal_and_system_info():
    crash = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    result = run_probe("unused", code=crash)
    assert result.crashed
    message = result.describe()
    assert "killed by SIGSEGV" in message
    pytest.importorskip("llama_cpp")
    assert "CPU" in result.system_info, result.system_info


def test_installed_build_is_portable(native_probe):
    info = native_probe.system_info
    compiled = set(re.findall(r"([A-Z0-9_]+) = 1", info))
    assert compiled, f"no CPU features in the system info: {info}"
    assert not compiled & set(NON_PORTABLE), (
        f"llama-cpp-python was built for this host's CPU ({sorted(compiled & set(NON_PORTABLE))}), "
        f"not portably: reinstall with CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" and --no-cache-dir. {info}"
    )


def test_the_pinned_release_is_the_supported_one():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pin = next(d for d in deps["experiment"] if d.startswith("llama-cpp-python"))
    version = pin.split("==")[1]
    assert tuple(int(x) for x in version.split(".")) == LLAMA_CPP_SUPPORTED[1]
    llama_cpp = pytest.importorskip("llama_cpp")
    assert llama_cpp.__version__ == version


@pytest.mark.parametrize("version", ["0.3.37", "0.4.0", "0.3.15", "0.2.90", "garbage"])
def test_unsupported_llama_cpp_releases_are_refused_in_one_line(version):
    with pytest.raises(BackendError, match=r"^llama-cpp-python .* is not supported .*\(supported: 0\.3\.16 to 0\.3\.36\)"):
        check_llama_cpp_version(version)


@pytest.mark.parametrize("version", ["0.3.16", "0.3.36", "0.3.20+cpu"])
def test_supported_llama_cpp_releases_pass(version):
    check_llama_cpp_version(version)
