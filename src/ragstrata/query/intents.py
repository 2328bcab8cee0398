"""Deterministic, data-driven intent classification and the router's other word signals.

Cue lists live in ``ragstrata/data/router/intents.toml`` and ``signals.toml`` (users append
their own through ``settings.router.cue_files``); how cue words and phrases match a question
is described in :mod:`ragstrata.query.lexicon`.

Scoring: every matched cue adds its block's weight to its intent once; anchors add the weights
of ``[anchor_weights]``. The highest score wins; ties go to the earlier intent of
``tie_order`` (GENERATE_DOCS_FROM_CODE, CODE_QA, DOCS_QA, PROJECT_MISC); a top score below
``min_score`` means "no signal" and gives ``fallback_intent`` (PROJECT_MISC: it searches both
domains and may answer without evidence). Confidence is ``top / (top + second + 1)``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ragstrata.errors import ConfigError
from ragstrata.query.lexicon import (
    Lexicon,
    QTok,
    WordSet,
    cue_forms,
    first_verb,
    fold,
    query_tokens,
)
from ragstrata.query.models import Intent
from ragstrata.text.regular_file import read_regular_text

__all__ = [
    "Classification",
    "CueBlock",
    "IntentClassifier",
    "Lexicon",
    "QTok",
    "RouterData",
    "WordSet",
    "fold",
    "load_router_data",
    "query_tokens",
]


# ---------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class CueBlock:
    """One ``[[cue]]`` block: phrases that add ``weight`` to ``intent``."""

    intent: Intent
    weight: float
    hard: bool
    phrases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Classification:
    """The outcome of scoring a question."""

    intent: Intent
    confidence: float
    scores: Mapping[Intent, float]
    hard: frozenset[Intent]
    weak: bool


@runtime_checkable
class IntentClassifier(Protocol):
    """Decides low-confidence cases (an LLM or an embedding classifier); off by default."""

    def classify(self, query: str, scores: Mapping[Intent, float]) -> tuple[Intent, float] | None:
        """The intent and a confidence in [0, 1], or ``None`` to keep the rules' decision."""
        ...


@dataclass(frozen=True, slots=True)
class LanguageRule:
    """How one programming language is recognised in a question."""

    lang: str
    names: frozenset[str]
    context_names: frozenset[str]
    symbol_names: tuple[str, ...]  # names with non-word characters (c++, c#, node.js)


