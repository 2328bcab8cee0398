"""Query decomposers (seed 000): split a question into sub-questions, or say it is single.

A decomposer returns a list of sub-questions, or ``None`` meaning "no decomposition: run the
original query alone". Three implementations:

- ``RuleQueryDecomposer`` splits on `` и ``, `` или `` and ``, `` (case-insensitively,
  deviation R1); the separator giving the most non-empty parts wins, ties go to the earlier one.
- ``LLMQueryDecomposer`` asks a ``Runner`` for a JSON list of strings. A transport error raises
  ``DecomposerError``; a reply without a usable list returns ``None`` (deviation L1), so a
  composite falls back to the rule decomposer. The list is found robustly (deviation L2).
- ``CompositeDecomposer(primary, secondary)`` tries primary, then secondary, then gives
  ``None``; it never raises.

``plan_sub_queries`` and ``merge_sub_query_hits`` implement how a pipeline uses the result.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from ragstrata.errors import ConfigError, DecomposerError
from ragstrata.llm.base import Request, Runner
from ragstrata.llm.json_reply import json_values

__all__ = [
    "DECOMPOSER_KINDS",
    "DEFAULT_LLM_PROMPT",
    "RULE_SEPARATORS",
    "CompositeDecomposer",
    "Decomposition",
    "LLMQueryDecomposer",
    "QueryDecomposer",
    "RuleQueryDecomposer",
    "SubQueryPlan",
    "build_decomposer",
    "extract_string_list",
    "merge_sub_query_hits",
    "plan_sub_queries",
]

log = logging.getLogger(__name__)


@runtime_checkable
class QueryDecomposer(Protocol):
    """Splits a question into sub-questions; ``None`` means "run the original query alone"."""

    def decompose(self, query: str) -> list[str] | None: ...


# --------------------------------------------------------------------------- rule decomposer

RULE_SEPARATORS: tuple[str, ...] = (" и ", " или ", ", ")
"""Separators in priority order (a tie in part count keeps the earlier one)."""

_SEPARATOR_RES = tuple(re.compile(re.escape(s), re.IGNORECASE) for s in RULE_SEPARATORS)


class RuleQueryDecomposer:
    """Splits on Russian conjunctions and comma-space; ``None`` when fewer than two parts.

    Only ASCII spaces around a separator count (a tab or NBSP does not); parts are trimmed
    and empty parts dropped. English ``and``/``or`` are deliberately not separators.
    """

    def decompose(self, query: str) -> list[str] | None:
        """Sub-questions of ``query`` (>= 2 non-empty trimmed parts), or ``None``."""
        if not query or not query.strip():
            return None
        best: list[str] = []
        for pattern in _SEPARATOR_RES:
            parts = [p.strip() for p in pattern.split(query)]
            parts = [p for p in parts if p]
            if len(parts) > len(best):  # strict: ties keep the earlier separator
                best = parts
        return best if len(best) >= 2 else None


# --------------------------------------------------------------------------- LLM decomposer

DEFAULT_LLM_PROMPT = (
    "Разбей запрос пользователя о программном проекте на независимые под-вопросы, "
    "каждый из которых можно искать в коде и документации отдельно. "
    "Сохраняй идентификаторы, пути к файлам и термины без изменений и пиши на языке запроса. "
    "Если запрос простой, верни его единственным элементом. "
    'Ответь только JSON-массивом строк без пояснений, например: ["под-вопрос 1", "под-вопрос 2"].'
    "\n\nЗапрос: {query}"
)
"""The default template (sent as the user message, empty system prompt, as in ld-p2)."""

_FENCE_RE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_CANDIDATES = 64  # bracket starts examined in prose; with the cap below, bounds the work
_MAX_SCAN_CHARS = 50_000  # prose beyond this is not searched for a list


def _clean(items: list[str]) -> list[str] | None:
    out = [s.strip() for s in items]
    out = [s for s in out if s]
    return out or None


def _as_string_list(value: Any) -> list[str] | None:
    """A list of strings (possibly wrapped in an object with exactly one such list)."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) != 1:
            return None
        value = lists[0]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return _clean(value)


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def extract_string_list(reply: str) -> list[str] | None:
    """The sub-questions in an LLM reply, or ``None`` when it holds no usable list.

    Order of attempts (deviation L2): the whole reply as JSON (a list of strings, or an object
    with exactly one list value); else the first ``` fence whose content parses so; else the
    first balanced ``[...]`` in the text that parses as a JSON list of strings. Elements are
    trimmed and empty ones dropped; a list with a non-string element is unusable.
    """
    text = reply.strip()
    if not text:
        return None
    ok, value = _loads(text)
    if ok:  # the whole reply is JSON: it decides alone
        return _as_string_list(value)
    for fence in _FENCE_RE.finditer(text):
        ok, value = _loads(fence.group(1).strip())
        if ok:
            found = _as_string_list(value)
            if found:
                return found
    for value in json_values(text[:_MAX_SCAN_CHARS], "[", limit=_MAX_CANDIDATES):
        found = _as_string_list(value) if isinstance(value, list) else None
        if found:
            return found
    return None


