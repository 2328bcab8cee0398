"""Planning and running summary generation over an index (:class:`SummaryPlanner`).

The planner lists what would be (re)generated and estimates calls, tokens and cost before
anything is spent, then runs it: definitions first (file prompts quote them), stored in small
batches so an interrupted run keeps what it paid for. A summary is regenerated only when its
prompt's hash changed, when a definition summary its file prompt quotes changed (the cascade),
or when forced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ragstrata.core.rows import DefinitionRow, FileRow, Layer, Row
from ragstrata.core.values import SummaryKind
from ragstrata.indexer.summary_targets import (
    CHARS_PER_TOKEN,
    EXPECTED_OUTPUT_TOKENS,
    FILE_HEAD_CHARS,
    SummaryTarget,
    definition_target,
    file_target,
    summarize,
)
from ragstrata.ingest.secrets import redact_text
from ragstrata.llm.base import Runner
from ragstrata.store.protocols import Store

__all__ = [
    "SUMMARIZED_KINDS",
    "PlannedSummary",
    "PriceFunction",
    "Progress",
    "Reason",
    "SummaryPlan",
    "SummaryPlanner",
    "SummaryRunReport",
]

SUMMARIZED_KINDS = frozenset(
    {"class", "interface", "struct", "enum", "trait", "function", "method", "type_alias"}
)
"""Definition kinds that get a summary (modules and constants do not)."""

PriceFunction = Callable[[str, int, int], float]
"""``(model, input_tokens, output_tokens) -> USD``."""

Progress = Callable[[int, int, str], None]
"""Called after each call with ``(done, total, key)``."""


Reason = Literal["new", "changed", "forced", "cascade"]
"""Why a planned summary is (re)generated."""


@dataclass(frozen=True, slots=True)
class PlannedSummary:
    """A call the run would make, and why: no summary yet, prompt changed, forced, or a file
    whose prompt will change because its definitions are summarised first (cascade)."""

    target: SummaryTarget
    existing_hash: str
    reason: Reason
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryPlan:
    """What a run would do and its estimated size; nothing has been spent to make it."""

    model: str
    items: tuple[PlannedSummary, ...]
    up_to_date: int  # targets whose stored summary matches the prompt
    cost_usd: float | None  # None without a price function

    @property
    def calls(self) -> int:
        """LLM calls the run would make."""
        return len(self.items)

    @property
    def input_tokens(self) -> int:
        """Estimated prompt tokens of all calls."""
        return sum(i.input_tokens for i in self.items)

    @property
    def output_tokens(self) -> int:
        """Estimated reply tokens of all calls."""
        return sum(i.output_tokens for i in self.items)

    def count(self, kind: SummaryKind) -> int:
        """Calls of one kind."""
        return sum(1 for i in self.items if i.target.kind is kind)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        reasons: dict[str, int] = {}
        for item in self.items:
            reasons[item.reason] = reasons.get(item.reason, 0) + 1
        return {
            "model": self.model,
            "calls": self.calls,
            "files": self.count(SummaryKind.FILE),
            "definitions": self.count(SummaryKind.DEFINITION),
            "reasons": reasons,
            "up_to_date": self.up_to_date,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "token_estimate": f"chars/{CHARS_PER_TOKEN}",
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryRunReport:
    """What a run did; tokens and cost as the runner reported them."""

    generated: int
    files: int
    definitions: int
    up_to_date: int
    input_tokens: int
    output_tokens: int
    cost_usd: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "generated": self.generated,
            "files": self.files,
            "definitions": self.definitions,
            "up_to_date": self.up_to_date,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }


class SummaryPlanner:
    """Plans and runs summary generation over one repository's index.

    ``kinds``: which summaries (both by default). Definitions are those of
    :data:`SUMMARIZED_KINDS` with at least ``min_lines`` lines; test code is skipped unless
    ``include_tests``. A symbol defined twice is summarised once (first by path and line).
    """

    def __init__(
        self,
        store: Store,
        repo: Path,
        *,
        kinds: Iterable[SummaryKind | str] = (SummaryKind.FILE, SummaryKind.DEFINITION),
        include_tests: bool = False,
        min_lines: int = 3,
        model: str = "",
        price: PriceFunction | None = None,
        batch: int = 16,
    ) -> None:
        if batch <= 0:
            raise ValueError(f"batch must be > 0, got {batch}")
        self.store = store
        self.repo = Path(repo)
        self.kinds = frozenset(SummaryKind(str(k)) for k in kinds)
        self.include_tests = include_tests
        self.min_lines = min_lines
        self.model = model
        self.price = price
        self.batch = batch
        self._rows: dict[str, list[Row]] | None = None

    # ------------------------------------------------------------------ targets

    def _scan(self) -> dict[str, list[Row]]:
        if self._rows is None:
            from ragstrata.store.scan import rows_by_path

            self._rows = rows_by_path(self.store, (Layer.C0, Layer.C1))
        return self._rows

    def _wanted(self, row: Row) -> bool:
        return self.include_tests or not row.is_test

    def definitions(self) -> list[DefinitionRow]:
        """The C1 rows that get a summary (see class docstring), one per symbol."""
        seen: dict[str, DefinitionRow] = {}
        for rows in self._scan().values():
            for row in rows:
                if (
                    isinstance(row, DefinitionRow)
                    and self._wanted(row)
                    and row.kind in SUMMARIZED_KINDS
                    and row.end_line - row.start_line + 1 >= self.min_lines
                ):
                    seen.setdefault(row.symbol, row)
        return list(seen.values())

    def _read_head(self, path: str) -> str:
        try:
            with (self.repo / path).open(encoding="utf-8", errors="replace") as fh:
                head = fh.read(FILE_HEAD_CHARS * 2)
            return redact_text(head, path)[0]  # a prompt never carries a secret
        except OSError:
            return ""

    def file_targets(self, definition_summaries: Mapping[str, str]) -> list[SummaryTarget]:
        """C0 prompts, quoting the given summaries of each file's top-level definitions."""
        out = []
        for path, rows in self._scan().items():
            file_row = next((r for r in rows if isinstance(r, FileRow)), None)
            if file_row is None or not self._wanted(file_row):
                continue
            quoted = {
                r.symbol: definition_summaries[r.symbol]
                for r in rows
                if isinstance(r, DefinitionRow)
                and r.parent is None
                and r.symbol in definition_summaries
            }
            out.append(file_target(file_row, self._read_head(path), quoted))
        return out

    def _top_level(self) -> dict[str, list[str]]:
        """path -> top-level definition symbols that get summaries."""
        summarized = {d.symbol for d in self.definitions()}
        out: dict[str, list[str]] = {}
        for path, rows in self._scan().items():
            out[path] = [
                r.symbol
                for r in rows
                if isinstance(r, DefinitionRow) and r.parent is None and r.symbol in summarized
            ]
        return out

    # ------------------------------------------------------------------ plan

    def plan(self, *, force: bool = False, limit: int | None = None) -> SummaryPlan:
        """What a run would (re)generate, with estimated tokens and cost (nothing is spent)."""
        items: list[PlannedSummary] = []
        up_to_date = 0
        regenerated: set[str] = set()
        if SummaryKind.DEFINITION in self.kinds:
            stored = self.store.get_summaries(SummaryKind.DEFINITION)
            for row in self.definitions():
                target = definition_target(row)
                existing = stored.get(row.symbol, ("", ""))[0]
                reason = _reason(existing, target, force)
                if reason is None:
                    up_to_date += 1
                    continue
                regenerated.add(row.symbol)
                items.append(self._planned(target, existing, reason))
        if SummaryKind.FILE in self.kinds:
            stored_defs = {
                k: text for k, (_, text) in self.store.get_summaries(SummaryKind.DEFINITION).items()
            }
            stored_files = self.store.get_summaries(SummaryKind.FILE)
            top = self._top_level()
            for target in self.file_targets(stored_defs):
                existing = stored_files.get(target.key, ("", ""))[0]
                reason = _reason(existing, target, force)
                cascade = [s for s in top.get(target.key, []) if s in regenerated]
                if reason is None and cascade:
                    reason = "cascade"
                if reason is None:
                    up_to_date += 1
                    continue
                extra = sum(
                    EXPECTED_OUTPUT_TOKENS[SummaryKind.DEFINITION]
                    for s in cascade
                    if s not in stored_defs
                )
                items.append(self._planned(target, existing, reason, extra))
        if limit is not None:
            items = items[: max(limit, 0)]
        cost = None
        if self.price is not None:
            cost = sum(self.price(self.model, i.input_tokens, i.output_tokens) for i in items)
        return SummaryPlan(
            model=self.model, items=tuple(items), up_to_date=up_to_date, cost_usd=cost
        )

    @staticmethod
    def _planned(
        target: SummaryTarget, existing: str, reason: Reason, extra_input: int = 0
    ) -> PlannedSummary:
        return PlannedSummary(
            target=target,
            existing_hash=existing,
            reason=reason,
            input_tokens=target.input_tokens + extra_input,
            output_tokens=EXPECTED_OUTPUT_TOKENS[target.kind],
        )

    # ------------------------------------------------------------------ run

    def run(
        self,
        runner: Runner,
        *,
        force: bool = False,
        limit: int | None = None,
        progress: Progress | None = None,
    ) -> SummaryRunReport:
        """Generate what :meth:`plan` lists: definitions first, then files (whose prompts now
        quote the new definition summaries). Stores every ``batch`` results, so a failure or
        interruption keeps what was paid for; the error is raised after that."""
        total = self.plan(force=force, limit=limit).calls
        budget = total if limit is None else min(limit, total)
        counts = {SummaryKind.FILE: 0, SummaryKind.DEFINITION: 0}
        tokens = [0, 0]
        cost = 0.0
        up_to_date = 0
        done = 0

        def generate(kind: SummaryKind, targets: Iterable[SummaryTarget]) -> None:
            nonlocal cost, up_to_date, done
            stored = self.store.get_summaries(kind)
            pending: list[tuple[str, str, str]] = []
            try:
                for target in targets:
                    if done >= budget:
                        break
                    existing = stored.get(target.key, ("", ""))[0]
                    result = summarize(runner, target, existing_hash=existing, force=force)
                    if result is None:
                        up_to_date += 1
                        continue
                    pending.append((target.key, result.summary_hash, result.summary))
                    counts[kind] += 1
                    tokens[0] += result.input_tokens
                    tokens[1] += result.output_tokens
                    cost += result.cost_usd
                    done += 1
                    if progress is not None:
                        progress(done, budget, target.key)
                    if len(pending) >= self.batch:
                        self.store.put_summaries(kind, pending)
                        pending = []
            finally:
                self.store.put_summaries(kind, pending)

        if SummaryKind.DEFINITION in self.kinds:
            generate(SummaryKind.DEFINITION, (definition_target(r) for r in self.definitions()))
        if SummaryKind.FILE in self.kinds:
            defs = {
                k: text for k, (_, text) in self.store.get_summaries(SummaryKind.DEFINITION).items()
            }
            generate(SummaryKind.FILE, self.file_targets(defs))
        return SummaryRunReport(
            generated=done,
            files=counts[SummaryKind.FILE],
            definitions=counts[SummaryKind.DEFINITION],
            up_to_date=up_to_date,
            input_tokens=tokens[0],
            output_tokens=tokens[1],
            cost_usd=cost,
        )


def _reason(existing: str, target: SummaryTarget, force: bool) -> Reason | None:
    if force:
        return "forced"
    if not existing:
        return "new"
    return None if existing == target.prompt_hash else "changed"
