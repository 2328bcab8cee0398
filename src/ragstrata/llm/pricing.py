"""What a call costs: a price table (USD per 1M tokens) and the metadata runners return.

The packaged table (``ragstrata/data/llm/prices.toml``) lists a handful of well-known models;
users add or override models with their own TOML file of the same shape::

    [models."my-model"]
    input = 0.50          # USD per 1M prompt tokens
    output = 1.50         # USD per 1M completion tokens
    cached_input = 0.25   # optional: USD per 1M prompt tokens served from the prompt cache

A model that is not in the table costs 0 and its metadata carries the note "price unknown".
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ragstrata.errors import ConfigError
from ragstrata.llm.base import LLMMetadata, ModelUsage

__all__ = [
    "CHARS_PER_TOKEN",
    "Price",
    "PriceTable",
    "PricedMetadata",
    "estimate_tokens",
    "usage_metadata",
]

_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{4}|\d{8})$")
PRICE_UNKNOWN = "price unknown"


@dataclass(frozen=True, slots=True)
class Price:
    """USD per one million tokens."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
        """USD for ``input_tokens`` uncached prompt, ``cached_tokens`` cached, and output."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return (
            input_tokens * self.input + cached_tokens * cached_rate + output_tokens * self.output
        ) / 1_000_000


class PriceTable:
    """Model name -> ``Price``; dated snapshots fall back to the undated name."""

    def __init__(self, prices: Mapping[str, Price]) -> None:
        self._prices = dict(prices)

    @classmethod
    def load(cls, extra: Path | None = None) -> PriceTable:
        """The packaged table, extended/overridden by the TOML file ``extra`` when given."""
        packaged = resources.files("ragstrata").joinpath("data", "llm", "prices.toml")
        prices = _parse(packaged.read_text(encoding="utf-8"), "packaged prices.toml")
        if extra is not None:
            try:
                text = Path(extra).read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot read price file {extra}: {exc.strerror}") from None
            prices.update(_parse(text, str(extra)))
        return cls(prices)

    def __contains__(self, model: object) -> bool:
        return isinstance(model, str) and self.get(model) is not None

    def get(self, model: str) -> Price | None:
        """The price of ``model`` (or of its undated name), or ``None``."""
        price = self._prices.get(model)
        if price is None:
            undated = _DATE_SUFFIX.sub("", model)
            if undated != model:
                price = self._prices.get(undated)
        return price


def _parse(text: str, source: str) -> dict[str, Price]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"price file {source} is not valid TOML: {exc}") from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ConfigError(f"price file {source}: [models] must be a table of model names")
    return {name: _price(name, entry, source) for name, entry in models.items()}


def _price(name: str, entry: Any, source: str) -> Price:
    if not isinstance(entry, dict):
        raise ConfigError(f"price file {source}: models.{name!r} must be a table")
    unknown = set(entry) - {"input", "output", "cached_input"}
    if unknown:
        raise ConfigError(
            f"price file {source}: models.{name!r} has unknown key(s) {sorted(unknown)}; "
            "valid: input, output, cached_input"
        )
    values: dict[str, float] = {}
    for key in ("input", "output", "cached_input"):
        value = entry.get(key)
        if value is None:
            if key != "cached_input":
                raise ConfigError(f"price file {source}: models.{name!r} needs {key!r}")
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(
                f"price file {source}: models.{name!r}.{key} must be a number >= 0, got {value!r}"
            )
        values[key] = float(value)
    return Price(values["input"], values["output"], values.get("cached_input"))


@dataclass(frozen=True, slots=True)
class PricedMetadata(LLMMetadata):
    """``LLMMetadata`` plus notes such as "price unknown" (the cost is then 0)."""

    notes: tuple[str, ...] = ()


def usage_metadata(
    model: str,
    *,
    prices: PriceTable,
    input_tokens: int,
    output_tokens: int,
    cached_tokens: int = 0,
    duration_s: float = 0.0,
    duration_api_s: float = 0.0,
    also_priced_as: str | None = None,
) -> PricedMetadata:
    """Metadata of one call; ``input_tokens`` excludes ``cached_tokens`` (they are disjoint).

    ``model`` keys the per-model usage (the name the provider reported); ``also_priced_as`` is
    tried for the price when ``model`` is not in the table (the configured name).
    """
    price = prices.get(model)
    if price is None and also_priced_as:
        price = prices.get(also_priced_as)
    cost = price.cost(input_tokens, output_tokens, cached_tokens) if price else 0.0
    usage = ModelUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cached_tokens,
        cost_usd=cost,
    )
    return PricedMetadata(
        total_cost_usd=cost,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cached_tokens,
        num_turns=1,
        duration_s=duration_s,
        duration_api_s=duration_api_s,
        models={model: usage},
        notes=() if price else (f"{PRICE_UNKNOWN} for model {model!r}",),
    )


# Prompts are estimated at ``ceil(chars / 4)`` tokens: English prose and code average 3.5-4.5
# characters per token in BPE vocabularies, so this is within about 15 %.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / CHARS_PER_TOKEN)``: the token estimate of a prompt before it is sent."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
