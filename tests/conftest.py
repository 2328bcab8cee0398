"""Shared test configuration: where the project's own contract data lives.

The seed-component conformance cases are kept in the repository under
``tests/conformance/`` (a copy of ``shared/conformance/``, refreshed by
``scripts/sync_conformance.sh``), so a plain clone tests itself. Test modules import
``CONFORMANCE`` from here; nothing under ``tests/`` reads a sibling folder.
"""

from __future__ import annotations

from pathlib import Path

CONFORMANCE = Path(__file__).resolve().parent / "conformance"
"""Folder of the seed-component conformance cases (JSON)."""
