"""Labels and sentences of generated pages, per language, from ``data/gendocs/strings.toml``."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.errors import ConfigError

__all__ = ["LANGUAGES", "Strings", "strings"]

LANGUAGES = ("en", "ru")


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    ref = resources.files("ragstrata").joinpath("data", "gendocs", "strings.toml")
    return tomllib.loads(ref.read_text(encoding="utf-8"))


class Strings:
    """The strings of one language; ``t(key, **values)`` fills one in."""

    def __init__(self, language: str, table: dict[str, Any]) -> None:
        self.language = language
        self._table = table

    def t(self, key: str, **values: Any) -> str:
        """The template ``key`` formatted with ``values``."""
        if key not in self._table:
            raise KeyError(f"no gendocs string {key!r} for language {self.language!r}")
        return str(self._table[key]).format(**values)

    def code(self, key: str, **values: Any) -> str:
        """Like :meth:`t` for a page: a value the template quotes as code (`` `{x}` ``) becomes
        a safe code span (:func:`ragstrata.answer.docs.safe.code_span`), whatever its backticks."""
        from ragstrata.answer.docs.safe import code_span

        template = self.t(key, **{k: "{" + k + "}" for k in values})
        for k, v in values.items():
            quoted = "`{" + k + "}`"
            if quoted in template:
                template = template.replace(quoted, "{" + k + "}")
                values[k] = code_span(str(v))
        return template.format(**values)

    def kind(self, kind: str) -> str:
        """A definition kind as a capitalised word of the language."""
        table = self._table.get("kinds", {})
        return str(table.get(kind, kind.replace("_", " ").capitalize()))


@lru_cache(maxsize=4)
def strings(language: str) -> Strings:
    """The strings of ``language`` (``en`` or ``ru``); a ``ConfigError`` names the valid set."""
    if language not in LANGUAGES:
        raise ConfigError(f"unknown docs language {language!r}; valid: {', '.join(LANGUAGES)}")
    return Strings(language, _data()[language])
