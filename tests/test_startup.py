"""What `import certify` and one CLI command load (the README's first command must start fast)."""

import re
import subprocess
import sys

import certify
from certify.cli.main import command_modules, requested_module


def _loaded_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_loads_neither_scipy_stats_nor_sympy():
    loaded = _loaded_after("import certify; certify.sharp_bounds(5, mu=0.6, nu=0.4)")
    assert "certify._bounds" in loaded
    assert not {"scipy.stats", "sympy", "cvxpy", "scipy.optimize"} & loaded


def test_analyze_with_certificates_loads_neither_scipy_stats_nor_sympy(tmp_path):
    # about 0.8 s and 0.6 s of imports, a third of a short run: the analysis builds its gains
    # without the text parser and takes its quantiles from scipy.special
    rows = "".join(f"e{i},{i % 2},{i // 2 % 2},{i // 3 % 2},1\n" for i in range(40))
    data = tmp_path / "calls.csv"
    data.write_text("example_id,c1,c2,c3,c4\n" + rows)
    loaded = _loaded_after("import contextlib, io\nfrom certify.cli.main import main\n"
                           "with contextlib.redirect_stdout(io.StringIO()):\n"
                           f"    assert main(['analyze', {str(data)!r}, '--votes', '3', '5', 'inf', "
                           f"'--certificates', {str(tmp_path / 'certs')!r}]) == 0")
    assert "certify.stats._empirical" in loaded and "certify.likelihood._certificates" in loaded
    assert not {"scipy.stats", "sympy"} & loaded


def test_the_reference_lists_every_top_level_name():
    # the top-level namespace is what the reference documents (docs/reference/objectives.md,
    # its table "Every name of the certify package")
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "reference" / "objectives.md").read_text(encoding="utf-8")
    table = page[page.index("## Every name of the `certify` package"):]
    table = (table + "\n\n")[: (table + "\n\n").index("\n\n", table.index("| what | names |"))]
    listed = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table))
    assert set(certify.__all__) <= listed, sorted(set(certify.__all__) - listed)


def test_every_public_name_resolves():
    # the statistics and certificate names load on first access (PEP 562)
    for name in certify.__all__:
        assert getattr(certify, name) is not None, name
    assert set(certify.__all__) <= set(dir(certify))


def test_a_command_registers_alone_and_help_lists_all():
    assert requested_module(["bounds", "--mu", "0.5"]) == "bounds"
    assert requested_module(["serve-ollama", "--port", "1"]) == "serve_ollama"
    assert requested_module(["--help"]) is None
    assert requested_module(["bonds"]) is None
    loaded = _loaded_after("from certify.cli.main import main\nmain(['bounds', '--mu', '0.6', '--nu', '0.4', '--json'])")
    assert "certify.cli.bounds" in loaded and "certify.cli.analyze" not in loaded
    assert "scipy.stats" not in loaded
    assert len(command_modules()) >= 9


def test_sympy_numbers_are_still_read_exactly():
    import sympy

    b = certify.sharp_bounds(3, mu=sympy.Rational(3, 5), nu=sympy.Rational(2, 5))
    assert b.moments == (0.6, 0.4)
