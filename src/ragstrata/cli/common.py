"""Helpers shared by CLI commands: JSON/@file arguments, JSON printing, settings at the edge."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ragstrata.errors import InvalidStateError
from ragstrata.settings import Settings, load_settings

__all__ = ["edge_settings", "parse_json_arg", "print_json"]


def parse_json_arg(value: str | None, name: str) -> Any:
    """Parse ``value`` as inline JSON, or as ``@file`` holding JSON; ``None`` stays ``None``."""
    if value is None:
        return None
    text = value
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidStateError(f"{name}: cannot read {path}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidStateError(
            f"{name} is not valid JSON: {exc.msg} at position {exc.pos}"
        ) from None


def print_json(data: Any) -> None:
    """Print ``data`` as UTF-8 JSON (Cyrillic kept readable) on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


GLOBAL_OVERRIDES: dict[str, Any] = {}
"""Settings given by global flags (``ragstrata --store URL ...``), set by the root callback."""


def edge_settings(folder: Path | None = None, **overrides: Any) -> Settings:
    """The settings for a command: file in ``folder`` (or cwd) < environment < flags."""
    merged = {**GLOBAL_OVERRIDES, **overrides}
    return load_settings(folder or Path.cwd(), env=os.environ, overrides=merged or None)