class LLMQueryDecomposer:
    """Asks an LLM for sub-questions as a JSON list of strings.

    ``prompt_template`` (deviation L3): a template containing ``{query}`` is filled in and sent
    as the user message with an empty system prompt; a template without ``{query}`` is sent as
    the system prompt with the query as the user message; ``None`` or ``""`` uses
    ``DEFAULT_LLM_PROMPT``.
    """

    def __init__(self, runner: Runner, prompt_template: str | None = None) -> None:
        if runner is None:
            raise ConfigError("llm decomposer: runner must not be None")
        if not isinstance(runner, Runner):
            raise ConfigError(
                f"llm decomposer: runner {type(runner).__name__!r} has no run(request) method"
            )
        self._runner = runner
        self._template = prompt_template or DEFAULT_LLM_PROMPT

    def request_for(self, query: str) -> Request:
        """The request this decomposer sends for ``query``."""
        if "{query}" in self._template:
            return Request(system_prompt="", user_prompt=self._template.replace("{query}", query))
        return Request(system_prompt=self._template, user_prompt=query)

    def decompose(self, query: str) -> list[str] | None:
        """Sub-questions from the model; ``None`` for an empty query or an unusable reply.

        Raises ``DecomposerError`` when the runner fails.
        """
        if not query or not query.strip():
            return None
        try:
            result = self._runner.run(self.request_for(query))
        except Exception as exc:
            raise DecomposerError(
                f"llm decomposer: runner failed: {type(exc).__name__}: {exc}"
            ) from exc
        subs = extract_string_list(result.text)
        if subs is None:
            log.debug("llm decomposer: no usable list in reply %r", result.text[:200])
        return subs


# --------------------------------------------------------------------------- composite


@dataclass(frozen=True, slots=True)
class Decomposition:
    """What a composite decided: the sub-questions (empty = single query) and who decided."""

    sub_queries: tuple[str, ...]
    decided_by: Literal["primary", "secondary", "none"]
    failures: tuple[str, ...] = ()  # one line per decomposer that raised, for the plan


class CompositeDecomposer:
    """Primary, then secondary, then ``None``; a decomposer succeeds iff it returns a non-empty
    list without raising. Never raises from ``decompose``."""

    def __init__(self, primary: QueryDecomposer, secondary: QueryDecomposer) -> None:
        if primary is None:
            raise ConfigError("composite decomposer: primary must not be nil")
        if secondary is None:
            raise ConfigError("composite decomposer: secondary must not be nil")
        for role, dec in (("primary", primary), ("secondary", secondary)):
            if not isinstance(dec, QueryDecomposer):
                raise ConfigError(
                    f"composite decomposer: {role} {type(dec).__name__!r} has no decompose(query)"
                )
        self.primary = primary
        self.secondary = secondary

    def explain(self, query: str) -> Decomposition:
        """The decision with its provenance (which decomposer won, which ones failed)."""
        failures: list[str] = []
        steps: tuple[tuple[Literal["primary", "secondary"], QueryDecomposer], ...] = (
            ("primary", self.primary),
            ("secondary", self.secondary),
        )
        for role, dec in steps:
            try:
                subs = dec.decompose(query)
            except Exception as exc:  # degrade, never raise: the caller runs the single query
                failures.append(f"{role} {type(dec).__name__}: {type(exc).__name__}: {exc}")
                continue
            if subs:
                return Decomposition(tuple(subs), role, tuple(failures))
        return Decomposition((), "none", tuple(failures))

    def decompose(self, query: str) -> list[str] | None:
        """The first successful list (primary, then secondary), or ``None``."""
        result = self.explain(query)
        return list(result.sub_queries) if result.sub_queries else None


DECOMPOSER_KINDS: tuple[str, ...] = ("rule", "llm", "composite")


def build_decomposer(
    kind: str, runner: Runner | None = None, prompt_template: str | None = None
) -> QueryDecomposer:
    """The decomposer named by ``settings.router.decomposer``.

    ``rule`` needs nothing; ``llm`` (raises ``DecomposerError`` on transport errors) and
    ``composite`` (LLM primary, rule secondary, never raises) need a ``runner``.
    """
    if kind == "rule":
        return RuleQueryDecomposer()
    if kind in ("llm", "composite"):
        if runner is None:
            raise ConfigError(f"decomposer {kind!r} needs an LLM runner (configure llm.provider)")
        llm = LLMQueryDecomposer(runner, prompt_template)
        return llm if kind == "llm" else CompositeDecomposer(llm, RuleQueryDecomposer())
    raise ConfigError(f"unknown decomposer {kind!r}; valid: {', '.join(DECOMPOSER_KINDS)}")


# --------------------------------------------------------------------------- pipeline use


@dataclass(frozen=True, slots=True)
class SubQueryPlan:
    """The retrieval queries to run for a decomposer result.

    ``queries`` are searched (in parallel when several); ``query_text`` is what the answer
    reports as the question (always the original).
    """

    queries: tuple[str, ...]
    query_text: str
    mode: Literal["single", "multi"]


def plan_sub_queries(original: str, sub_queries: Sequence[str] | None) -> SubQueryPlan:
    """None/empty -> the original alone; one -> that sub-query alone; more -> all of them."""
    subs = tuple(sub_queries or ())
    if not subs:
        return SubQueryPlan((original,), original, "single")
    if len(subs) == 1:
        return SubQueryPlan(subs, original, "single")
    return SubQueryPlan(subs, original, "multi")


H = TypeVar("H")


def merge_sub_query_hits(
    hit_lists: Iterable[Iterable[H]],
    key: Callable[[H], Hashable],
    score: Callable[[H], float],
    top_k: int,
) -> list[H]:
    """Merge per-sub-query hits: dedupe by ``key`` keeping the highest score (the first seen on
    a tie), stable sort by score descending, cut to ``top_k``."""
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0, got {top_k}")
    best: dict[Hashable, H] = {}
    for hits in hit_lists:
        for hit in hits:
            k = key(hit)
            if k not in best or score(hit) > score(best[k]):
                best[k] = hit
    return sorted(best.values(), key=score, reverse=True)[:top_k]
