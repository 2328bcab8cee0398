"""Which definition a how-answer leads with, when retrieval ranked another first.

Unit checks of :mod:`ragstrata.answer.graphs.ranking` on definitions as retrieval hands them
over: a definition whose own name says what the question asks, and whose body carries more of
its words, takes the lead from a function of the same kind that merely ranked higher.
"""

from __future__ import annotations

from ragstrata.answer.graphs.ranking import _named_worker
from ragstrata.core.evidence import Hit
from ragstrata.query.facets import concepts_of


def _fn(symbol: str, path: str, text: str) -> Hit:
    return Hit(
        layer="C1", path=path, start_line=1, end_line=text.count("\n") + 1,
        symbol=symbol, score=1.0, reasons=(), text=text, kind="function",
    )  # fmt: skip


ARGS = _fn(
    "crate::config::get_args_from_str",
    "src/config.rs",
    "fn get_args_from_str(content: &str) -> Vec<String> {\n"
    "    let args = shell_words::split(content);\n"
    "    args.into_iter().map(|a| a.trim().to_string()).collect()\n}",
)
PARSE_RANGE = _fn(
    "crate::line_range::LineRange::parse_range",
    "src/line_range.rs",
    "fn parse_range(raw: &str) -> Result<LineRange> {\n"
    "    let parts: Vec<&str> = raw.split(':').collect();\n"
    "    let lower = parts[0].parse()?;\n"
    "    let upper = parts[1].parse()?;\n"
    "    Ok(LineRange { lower, upper })\n}",
)
HELPER = _fn(
    "crate::output::print_line",
    "src/output.rs",
    "fn print_line(out: &mut Output, text: &str) {\n    out.write(text);\n    out.flush();\n}",
)


def test_a_definition_named_by_the_question_s_words_takes_the_lead() -> None:
    for question in (
        "How does it parse a line range like 10:20?",
        "Как разбирается диапазон строк вроде 10:20?",
    ):
        concepts = concepts_of(question, ("parse", "range", "line"))
        head = [ARGS, HELPER, PARSE_RANGE]
        assert _named_worker(head, concepts)[0] is PARSE_RANGE, question


def test_a_name_alone_or_a_tie_keeps_the_lead() -> None:
    concepts = concepts_of("How does it parse a line range like 10:20?")
    # named by the question, but its body carries no more of the words than the lead's
    thin = _fn("crate::line_range::parse_range", "src/line_range.rs", "fn parse_range() {}")
    assert _named_worker([PARSE_RANGE, thin], concepts)[0] is PARSE_RANGE
    assert _named_worker([ARGS, HELPER, thin], concepts)[0] is ARGS
    # two candidates alike: retrieval's order stands
    twin = _fn("crate::ranges::parse_range", "src/ranges.rs", PARSE_RANGE.text)
    assert _named_worker([ARGS, PARSE_RANGE, twin], concepts)[0] is ARGS
    # nothing to reorder
    assert _named_worker([], concepts) == []
