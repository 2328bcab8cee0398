"""What a question asks for besides its intent: :class:`QuestionFacets`.

The router's plan says which intent and which layers; the facets say what kind of question it
is (callers, callees, tests, how it works, where something is defined), which documentation
topics it is about (install, build, usage, overview), which kinds of definition it names
("the Value enum", «интерфейс Handler») and which detail of a definition it asks about (what it
returns, what happens in a case, when it fails). They are read once, by ``ragstrata.query.facets``,
and handed to retrieval (the flow direction) and to the answer graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["QuestionFacets"]


@dataclass(frozen=True, slots=True)
class QuestionFacets:
    """What one question asks for (see the module docstring)."""

    asks: frozenset[str] = frozenset()  # callers | callees | tests | how | where | configure
    topics: tuple[str, ...] = ()  # documentation topics, strongest first
    kinds: tuple[str, ...] = ()  # definition kinds the question names, C1 kind names
    # returns | condition | error | otherwise | missing | repeat | excess | amount; unmarked: a
    # follow-up with no cue («Куда ставится курсор после этого?») asks a detail of its topic
    details: frozenset[str] = frozenset()
    terms: tuple[str, ...] = ()  # content words, lower-case, English (RU words as their EN terms)
    # the same words, one group per word of the question: a Latin word alone, a Russian word
    # with all its English terms («исключение» -> exception, error, raise): matching any of a
    # group is matching that one word
    concepts: tuple[frozenset[str], ...] = ()
    # the groups of ``concepts`` a Russian verb of the question gives («укорачивает» ->
    # truncate, shorten): the action asked about, not what it acts on
    verbs: tuple[frozenset[str], ...] = ()
    # adjacent Latin words of the question, stopwords kept ("not found", "closing tag"): an
    # identifier written of them (`INDEX_NOT_FOUND`) says more than each word alone
    phrases: tuple[tuple[str, str], ...] = ()
    words: frozenset[str] = frozenset()  # the question's own words, folded (any language)
    # the values it writes, folded: numbers, upper-case words ("12 AM", "HEAD"), quoted text;
    # a line writing one as a literal (`H == 12`, `"AM"`) answers about it
    values: frozenset[str] = frozenset()
    # the characters it names in words ("a newline", «обратный слеш»), each name as the
    # characters it may mean ("bracket": `[]`): a line writing one as a literal answers
    characters: frozenset[str] = frozenset()
    names_module: bool = False  # "модуль X", "the file X": a file or package is meant
    mentions_tests: bool = False  # any word about tests (a doc request may then target one)
    # examples, demos, benchmarks, docs, vendored code: code beside the project's own is asked
    mentions_aside: bool = False
    # the operating systems it names ("on Windows", «на Linux»): ``core.platforms`` names
    platforms: frozenset[str] = frozenset()

    @property
    def callers(self) -> bool:
        """Asks who calls or uses something (and not what it calls)."""
        return "callers" in self.asks and "callees" not in self.asks

    @property
    def direction(self) -> Literal["callers", "callees"] | None:
        """The side of the call graph a flow question asks for (callers win a tie)."""
        if "callers" in self.asks:
            return "callers"
        if "callees" in self.asks:
            return "callees"
        return None

    @property
    def tests(self) -> bool:
        return "tests" in self.asks

    @property
    def how(self) -> bool:
        return "how" in self.asks

    @property
    def configure(self) -> bool:
        """Asks how to change a behaviour ("how do I disable …", «как ограничить …»)."""
        return "configure" in self.asks
