"""What ``Ragstrata.summarize`` returns, and the pieces of its orchestration that are data.

:class:`SummarizeResult` holds the plan (always), the run's report (``None`` for a dry run or
when nothing was due) and whether the model has a listed price. :func:`price_function` turns the
packaged price table (plus ``llm.price_file``) into the planner's cost estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstrata.indexer.summary_plan import PriceFunction, SummaryPlan, SummaryRunReport
    from ragstrata.settings import LLMSettings

__all__ = ["NO_LLM_MESSAGE", "PREFLIGHT_CATEGORIES", "SummarizeResult", "price_function"]

NO_LLM_MESSAGE = (
    "no LLM configured for summaries: set RAGSTRATA_LLM_PROVIDER (openai or ollama), "
    "RAGSTRATA_LLM_MODEL, RAGSTRATA_LLM_BASE_URL and RAGSTRATA_LLM_API_KEY "
    "(or the [llm] section of ~/.config/ragstrata/config.toml); --dry-run works without one"
)
PREFLIGHT_CATEGORIES = frozenset({"settings", "index", "schema", "llm", "disk"})
"""A ``high`` pre-flight finding in one of these stops a run (a dry run skips the checks)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SummarizeResult:
    """The plan of a summary run and, unless ``dry_run``, what it did."""

    dry_run: bool
    plan: SummaryPlan
    report: SummaryRunReport | None
    priced: bool  # the configured model has a listed price (the plan's cost is meaningful)

    def to_dict(self) -> dict[str, Any]:
        """``{"dry_run", "plan", "report"}`` (``ragstrata summarize --json``)."""
        return {
            "dry_run": self.dry_run,
            "plan": self.plan.to_dict(),
            "report": None if self.report is None else self.report.to_dict(),
        }


def price_function(llm: LLMSettings) -> tuple[PriceFunction | None, bool]:
    """A price function for the configured model (``None`` without a model) and whether that
    model has a listed price (unknown models cost 0 in the estimate)."""
    if not llm.model:
        return None, False
    from ragstrata.llm.pricing import PriceTable

    table = PriceTable.load(llm.price_file)

    def price(name: str, input_tokens: int, output_tokens: int) -> float:
        found = table.get(name)
        return found.cost(input_tokens, output_tokens) if found else 0.0

    return price, llm.model in table
