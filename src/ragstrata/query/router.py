"""The Intent Router (seed 001, spec v1.1): a question -> a ``RouterPlan``.

``Router`` loads its data once (cue lists, plans, path rules, the RU->EN glossary) and is
reusable and thread-safe for ``plan()``. ``route()`` is the JSON-ready function behind
``ragstrata.route``.

Conversation (seed §3):

- no ``active_intent`` -> ``NEW``, the intent the rules give;
- an explicit topic-change signal ("другой вопрос", "new question", "теперь про ...") -> the
  rules decide; ``SWITCH`` when that changes the intent, else ``CONTINUE``; the old topic's
  anchors are not carried;
- a hard mismatch (an explicit request of another intent that wins the scoring, e.g.
  "сгенерируй документацию" in a DOCS_QA topic, or a named doc file in a CODE_QA topic: a
  ``hard`` cue or a ``[anchor_hard]`` anchor) -> ``SWITCH``; with no topic-change signal the
  topic goes on, so the active anchors are carried as below;
- otherwise ``CONTINUE`` with the active intent (``decided_by="conversation_state"``), and the
  topic's ``active_anchors`` are carried into ``query_plan.anchors`` with ``span: null``,
  lower confidence and ``source: "conversation_state"``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ragstrata.errors import ConfigError, InvalidQueryError
from ragstrata.query.anchors import AnchorDraft, PathRules, extract_anchors
from ragstrata.query.decompose import QueryDecomposer, RuleQueryDecomposer
from ragstrata.query.facets import how_clause, read_facets
from ragstrata.query.intents import (
    Classification,
    IntentClassifier,
    QTok,
    asks_behaviour,
    load_router_data,
)
from ragstrata.query.models import (
    GRAPH_IDS,
    AnchorType,
    ConversationMode,
    ConversationState,
    DecidedBy,
    Intent,
    RepoContext,
    RouterPlan,
    TestPolicy,
    parse_repo_context,
    parse_state,
)
from ragstrata.query.normalize import normalize
from ragstrata.query.paths import path_part
from ragstrata.query.plan import PlanTable, path_scope_entry
from ragstrata.query.plan_fields import (
    carried_anchors,
    cue_tokens,
    expansions,
    key_term_anchors,
    keyword_hints,
    scope_paths,
)
from ragstrata.query.term_finder import TermFinder, term_finder
from ragstrata.query.terms import TermHit
from ragstrata.settings import RouterSettings

__all__ = ["Router", "TermFinder", "default_router", "route"]

_NO_STATE = ConversationState()
_OWN_TOPIC = frozenset({"SYMBOL", "FILE_PATH", "DOC_REF"})  # a follow-up naming its own subject
_NO_CONTEXT = RepoContext()
_LATIN_RE = re.compile(r"[A-Za-z]")
_STRONG_ANCHOR = 0.7


def _decomposer(settings: RouterSettings) -> QueryDecomposer:
    if settings.decomposer != "rule":
        raise ConfigError(
            f"router.decomposer {settings.decomposer!r} needs an LLM runner: build the "
            "decomposer and pass Router(decomposer=...), or use 'rule'"
        )
    return RuleQueryDecomposer()


@dataclass(frozen=True, slots=True)
class _Decision:
    intent: Intent
    mode: ConversationMode
    decided_by: DecidedBy
    confidence: float
    carry: bool


class Router:
    """Routes questions to plans; build once (data loads here) and reuse."""

    def __init__(
        self,
        settings: RouterSettings | None = None,
        *,
        classifier: IntentClassifier | None = None,
        decomposer: QueryDecomposer | None = None,
        terms: TermFinder | None = None,
    ) -> None:
        self.settings = settings or RouterSettings()
        if self.settings.classifier != "none" and classifier is None:
            raise ConfigError(
                f"router.classifier {self.settings.classifier!r} is configured but no "
                "classifier was given: pass Router(classifier=...), or set it to 'none'"
            )
        self._classifier = classifier
        self.data = load_router_data(self.settings.cue_files)
        self.rules = PathRules.from_data(self.data.paths)
        self.plans = PlanTable(self.data.plans)
        exts = "|".join(sorted(self.rules.code_ext, key=len, reverse=True))
        self._ext_mention_re = re.compile(rf"(?:(?<=\s)|^)\*?\.({exts})(?![\w.])", re.IGNORECASE)
        self._terms = terms or term_finder(self.settings)
        self._decomposer = decomposer if decomposer is not None else _decomposer(self.settings)

    # ------------------------------------------------------------------ public

    def route(
        self,
        user_query: str,
        conversation_state: Mapping[str, Any] | ConversationState | None = None,
        repo_context: Mapping[str, Any] | RepoContext | None = None,
    ) -> dict[str, Any]:
        """The plan as a JSON-ready dict."""
        return self.plan(user_query, conversation_state, repo_context).model_dump(mode="json")

    def plan(
        self,
        user_query: str,
        conversation_state: Mapping[str, Any] | ConversationState | None = None,
        repo_context: Mapping[str, Any] | RepoContext | None = None,
    ) -> RouterPlan:
        """Route one question (see module docstring). Raises ``InvalidQueryError`` for an
        empty or whitespace-only question, ``InvalidStateError`` for a malformed state."""
        if not isinstance(user_query, str):
            raise InvalidQueryError(f"user_query must be a string, got {type(user_query).__name__}")
        if not user_query.strip():
            raise InvalidQueryError("the question is empty or whitespace-only")
        state = _NO_STATE if conversation_state is None else parse_state(conversation_state)
        repo = _NO_CONTEXT if repo_context is None else parse_repo_context(repo_context)
        raw = user_query
        notes: list[str] = []
        ext, toks = extract_anchors(raw, self.data, self.rules, repo)
        qtoks = cue_tokens(toks, ext)
        hits = [h for h in self._terms.find(raw) if not ext.overlaps(h.start, h.end)]
        anchors = ext.anchors + key_term_anchors(hits)
        anchors.sort(key=lambda a: a.span.start if a.span else 0)
        weights, hard = self._anchor_weights(ext.anchors)
        clause = how_clause(raw)
        if (
            clause
            and not asks_behaviour(qtoks, self.data.question_words)
            and asks_behaviour(clause, self.data.question_words)
        ):
            # "When I build a query, how is it evaluated?": the how-clause after a clause that
            # sets the scene asks how the code behaves, as a question opening with it does
            intent = self.data.question_intent
            weights[intent] = weights.get(intent, 0.0) + self.data.question_weight
        cls = self.data.classify(qtoks, weights, hard)
        decision = self._decide(raw, cls, qtoks, state, clause)
        if cls.weak and decision.decided_by == "rules":
            why = "fallback" if decision.intent is cls.intent else "it asks how code works:"
            notes.append(f"no intent cue matched: {why} intent {decision.intent.value}")
        if decision.carry:
            anchors += carried_anchors(state, anchors)
        plan_anchors = anchors
        paths = scope_paths(plan_anchors)
        test_policy = self._test_policy(raw, qtoks, plan_anchors, hits)
        languages = self._languages(raw, qtoks, plan_anchors)
        ensure = self.data.layers_to_ensure(qtoks)
        spec, evidence = self.plans.build(
            decision.intent,
            paths=paths,
            test_policy=test_policy,
            languages=languages,
            ensure=ensure,
            repo=repo,
            notes=notes,
        )
        normalized = normalize(raw)
        # One validation of the whole plan (cheaper than a model per anchor).
        return RouterPlan.model_validate(
            {
                "intent": decision.intent,
                "graph_id": GRAPH_IDS[decision.intent],
                "conversation_mode": decision.mode,
                "query_plan": {
                    "raw": raw,
                    "normalized": normalized,
                    "expansions": expansions(hits, plan_anchors),
                    "keyword_hints": keyword_hints(plan_anchors),
                    "anchors": [a.as_dict() for a in plan_anchors],
                    "sub_queries": self._sub_queries(normalized)
                    + _followed(state, decision.carry, ext.anchors),
                },
                "retrieval_spec": spec,
                "evidence_policy": evidence,
                "decided_by": decision.decided_by,
                "confidence": decision.confidence,
                "language": "ru"
                if ext.ru_dominant
                else ("en" if _LATIN_RE.search(raw) else "unknown"),
                "notes": notes,
            }
        )

    # ------------------------------------------------------------------ steps

    def _anchor_weights(
        self, anchors: Sequence[AnchorDraft]
    ) -> tuple[dict[Intent, float], set[Intent]]:
        keys: set[str] = set()
        for a in anchors:
            if a.confidence < _STRONG_ANCHOR:
                continue
            if a.type is AnchorType.SYMBOL:
                keys.add("SYMBOL")
            elif a.type is AnchorType.DOC_REF:
                keys.add("DOC_REF")
            elif a.type is AnchorType.FILE_PATH:
                path = path_part(a.value)
                if self.rules.is_doc(path):
                    keys.add("FILE_PATH_doc")
                elif a.subtype == "dir":
                    keys.add("FILE_PATH_dir")
                else:
                    keys.add("FILE_PATH_code")
        out: dict[Intent, float] = {}
        hard: set[Intent] = set()
        for key in sorted(keys):
            for intent, w in self.data.anchor_weights.get(key, {}).items():
                out[intent] = out.get(intent, 0.0) + w
                if key in self.data.anchor_hard:
                    hard.add(intent)
        return out, hard

    def _decide(
        self,
        raw: str,
        cls: Classification,
        qtoks: Sequence[QTok],
        state: ConversationState,
        clause: Sequence[QTok],
    ) -> _Decision:
        intent, conf = cls.intent, cls.confidence
        by: DecidedBy = "rules"
        facets = read_facets(raw)
        if cls.weak and (facets.how or facets.asks == {"howto"} or bool(facets.details)):
            # no intent cue, but it asks how something works ("When a peer asks for a value,
            # how is the request handled?") or how to do something with the code, not how to
            # configure it («Как взять из корзины только те токены, что есть сейчас?»), or a
            # detail of what it does («Если значение пришло с другого узла, сохраняется ли оно
            # в кеше?»): the code answers that, not the fallback
            intent = Intent.CODE_QA
        elif (
            intent is Intent.PROJECT_MISC
            and intent not in cls.hard
            and (facets.how or bool(clause))  # "When I ask for …, how is it built?"
            and not self.data.project_life.find(qtoks)
        ):
            # "how does it work out which compiler version …", «как semver проверяет, подходит
            # ли версия …»: a version or a build in a question asking how the code does
            # something is what the code works on ("how does the release process work?" asks
            # about the project)
            intent = Intent.CODE_QA
        if self._classifier is not None and conf < self.data.classifier_threshold:
            verdict = self._classifier.classify(normalize(raw), dict(cls.scores))
            if verdict is not None:
                intent, conf, by = Intent(verdict[0]), float(verdict[1]), "classifier"
        conf = round(min(max(conf, 0.0), 1.0), 3)
        active = state.active_intent
        if active is None:
            return _Decision(intent, ConversationMode.NEW, by, conf, False)
        switch = bool(self.data.switch.find(qtoks))
        if switch:
            mode = ConversationMode.SWITCH if intent != active else ConversationMode.CONTINUE
            return _Decision(intent, mode, by, conf, False)
        hard_mismatch = intent != active and not cls.weak and intent in cls.hard
        if hard_mismatch:  # same topic, new task ("а что об этом в документации?"): keep anchors
            return _Decision(intent, ConversationMode.SWITCH, by, conf, True)
        kept = max(conf, 0.8) if intent == active else 0.7
        return _Decision(active, ConversationMode.CONTINUE, "conversation_state", kept, True)

    def _test_policy(
        self,
        raw: str,
        qtoks: Sequence[QTok],
        anchors: Sequence[AnchorDraft],
        hits: Sequence[TermHit],
    ) -> TestPolicy:
        if self.data.tests_only.find(qtoks) or self.data.tests_only_exact.find(qtoks):
            # "How does pytest decide which files are test files?" asks how the project's code
            # treats tests, not for its tests: they stay in, not alone
            return TestPolicy.INCLUDE if read_facets(raw).how else TestPolicy.ONLY
        if self.data.tests_include.find(qtoks) or any(h.category == "test" for h in hits):
            return TestPolicy.INCLUDE
        for a in anchors:
            if a.type is AnchorType.FILE_PATH and self.rules.is_test(
                path_scope_entry(path_part(a.value))
            ):
                return TestPolicy.INCLUDE
        return TestPolicy.EXCLUDE

    def _languages(
        self, raw: str, qtoks: Sequence[QTok], anchors: Sequence[AnchorDraft]
    ) -> list[str]:
        found: list[str] = []
        for a in anchors:
            if a.type is AnchorType.FILE_PATH and a.source == "query":
                lang = self.rules.language(path_part(a.value))
                if lang and lang not in found:
                    found.append(lang)
        for lang in self.data.languages_in(raw, qtoks):
            if lang not in found:
                found.append(lang)
        if "." in raw:  # "в .py файлах", "all *.go files"
            for m in self._ext_mention_re.finditer(raw):
                lang = self.rules.code_ext[m.group(1).lower()]
                if lang not in found:
                    found.append(lang)
        return found

    def _sub_queries(self, normalized: str) -> list[str]:
        try:
            parts = self._decomposer.decompose(normalized)
        except Exception:  # a model-backed decomposer degrades to "single question"
            return []
        return [p for p in (parts or []) if isinstance(p, str) and p.strip()]


def _followed(state: ConversationState, carry: bool, own: Sequence[AnchorDraft]) -> list[str]:
    """A follow-up that names nothing of its own ("and what if the key is already there?")
    is asked about what the previous question described: that question is retrieved with it
    (as a sub-query, at the sub-query weight), so the definitions both describe are found
    even when the previous answer led with the wrong one."""
    if not carry or not state.last_query or any(str(a.type) in _OWN_TOPIC for a in own):
        return []
    return [normalize(state.last_query)]


_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _default() -> Router:
    return Router()


def default_router() -> Router:
    """The process-wide router with default settings (built on first use)."""
    with _LOCK:
        return _default()


def route(
    user_query: str,
    conversation_state: Mapping[str, Any] | None = None,
    repo_context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Route ``user_query`` with the default router; the plan as a JSON-ready dict."""
    return default_router().route(user_query, conversation_state, repo_context)
