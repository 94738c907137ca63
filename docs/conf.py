"""Sphinx configuration of the certify documentation.

Build: ``python3 -m sphinx -W --keep-going -b html docs docs/_build/html`` (the test
``tests/test_docs.py`` builds it the same way, warnings as errors). Pages are MyST
Markdown; the API reference is generated from the numpydoc docstrings (autosummary,
autodoc, numpydoc), the command-line reference from the argparse parser
(sphinx-argparse), the JSON Schema pages from ``certify/schemas/*.json`` (the local
extension ``_ext/schema_fields.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from certify._version import package_version  # noqa: E402

project = "certify"
author = "the certify authors"
copyright = "the certify authors"
release = package_version()
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
    "schema_fields",
]

smartquotes = False  # "--votes" must stay two hyphens, in the CLI reference and in the prose
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "conftest.py", "_ext", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]

# --- MyST -----------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "fieldlist"]
myst_heading_anchors = 3

# --- API reference ----------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autosummary_ignore_module_all = False  # a namespace page lists its __all__, nothing else
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # each public method has its own autosummary entry where it matters
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# --- HTML -------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"certify {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_show_sourcelink = False
html_last_updated_fmt = None

# A class that two namespaces export (``certify.CallBits`` is ``certify.readers.CallBits``)
# is described once for the cross-reference index: under the root package, which is where
# most programs take it from; its page in the other namespace is marked :no-index:.
NAMESPACES = ("certify", "certify.readers", "certify.likelihood", "certify.stats", "certify.certificates",
              "certify.solvers", "certify.experiment", "certify.report")


def _also_in_root() -> list[str]:
    import importlib

    import certify

    out = []
    for name in NAMESPACES[1:]:
        module = importlib.import_module(name)
        for item in module.__all__:
            if item in certify.__all__ and getattr(module, item) is getattr(certify, item):
                out.append(f"{name}.{item}")
    return out


autosummary_context = {"no_index": _also_in_root()}
