"""Every subpackage lists its public names in its docstring, and no name has two homes.

The listing follows ``scipy.stats``: grouped sections, one line per public name, written as
a reST bullet ``* :role:`name` -- what it is`` (the role links the entry to its API page).
For each subpackage found on disk:

* every name of ``__all__`` is one listed entry, exactly once, and every entry is a name of
  ``__all__``; the role matches the object (``func``, ``class``, ``exc`` or ``data``), and a
  name the root package re-exports links to the root's page (``~certify.name``), since Sphinx
  leaves an unresolved role without a warning;
* ``__all__`` holds no name twice;
* no public name is exported by two subpackages (same name, or same object under another
  name), unless :data:`REEXPORTS` allows it with a reason and the re-exporting entry says
  "re-exported from" the home subpackage.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import Counter
from pathlib import Path

import pytest

import certify

#: Subpackages left out of these checks, each with why.
SKIP: set[str] = set()

#: (re-exporting subpackage, name) -> why that subpackage exports another subpackage's object.
#: Its docstring entry names the home: "re-exported from :mod:`certify.<home>`".
REEXPORTS: dict[tuple[str, str], str] = {}

#: One listed entry: a bullet at the start of a line, a role, the name, " -- " and a description.
#: A name the root package also exports is written ``~certify.name``: its page is indexed under
#: the root (docs/conf.py), so that is the target a link resolves to.
ENTRY = re.compile(
    r"^\* :(?P<role>func|class|exc|data):`(?P<root>~certify\.)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)` -- \S", re.MULTILINE
)
#: Any bullet that starts with a role: a malformed entry (no " -- ", another dotted path) is caught.
ROLE_BULLET = re.compile(r"^\* :[a-z]+:`", re.MULTILINE)

#: Values whose identity means nothing (CPython shares small ints and interned strings); these
#: constants collide by name only.
SCALARS = (str, bytes, int, float, complex, bool, type(None))


def _subpackages() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(certify.__path__) if info.ispkg and info.name not in SKIP)


def _public(name: str) -> tuple[object, list[str]]:
    """The subpackage and its public names (none for one without ``__all__``, which exports nothing)."""
    module = importlib.import_module(f"certify.{name}")
    return module, list(getattr(module, "__all__", []))


def _role(obj) -> str:
    if inspect.isclass(obj):
        return "exc" if issubclass(obj, BaseException) else "class"
    if inspect.isroutine(obj):
        return "func"
    return "data"


SUBPACKAGES = _subpackages()


def test_walk_finds_the_subpackages():
    """The walk sees the packages on disk (a broken walk would pass every check vacuously)."""
    on_disk = {path.parent.name for path in Path(certify.__path__[0]).glob("*/__init__.py")}
    assert set(SUBPACKAGES) == on_disk - SKIP
    assert {"stats", "likelihood", "readers", "certificates", "solvers", "report", "experiment"} <= set(SUBPACKAGES)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_all_has_no_duplicates(name):
    _, public = _public(name)
    twice = sorted(item for item, count in Counter(public).items() if count > 1)
    assert not twice, f"certify.{name}.__all__ lists {twice} more than once"


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_docstring_lists_each_public_name_once(name):
    module, public = _public(name)
    doc = module.__doc__ or ""
    entries = [(match["role"], match["name"]) for match in ENTRY.finditer(doc)]
    assert len(entries) == len(ROLE_BULLET.findall(doc)), f"certify.{name}: a bullet with a role is no entry"
    listed = Counter(entry for _, entry in entries)
    missing = sorted(set(public) - set(listed))
    extra = sorted(set(listed) - set(public))
    twice = sorted(entry for entry, count in listed.items() if count > 1)
    assert not missing, f"certify.{name}: not listed in the docstring: {missing}"
    assert not extra, f"certify.{name}: listed but not in __all__: {extra}"
    assert not twice, f"certify.{name}: listed more than once: {twice}"
    wrong = sorted((entry, role, _role(getattr(module, entry)))
                   for role, entry in entries if role != _role(getattr(module, entry)))
    assert not wrong, f"certify.{name}: (name, role written, role of the object): {wrong}"
    in_root = {match["name"] for match in ENTRY.finditer(doc) if match["root"]}
    also_in_root = {item for item in public
                    if item in certify.__all__ and getattr(certify, item) is getattr(module, item)}
    assert in_root == also_in_root, f"certify.{name}: entries to write as ~certify.name: {sorted(also_in_root)}"


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_a_subpackage_without_all_exports_nothing(name):
    """A namespace without ``__all__`` would grow an API no listing checks: it may hold modules only."""
    module = importlib.import_module(f"certify.{name}")
    if hasattr(module, "__all__"):
        return
    public = [item for item, value in vars(module).items() if not item.startswith("_") and not inspect.ismodule(value)]
    assert not public, f"certify.{name} has no __all__ but defines {public}"


def _clash_groups() -> set[frozenset[tuple[str, str]]]:
    """(subpackage, name) holders sharing a name, or a (non-scalar) object, across subpackages."""
    by_name: dict[str, set[tuple[str, str]]] = {}
    by_object: dict[int, set[tuple[str, str]]] = {}
    for name in SUBPACKAGES:
        module, public = _public(name)
        for item in public:
            by_name.setdefault(item, set()).add((name, item))
            obj = getattr(module, item)
            if not isinstance(obj, SCALARS):
                by_object.setdefault(id(obj), set()).add((name, item))
    groups = [*by_name.values(), *by_object.values()]
    return {frozenset(group) for group in groups if len({package for package, _ in group}) > 1}


def test_no_name_is_exported_by_two_subpackages():
    """Of the holders of one name or object, all but its home are allowed re-exports."""
    unexplained = []
    for group in _clash_groups():
        homes = sorted(holder for holder in group if holder not in REEXPORTS)
        if len(homes) != 1:
            unexplained.append(sorted(group))
    assert not unexplained, f"exported by two subpackages, not allowed in REEXPORTS: {unexplained}"


def test_each_allowed_reexport_is_one_and_says_so():
    """An allowed re-export is one other subpackage's object, and its entry names that home."""
    for package, item in REEXPORTS:
        module = importlib.import_module(f"certify.{package}")
        obj = getattr(module, item)
        homes = [name for name in SUBPACKAGES if name != package
                 and any(getattr(importlib.import_module(f"certify.{name}"), other) is obj
                         for other in _public(name)[1])]
        assert len(homes) == 1, f"certify.{package}.{item}: not one other subpackage's object ({homes})"
        lines = [line for line in (module.__doc__ or "").splitlines()
                 if (match := ENTRY.match(line)) and match["name"] == item]
        entry = lines[0] if lines else f"(no entry for {item})"
        assert f"re-exported from :mod:`certify.{homes[0]}`" in entry, f"certify.{package}: {entry}"


def test_the_entry_pattern_catches_a_missing_name():
    """The pattern reads what a docstring lists: a name only mentioned in prose is no entry."""
    doc = "Intro naming :func:`b`.\n\nGroup\n-----\n\n* :func:`a` -- the first.\n* :class:`~certify.C` -- a class.\n"
    assert [m["name"] for m in ENTRY.finditer(doc)] == ["a", "C"]
    assert len(ROLE_BULLET.findall(doc + "* :func:`d` without a description\n")) == 3
