"""Shared by the proof scripts: write a script's record atomically under proofs/records/."""

from __future__ import annotations

import json
import os
from pathlib import Path


def write_record(script: str, record: dict) -> Path:
    """Write ``record`` as ``proofs/records/<script stem>.json`` (temp file + rename)."""
    out = Path(script).resolve().with_name("records") / f"{Path(script).stem}.json"
    out.parent.mkdir(exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    return out
