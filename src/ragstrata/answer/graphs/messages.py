"""Sentence templates of the answers, per language, from ``data/answer/messages.toml``."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.errors import ConfigError

__all__ = ["LANGUAGES", "Messages", "messages", "prompt_templates"]

LANGUAGES = ("en", "ru")


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "answer", "messages.toml")
    return tomllib.loads(ref.read_text(encoding="utf-8"))


class Messages:
    """The templates of one language; ``t(key, **values)`` fills one in."""

    def __init__(self, language: str, table: dict[str, Any]) -> None:
        self.language = language
        self._table = table

    def t(self, key: str, **values: Any) -> str:
        """The template ``key`` (``section.key`` for a sub-table) formatted with ``values``."""
        node: Any = self._table
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(f"no message {key!r} for language {self.language!r}")
            node = node[part]
        return str(node).format(**values)

    def kind(self, kind: str) -> str:
        """A definition kind (``class``, ``function``...) as a capitalised word of the language."""
        table = self._table.get("kinds", {})
        return str(table.get(kind, kind.replace("_", " ").capitalize()))


@lru_cache(maxsize=4)
def messages(language: str) -> Messages:
    """The templates of ``language`` (``ru`` or ``en``)."""
    if language not in LANGUAGES:
        raise ConfigError(f"unknown answer language {language!r}; valid: {', '.join(LANGUAGES)}")
    return Messages(language, _data()[language])


def prompt_templates() -> dict[str, str]:
    """The LLM prompt templates (``system``, ``user``, ``block_open``, ``block_close``)."""
    return {k: str(v) for k, v in _data()["prompt"].items()}
