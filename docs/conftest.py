"""Every example of the documentation pages runs as a test (``docs/_ext/doc_examples.py``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from doc_examples import docs_sybil  # noqa: E402

pytest_collect_file = docs_sybil().pytest()