@dataclass(slots=True)
class RouterData:
    """Everything the router loads from its data files, compiled for matching."""

    blocks: list[CueBlock]
    cues: Lexicon
    tie_order: tuple[Intent, ...]
    min_score: float
    fallback_intent: Intent
    fallback_confidence: float
    question_words: WordSet  # a question opening with one of these may ask about behaviour
    question_intent: Intent  # ... then this intent gains question_weight
    question_weight: float
    project_life: Lexicon  # a how-question naming one of these asks about the project itself
    smoothing: float
    classifier_threshold: float
    anchor_weights: dict[str, dict[Intent, float]]
    anchor_hard: frozenset[str]
    switch: Lexicon
    tests_include: Lexicon
    tests_only: Lexicon
    tests_only_exact: Lexicon
    lang_before: WordSet
    lang_after: WordSet
    languages: tuple[LanguageRule, ...]
    lang_symbol_re: re.Pattern[str] | None
    code_units: WordSet
    callers_before: frozenset[str]
    unit_compounds: frozenset[str]
    example_cues: frozenset[str]
    section_markers: WordSet
    dir_markers: WordSet
    not_symbols: frozenset[str]
    ensure_layers: tuple[tuple[str, int], ...]
    ensure_words: Lexicon
    paths: dict[str, Any] = field(default_factory=dict)
    plans: dict[str, Any] = field(default_factory=dict)
    _lang_names: tuple[dict[str, str], dict[str, str]] | None = None

    def classify(
        self,
        toks: Sequence[QTok],
        extra: Mapping[Intent, float],
        extra_hard: Iterable[Intent] = (),
    ) -> Classification:
        """Score every intent from cue matches plus ``extra`` (anchor) weights; ``extra_hard``
        marks intents that anchors request explicitly."""
        scores = dict.fromkeys(Intent, 0.0)
        hard: set[Intent] = set(extra_hard)
        for phrase, _, _ in self.cues.find(toks):
            block = self.blocks[phrase.label]
            scores[block.intent] += block.weight
            if block.hard:
                hard.add(block.intent)
        for intent, w in extra.items():
            scores[intent] += w
        if asks_behaviour(toks, self.question_words):
            scores[self.question_intent] += self.question_weight
        ranked = sorted(Intent, key=lambda i: (-scores[i], self.tie_order.index(i)))
        top, second = scores[ranked[0]], scores[ranked[1]]
        if top < self.min_score:
            return Classification(
                self.fallback_intent, self.fallback_confidence, scores, frozenset(hard), True
            )
        conf = round(top / (top + second + self.smoothing), 3)
        return Classification(ranked[0], conf, scores, frozenset(hard), False)

    def layers_to_ensure(self, toks: Sequence[QTok]) -> list[tuple[str, int]]:
        """Layers (with top_k) that words of the question ask for (``[[ensure_layer]]``)."""
        labels = sorted({phrase.label for phrase, _, _ in self.ensure_words.find(toks)})
        return [self.ensure_layers[n] for n in labels]

    def languages_in(self, raw: str, toks: Sequence[QTok]) -> list[str]:
        """Programming languages the question names ("на Go", "in the Python code")."""
        found: list[str] = []
        names, ctx_names = self._lang_index()
        for i, tok in enumerate(toks):
            parts = [tok.text, *tok.text.split("-")] if "-" in tok.text else [tok.text]
            for p in parts:
                lang = names.get(p)
                if lang is not None and lang not in found:
                    found.append(lang)
            lang = ctx_names.get(tok.text)
            if (
                lang is not None
                and lang not in found
                and raw[tok.end : tok.end + 1] not in ("+", "#")  # "C++", "C#" are not C
                and self._lang_context(toks, i)
            ):
                found.append(lang)
        if self.lang_symbol_re is not None:
            for m in self.lang_symbol_re.finditer(raw):
                name = m.group().lower()
                for rule in self.languages:
                    if name in rule.symbol_names and rule.lang not in found:
                        found.append(rule.lang)
        return found

    def _lang_index(self) -> tuple[dict[str, str], dict[str, str]]:
        if self._lang_names is None:
            names: dict[str, str] = {}
            ctx: dict[str, str] = {}
            for rule in self.languages:
                for n in rule.names:
                    names.setdefault(n, rule.lang)
                for n in rule.context_names:
                    ctx.setdefault(n, rule.lang)
            self._lang_names = (names, ctx)
        return self._lang_names

    def _lang_context(self, toks: Sequence[QTok], i: int) -> bool:
        before = i > 0 and toks[i - 1].text in self.lang_before
        after = i + 1 < len(toks) and toks[i + 1].text in self.lang_after
        return before or after


def _read_toml(path: Path | None, name: str | None = None) -> dict[str, Any]:
    try:
        if path is None:
            assert name is not None
            ref = resources.files("ragstrata").joinpath("data", "router", name)
            return tomllib.loads(ref.read_text(encoding="utf-8"))
        text = read_regular_text(path, "cue file")
        return tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read router data file {path or name}: {exc}") from None


def _intent(value: Any, where: str) -> Intent:
    try:
        return Intent(str(value))
    except ValueError:
        valid = ", ".join(i.value for i in Intent)
        raise ConfigError(f"{where}: unknown intent {value!r}; valid: {valid}") from None


