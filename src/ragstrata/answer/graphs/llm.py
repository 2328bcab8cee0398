"""The LLM path of a graph: evidence as numbered, delimited data blocks; the reply checked.

The prompt puts instructions in the system part and the evidence in the user part, each block
between ``<<<EVIDENCE [n] path:lines>>>`` and ``<<<END EVIDENCE [n]>>>`` markers. Evidence is
data: marker look-alikes inside it are defanged so a repository file cannot close its block and
speak as the prompt. After the reply every ``[n]`` is checked against the blocks, sentences
without a citation are flagged in ``meta``, and the extractive answer is kept alongside. A
runner that raises (or replies with nothing) leaves the extractive answer in place, saying so
in ``meta``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragstrata.answer.graphs.base import CitationList, cite, numbered
from ragstrata.answer.graphs.messages import messages, prompt_templates
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Hit
from ragstrata.llm.base import Request, Runner, call_meta

__all__ = [
    "MAX_BLOCKS",
    "MAX_BLOCK_LINES",
    "ReplyCheck",
    "build_request",
    "check_reply",
    "defang",
    "llm_answer",
]

MAX_BLOCKS = 12
MAX_BLOCK_LINES = 60

_REF = re.compile(r"\[(\d{1,3})\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def defang(text: str) -> str:
    """Evidence text with the block markers' brackets replaced, so it cannot end its block."""
    return text.replace("<<<", "‹‹‹").replace(">>>", "›››")


def _label(hit: Hit) -> str:
    what = hit.symbol or hit.heading_path or ""
    return f" ({hit.layer} {what})" if what else f" ({hit.layer})"


def build_request(question: str, blocks: Sequence[Hit], language: str) -> Request:
    """The two-part prompt for ``question`` over the numbered evidence ``blocks``."""
    tpl = prompt_templates()
    language_name = messages(language).t("language_name")
    parts = []
    for n, hit in enumerate(blocks, 1):
        body, last = numbered(defang(hit.text), hit.start_line, MAX_BLOCK_LINES)
        span = cite(hit.path, hit.start_line, min(hit.end_line, last))
        head = tpl["block_open"].format(n=n, cite=defang(span), label=defang(_label(hit)))
        parts.append(f"{head}\n{body}\n{tpl['block_close'].format(n=n)}")
    system = tpl["system"].format(
        language=language_name,
        open=tpl["block_open"].split("[", 1)[0].strip(),
        close=tpl["block_close"].split("[", 1)[0].strip(),
    )
    user = tpl["user"].format(
        question=defang(question),
        count=len(blocks),
        blocks="\n\n".join(parts),
        language=language_name,
    )
    return Request(system_prompt=system, user_prompt=user)


class ReplyCheck:
    """What the citation check found in a reply."""

    def __init__(self, cited: list[int], invalid: list[int], uncited: list[str]) -> None:
        self.cited = cited  # valid block numbers, first-cited order
        self.invalid = invalid  # numbers that name no block
        self.uncited = uncited  # sentences stating something without any [n]


def check_reply(text: str, block_count: int) -> ReplyCheck:
    """Check every ``[n]`` against ``1..block_count`` and find uncited sentences."""
    cited: list[int] = []
    invalid: list[int] = []
    for match in _REF.finditer(text):
        n = int(match.group(1))
        target = cited if 1 <= n <= block_count else invalid
        if n not in target:
            target.append(n)
    uncited: list[str] = []
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            continue
        if in_code or not stripped or stripped.startswith("#"):
            continue
        for sentence in _SENTENCE_END.split(stripped):
            if len(sentence.split()) >= 4 and not _REF.search(sentence):
                uncited.append(sentence)
    return ReplyCheck(cited, invalid, uncited)


def llm_answer(
    runner: Runner, question: str, blocks: Sequence[Hit], draft: Answer, language: str
) -> Answer:
    """Ask ``runner`` to answer from ``blocks``; on failure return ``draft`` (extractive)."""
    blocks = list(blocks[:MAX_BLOCKS])
    request = build_request(question, blocks, language)
    try:
        result = runner.run(request)
        reply = result.text.strip()
    except Exception as exc:  # any runner failure degrades to the extractive answer
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        fallback = {"llm_error": error, "fallback": "extractive", "llm": call_meta(runner)}
        return replace(draft, meta={**draft.meta, **fallback})
    if not reply:
        fallback = {"llm_error": "empty reply", "fallback": "extractive"}
        return replace(draft, meta={**draft.meta, **fallback, "llm": call_meta(runner, result)})
    check = check_reply(reply, len(blocks))
    citations = CitationList()
    sources = []
    for n in check.cited:
        hit = blocks[n - 1]
        citations.add_hit(hit)
        sources.append(f"[{n}] `{hit.citation}`")
    text = reply
    if sources:
        text += "\n\n" + messages(language).t("sources") + "\n" + "\n".join(sources)
    return Answer(
        text=text,
        citations=citations.items(),
        graph_id=draft.graph_id,
        grounded=draft.grounded and bool(check.cited),
        status=draft.status,
        lead=_first_paragraph(reply),
        meta={
            **draft.meta,
            "mode": "llm",
            "llm": call_meta(runner, result),
            "blocks": [h.citation for h in blocks],
            "invalid_citations": check.invalid,
            "uncited_sentences": check.uncited,
            "extractive": draft.text,
            "extractive_citations": [c.to_dict() for c in draft.citations],
        },
    )


def _first_paragraph(text: str) -> str:
    """The reply's opening paragraph: its lead sentence(s)."""
    for block in text.strip().split("\n\n"):
        if block.strip() and not block.lstrip().startswith(("#", "```")):
            return block.strip()
    return ""
