"""Held-out docstring→definition pairs from the standard library, for the tests that pin the
quality of the query map and of the fine-tuned encoder: neither was fitted or trained on any
of these modules (both learn from PyPI packages only)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from ragstrata.core.texts import DEFINITION_MAX_CHARS

HELD_OUT = ("textwrap", "shlex", "fractions", "statistics", "calendar", "difflib", "ipaddress",
            "zipfile", "tarfile", "configparser", "gettext", "plistlib", "mailbox", "pydoc")  # fmt: skip


def _first_sentence(doc: str) -> str:
    head = " ".join(doc.strip().split("\n\n")[0].split())
    return head.split(". ")[0].rstrip(".") + "."


def stdlib_pairs() -> list[tuple[str, str]]:
    """(first docstring sentence, the definition without its docstring), as the index embeds it."""
    pairs: list[tuple[str, str]] = []
    for name in HELD_OUT:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            doc = ast.get_docstring(node)
            if not doc or len(doc.split()) < 6 or node.name.startswith("__"):
                continue
            node.body = node.body[1:] or [ast.Pass()]
            text = f"{name}.{node.name}\n{ast.unparse(node)}"[:DEFINITION_MAX_CHARS]
            pairs.append((_first_sentence(doc), text))
    return pairs
