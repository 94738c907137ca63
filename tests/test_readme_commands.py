"""The README opens with the two commands a new user runs; CI runs the second one."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_opens_with_the_demo_and_the_test_command():
    demo, tests = _readme_commands()
    assert demo.endswith("certify demo") and "[experiment]" in demo
    assert tests.endswith("python3 -m pytest") and "[dev]" in tests
    # both build llama.cpp the same portable way
    assert demo.split(" python3")[0] == tests.split(" python3")[0] == 'CMAKE_ARGS="-DGGML_NATIVE=OFF"'


def test_ci_runs_the_readme_test_command_in_a_fresh_virtual_environment():
    _, tests = _readme_commands()
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    code = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert code[-1] == tests
    venv = next(i for i, line in enumerate(code) if "python3 -m venv" in line)
    activate = next(i for i, line in enumerate(code) if "/bin/activate" in line)
    assert venv < activate < len(code) - 1


def test_readme_stands_alone():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "../shared" not in text
    assert "Two Calls, Two Moments, and the Vote-Accuracy Curve of\nRepeated LLM Inference" in text
