"""Shared by the proof scripts: write a script's record atomically under proofs/records/."""

from __future__ import annotations

import json
from pathlib import Path

from certify._files import write_atomically


def write_record(script: str, record: dict) -> Path:
    """Write ``record`` as ``proofs/records/<script stem>.json`` (temp file + rename)."""
    out = Path(script).resolve().with_name("records") / f"{Path(script).stem}.json"
    return write_atomically(out, json.dumps(record, indent=1) + "\n", parents=True)
