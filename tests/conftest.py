"""Shared test configuration: where the project's own contract data lives.

The seed-component conformance cases are kept in the repository under
``tests/conformance/`` (a copy of ``shared/conformance/``, kept in sync by
``scripts/sync_conformance.sh``), so a plain clone tests itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONFORMANCE = Path(__file__).resolve().parent / "conformance"


def load_conformance(name: str) -> Any:
    """The parsed JSON of one conformance file under ``tests/conformance/``."""
    return json.loads((CONFORMANCE / name).read_text(encoding="utf-8"))
