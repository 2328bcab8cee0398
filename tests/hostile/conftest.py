"""The hostile suite (issue 14): each test builds its own fixture and would have caught one bug.

Every test runs with no ``RAGSTRATA_*`` variable from the caller, an empty user config home and
the hash embedder; helpers live in ``hostile_util``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _user_side_isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RAGSTRATA_* from the caller, an empty user config home, the hash embedder."""
    for key in list(os.environ):
        if key.startswith("RAGSTRATA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("RAGSTRATA_EMBEDDER_PROVIDER", "hash")