def _strs(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return value


def _blocks(doc: Mapping[str, Any], where: str) -> list[CueBlock]:
    out: list[CueBlock] = []
    for n, raw_block in enumerate(doc.get("cue", [])):
        at = f"{where} [[cue]] #{n + 1}"
        if not isinstance(raw_block, dict):
            raise ConfigError(f"{at}: expected a table")
        intent = _intent(raw_block.get("intent"), at)
        weight = raw_block.get("weight", 1.0)
        if not isinstance(weight, int | float) or weight <= 0:
            raise ConfigError(f"{at}: weight must be a positive number, got {weight!r}")
        phrases = _strs(raw_block.get("ru"), at) + _strs(raw_block.get("en"), at)
        lead, follow = _strs(raw_block.get("lead"), at), _strs(raw_block.get("follow"), at)
        phrases += [f"{a} {b}" for a in lead for b in follow]
        unique = tuple(dict.fromkeys(fold(" ".join(p.split())) for p in phrases))
        out.append(CueBlock(intent, float(weight), bool(raw_block.get("hard")), unique))
    return out


def _languages(doc: Mapping[str, Any]) -> tuple[tuple[LanguageRule, ...], re.Pattern[str] | None]:
    rules: list[LanguageRule] = []
    specials: list[str] = []
    for lang, spec in doc.items():
        if not isinstance(spec, dict):
            continue
        names = [fold(n) for n in _strs(spec.get("names"), f"languages.{lang}")]
        plain = [n for n in names if re.fullmatch(r"[\w]+", n)]
        symbol = tuple(n for n in names if n not in plain)
        specials.extend(symbol)
        forms: set[str] = set()
        for n in plain:
            forms |= cue_forms(n)
        ctx = frozenset(fold(n) for n in _strs(spec.get("context_names"), f"languages.{lang}"))
        rules.append(LanguageRule(lang, frozenset(forms), ctx, symbol))
    pattern = None
    if specials:
        alts = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
        pattern = re.compile(rf"(?<![\w.+#])(?:{alts})(?![\w+#])", re.IGNORECASE)
    return tuple(rules), pattern


def load_router_data(cue_files: Sequence[Path] = ()) -> RouterData:
    """Load and compile the packaged router data plus the users' extra cue files."""
    intents_doc = _read_toml(None, "intents.toml")
    signals = _read_toml(None, "signals.toml")
    blocks = _blocks(intents_doc, "intents.toml")
    switch = _strs(signals["switch"].get("ru"), "switch") + _strs(signals["switch"].get("en"), "")
    tests = signals["tests"]
    t_inc = _strs(tests.get("include_ru"), "tests") + _strs(tests.get("include_en"), "tests")
    t_only_ru = _strs(tests.get("only_ru"), "tests")
    t_only_en = _strs(tests.get("only_en"), "tests")
    for path in cue_files:
        doc = _read_toml(Path(path))
        blocks += _blocks(doc, str(path))
        extra_switch = doc.get("switch", {})
        switch += _strs(extra_switch.get("ru"), f"{path} switch")
        switch += _strs(extra_switch.get("en"), f"{path} switch")
        extra_tests = doc.get("tests", {})
        for key in ("include_ru", "include_en"):
            t_inc += _strs(extra_tests.get(key), f"{path} tests.{key}")
        t_only_ru += _strs(extra_tests.get("only_ru"), f"{path} tests.only_ru")
        t_only_en += _strs(extra_tests.get("only_en"), f"{path} tests.only_en")
    settings = intents_doc["settings"]
    max_gap = int(settings.get("max_gap", 3))
    entries = [(p, n) for n, b in enumerate(blocks) for p in b.phrases]
    weights: dict[str, dict[Intent, float]] = {}
    for key, table in intents_doc.get("anchor_weights", {}).items():
        weights[key] = {_intent(k, f"anchor_weights.{key}"): float(v) for k, v in table.items()}
    langs = signals["languages"]
    rules, sym_re = _languages({k: v for k, v in langs.items() if isinstance(v, dict)})
    anchors = signals["anchors"]
    ensure_specs = signals.get("ensure_layer", [])
    ensure = tuple((str(e["layer"]), int(e["top_k"])) for e in ensure_specs)
    ensure_lex = Lexicon(
        ((w, n) for n, e in enumerate(ensure_specs) for w in _strs(e.get("words"), "ensure_layer")),
        0,
    )
    return RouterData(
        blocks=blocks,
        cues=Lexicon(entries, max_gap),
        tie_order=tuple(_intent(i, "tie_order") for i in settings["tie_order"]),
        min_score=float(settings["min_score"]),
        fallback_intent=_intent(settings["fallback_intent"], "fallback_intent"),
        fallback_confidence=float(settings["fallback_confidence"]),
        question_words=WordSet(_strs(settings.get("question_words"), "settings.question_words")),
        question_intent=_intent(settings.get("question_intent", "CODE_QA"), "question_intent"),
        question_weight=float(settings.get("question_weight", 0.0)),
        project_life=Lexicon(
            ((w, 0) for w in _strs(settings.get("project_life"), "project_life")), 1
        ),
        smoothing=float(settings["confidence_smoothing"]),
        classifier_threshold=float(settings["classifier_threshold"]),
        anchor_weights=weights,
        anchor_hard=frozenset(_strs(intents_doc.get("anchor_hard", {}).get("keys"), "anchor_hard")),
        switch=Lexicon(((p, 0) for p in switch), 1),
        tests_include=Lexicon(((p, 0) for p in t_inc), 1),
        # Russian puts a possessive or an adjective inside the phrase ("в наших тестах"); in
        # English a word inside makes another phrase ("test failures for me" asks no tests)
        tests_only=Lexicon(((p, 0) for p in t_only_ru), 1),
        tests_only_exact=Lexicon(((p, 0) for p in t_only_en), 0),
        lang_before=WordSet(_strs(langs.get("before"), "languages.before")),
        lang_after=WordSet(_strs(langs.get("after"), "languages.after")),
        languages=rules,
        lang_symbol_re=sym_re,
        code_units=WordSet(_strs(anchors.get("code_units"), "anchors.code_units")),
        callers_before=frozenset(
            fold(w) for w in _strs(anchors.get("callers_before"), "anchors.callers_before")
        ),
        unit_compounds=frozenset(
            fold(w) for w in _strs(anchors.get("unit_compounds"), "anchors.unit_compounds")
        ),
        example_cues=frozenset(
            fold(w) for w in _strs(anchors.get("example_cues"), "anchors.example_cues")
        ),
        section_markers=WordSet(_strs(anchors.get("section_markers"), "anchors")),
        dir_markers=WordSet(_strs(anchors.get("dir_markers"), "anchors.dir_markers")),
        not_symbols=frozenset(fold(w) for w in _strs(anchors.get("not_symbols"), "anchors")),
        ensure_layers=ensure,
        ensure_words=ensure_lex,
        paths=_read_toml(None, "paths.toml"),
        plans=_read_toml(None, "plans.toml"),
    )


_LEADING_PREPOSITIONS = frozenset({"in", "at", "on", "for", "в", "на", "по", "при", "с", "для"})
_DOER = frozenset({"i", "we", "you", "one", "to"})
# "How can I…" asks how to do something, "How can a job be skipped…" how the code behaves: a
# modal marks the doer's question only before a person
_MODAL = frozenset({"can", "could", "should", "would"})
_PERSONS = frozenset({"he", "she", "they", "it", "this", "that", "someone", "anyone"})
_PAST = frozenset({"was", "were", "did"})  # "When was it released?" asks about history


def asks_behaviour(toks: Sequence[QTok], words: WordSet) -> bool:
    """True when the question opens with a question word and asks how the code behaves
    ("Как gin выбирает…", "How does it decide…", "Which strings…"), not how the user does
    something ("Как установить…" with an infinitive, "How do I…", "How to…")."""
    if len(toks) > 1 and toks[0].text in _LEADING_PREPOSITIONS:
        toks = toks[1:]  # "In which order does it…", «В каком порядке…», «По какому правилу…»
    if not toks or toks[0].text not in words:
        return False
    head = toks[1:5]
    if any(t.text in _DOER for t in head[:2]) or (head and head[0].text in _PAST):
        return False
    if head and head[0].text in _MODAL and (len(head) < 2 or head[1].text in _DOER | _PERSONS):
        return False
    # «Как log не даёт установить логгер дважды?»: a finite verb before any infinitive asks
    # how the code behaves; «Как установить …» asks how to do something
    return first_verb(head) != "INFN"
