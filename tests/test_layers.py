"""The package's layers are one-way (issue 14).

Lowest first: the math core (``certify/_*.py``, ``certify/solvers``) <- readers
<- certificates <- likelihood <- statistics and forecasts <- the analysis and experiments <- report <- CLI. This test
parses every module under ``certify/`` with :mod:`ast` (nothing is imported), resolves
relative imports, and checks three rules for every ``import`` / ``from ... import``
statement, wherever it sits (module level or inside a function):

(a) a module imports its own layer or lower layers only;
(b) a module imports no other package's private module (a dotted path with a
    component starting with ``_`` whose parent package is neither the importer's
    package nor one of its ancestors) and no other package's private name
    (``from certify.stats import _paired``, ``from ..stats._empirical import _x``);
(c) the readers import the math core (``certify/_*.py``) and themselves only: they
    produce the call types everything else consumes, so they need none of the rest
    (not even the solvers, on a lower layer number).

The public namespaces (``certify``, ``certify.stats``, ``certify.solvers``, ...) are
what one package offers another; a package's private ``_module`` files are free
for its own modules and subpackages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "certify"

#: Layer of each top-level subpackage of ``certify``; anything else is the math core.
LAYERS = {"solvers": 0, "readers": 1, "certificates": 2, "likelihood": 3, "stats": 4, "aggregates": 4, "forecast": 4,
          "planning": 4, "analysis": 5, "experiment": 5, "report": 6, "cli": 7}

#: Packages that may import only the math core (``certify/_*.py``) besides themselves (rule (c)).
CORE_ONLY = {"readers"}

#: Violations accepted for now, as ``(importer, imported module)`` pairs, each with its reason.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def _module_name(path: Path) -> tuple[str, bool]:
    """Dotted name of the module at *path* and whether it is a package ``__init__``."""
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def _package_of(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if node.level == 0:
        return node.module or ""
    base = package.split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path):
    """Yield ``(line, imported module, imported names or None)`` for every import in *path*."""
    module, is_package = _module_name(path)
    package = _package_of(module, is_package)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, _resolve(node, package), [alias.name for alias in node.names]


def _layer(module: str) -> int:
    """Layer of *module*; the package root ``certify`` is above every layer.

    The root's names load lazily from every layer up to the statistics (PEP 562), so an import of
    ``certify`` itself from inside the package is an import of all of them: a circle that no
    import statement of the lower module names. Nothing inside the package may import it.
    """
    parts = module.split(".")
    if module == "certify":
        return len(LAYERS)
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_owner(module: str) -> str | None:
    """The package whose private module *module* is (its first private component's parent)."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if _is_private(part):
            return ".".join(parts[:i])
    return None


def _within(package: str, owner: str) -> bool:
    """Whether *package* is *owner* or one of its subpackages."""
    return package == owner or package.startswith(owner + ".")


def _top(module: str) -> str | None:
    """The top-level subpackage of ``certify`` that *module* is in; None for the math core and ``certify`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (ROOT / parts[1]).is_dir() else None


def _is_package(module: str) -> bool:
    return (ROOT.parent / Path(*module.split(".")) / "__init__.py").is_file()


def violations() -> list[str]:
    found = []
    for path in _modules():
        importer, is_package = _module_name(path)
        package = _package_of(importer, is_package)
        for line, imported, names in _imports(path):
            if imported != "certify" and not imported.startswith("certify."):
                continue
            where = f"{path.relative_to(ROOT.parent)}:{line}"
            # `from certify.stats import _data` names a module, not an attribute: treat as the module
            targets = [imported]
            if names is not None:
                targets = [f"{imported}.{n}" if _is_package(imported) and (ROOT.parent / Path(*imported.split("."), f"{n}.py")).is_file() else imported for n in names]
            for target in dict.fromkeys(targets):
                if (importer, target) in KNOWN_EXCEPTIONS:
                    continue
                if _layer(target) > _layer(importer):
                    found.append(f"{where}: {importer} (layer {_layer(importer)}) imports higher layer {target} (layer {_layer(target)})")
                elif _top(importer) in CORE_ONLY and (target == "certify" or _top(target) not in (None, _top(importer))):
                    # `certify` itself counts: its lazy names reach every layer
                    found.append(f"{where}: {importer} imports {target}; certify.{_top(importer)} imports the math core only")
                owner = _private_owner(target)
                if owner is not None and not _within(package, owner):
                    found.append(f"{where}: {importer} imports {target}, a private module of {owner}")
            if names is not None:
                owner = _package_of(imported, _is_package(imported))
                for name in names:
                    if _is_private(name) and not _within(package, owner) and (importer, f"{imported}.{name}") not in KNOWN_EXCEPTIONS:
                        found.append(f"{where}: {importer} imports private name {name} of {imported}")
    return found


def test_the_walk_sees_every_layer():
    layers = {_layer(_module_name(p)[0]) for p in _modules()}
    assert layers == set(LAYERS.values()) | {_layer("certify")}  # the root, above every layer, included
    # and it resolves relative imports (certify.stats._region imports certify._bounds)
    region = ROOT / "stats" / "_region.py"
    assert any(imported == "certify._bounds" for _, imported, _ in _imports(region))
    # the likelihood sits between certificates and statistics: the analysis imports it, it imports certificates
    assert any(imported == "certify.likelihood" for _, imported, _ in _imports(ROOT / "analysis" / "_analyze.py"))
    assert any(imported == "certify.certificates" for _, imported, _ in _imports(ROOT / "likelihood" / "_certificates.py"))


def test_imports_only_lower_layers_and_public_names():
    found = violations()
    assert not found, "layering violations:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "importer, source, expected",
    [
        ("report/_x.py", "from ..stats._empirical import _paired\n", 2),
        ("cli/_x.py", "from ..readers._registry import read_groups\n", 1),
        ("stats/_x.py", "from ..experiment import RunStore\n", 1),
        ("stats/_x.py", "from ..solvers._batch import batch_upper\n", 1),
        ("stats/_x.py", "from .._bounds import sharp_bounds\nfrom ._empirical import paired\n", 0),
        ("stats/_x.py", "from ..readers import read_groups\n", 0),
        ("stats/_x.py", "from ..readers._registry import read_groups\n", 1),
        ("readers/_x.py", "from .._calls import CallBits\nfrom ._registry import read_groups\n", 0),
        ("readers/_x.py", "from ..stats import analyze\n", 1),
        ("readers/_x.py", "from ..solvers import batch_upper\n", 1),
        ("readers/_x.py", "import certify.experiment\n", 1),
        ("readers/_x.py", "import certify\n", 1),
        ("certificates/_x.py", "import certify\n", 1),
        ("stats/_x.py", "from .. import __version__\n", 1),
        ("cli/_x.py", "import certify\n", 1),
        ("certificates/_x.py", "from .._version import package_version\n", 0),
        ("certificates/_x.py", "from ..readers import CallBits\n", 0),
        ("likelihood/_x.py", "from ..stats import analyze\n", 1),
        ("likelihood/_x.py", "from ..certificates._likelihood_build import MARGINS\n", 1),
        ("likelihood/_x.py", "from ..certificates import verify\nfrom .._calls import CallBits\n", 0),
        ("stats/_x.py", "from ..likelihood._npmle import npmle\n", 1),
        ("stats/_x.py", "from ..likelihood import npmle\n", 0),
        ("experiment/_backends/_x.py", "from .._config import BackendConfig\n", 0),
        ("cli/_x.py", "from certify.stats import read_groups\nimport certify.report\n", 0),
        ("cli/_x.py", "import certify.report._demo\n", 1),
    ],
)
def test_the_rules_catch_what_they_should(tmp_path, monkeypatch, importer, source, expected):
    """The checker itself, on small synthetic modules placed in a copy of the layout."""
    fake = tmp_path / "certify"
    for sub in ("", *LAYERS, "experiment/_backends"):
        (fake / sub).mkdir(parents=True, exist_ok=True)
        (fake / sub / "__init__.py").write_text("")
    for name in ("stats/_empirical.py", "readers/_registry.py", "solvers/_batch.py", "_bounds.py", "_calls.py", "experiment/_config.py",
                 "report/_demo.py"):
        (fake / name).write_text("")
    (fake / importer).write_text(source)
    monkeypatch.setitem(globals(), "ROOT", fake)
    assert len(violations()) == expected, violations()


def test_one_exception_class_per_name():
    """Each error class has one definition: two meanings never share a name (issue 14)."""
    seen: dict[str, list[str]] = {}
    for path in _modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name.endswith(("Error", "Exception")):
                seen.setdefault(node.name, []).append(str(path.relative_to(ROOT.parent)))
    assert not {name: where for name, where in seen.items() if len(where) > 1}
