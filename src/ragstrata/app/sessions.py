"""Conversation sessions: the router's ``conversation_state`` kept between questions.

A session is a small JSON file ``<index dir>/sessions/<name>.json`` holding ``active_intent``,
``active_anchors`` (the topic's FILE_PATH / SYMBOL / DOC_REF anchors), ``turn`` and
``last_query``. Writes are atomic (temp file + rename), so an interrupted run never leaves a
half-written session.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragstrata.errors import InvalidStateError
from ragstrata.query.plan_fields import ANSWER_TOPIC
from ragstrata.query.symbol_words import EXAMPLE
from ragstrata.text.visible import visible

__all__ = ["ANSWER_TOPIC_CONFIDENCE", "SessionStore", "next_state"]

# fullmatch, not match + "$": "$" also matches before a trailing newline ("ok\n" would pass).
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_TOPIC_ANCHORS = frozenset({"FILE_PATH", "SYMBOL", "DOC_REF"})
ANSWER_TOPIC_CONFIDENCE = 0.4
"""Confidence of the topic a previous answer led with (the user did not name it)."""


def next_state(
    plan: dict[str, Any],
    previous: dict[str, Any] | None,
    topic: str | None = None,
    undefined: Sequence[str] = (),
) -> dict[str, Any]:
    """The conversation state after answering ``plan``.

    The topic's anchors are the plan's own FILE_PATH / SYMBOL / DOC_REF anchors (those found in
    the question first, then those carried from the state), without spans. A question that
    named no symbol ("how does it decide which route matches?") keeps the definition its answer
    led with (``topic``) as a weak topic (subtype ``answer``, :data:`ANSWER_TOPIC_CONFIDENCE`):
    the next question's retrieval hardly leans on it, and a follow-up about a detail is answered
    inside it only when its lines answer better than what retrieval found. A name the
    question wrote that nothing defines (``undefined``: "the SameSite attribute", a header)
    is no topic, nor is a name given as an example of data: the definition the answer led
    with is.
    """
    anchors = []
    seen: set[tuple[str, str]] = {("SYMBOL", name) for name in undefined}
    # a name given as an example of data ("a string like "1.5 KiB"") is no topic either
    seen |= {
        ("SYMBOL", a["value"])
        for a in plan["query_plan"]["anchors"]
        if a["type"] == "SYMBOL" and a.get("subtype") == EXAMPLE
    }
    own = [
        a
        for a in plan["query_plan"]["anchors"]
        if a["type"] == "SYMBOL"
        and a.get("source", "query") == "query"
        and ("SYMBOL", a["value"]) not in seen
    ]
    if topic and not own:
        seen.add(("SYMBOL", topic))
        anchors.append(
            {
                "type": "SYMBOL",
                "value": topic,
                "subtype": ANSWER_TOPIC,
                "span": None,
                "confidence": ANSWER_TOPIC_CONFIDENCE,
            }
        )
    for anchor in plan["query_plan"]["anchors"]:
        key = (anchor["type"], anchor["value"])
        if anchor["type"] in _TOPIC_ANCHORS and key not in seen:
            seen.add(key)
            anchors.append(
                {
                    "type": anchor["type"],
                    "value": anchor["value"],
                    "subtype": anchor.get("subtype"),
                    "span": None,
                    "confidence": anchor.get("confidence", 0.5),
                }
            )
    turn = int((previous or {}).get("turn", 0)) + 1
    return {
        "active_intent": plan["intent"],
        "active_anchors": anchors[:12],
        "turn": turn,
        "last_query": plan["query_plan"]["raw"],
    }


class SessionStore:
    """Named conversation states in one folder."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def _path(self, name: str) -> Path:
        if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
            raise InvalidStateError(
                f"invalid session name {visible(repr(name))}: use 1-64 letters, digits, "
                "'.', '_' or '-' (no path characters, no newline)"
            )
        return self._folder / f"{name}.json"

    def load(self, name: str) -> dict[str, Any] | None:
        """The stored state, or ``None`` for a new session."""
        path = self._path(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidStateError(f"session {name!r} is unreadable ({path}): {exc}") from None
        if not isinstance(data, dict):
            raise InvalidStateError(f"session {name!r} is not a JSON object ({path})")
        return data

    def save(self, name: str, state: dict[str, Any]) -> None:
        """Write ``state`` atomically."""
        path = self._path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(state, fh, ensure_ascii=False, indent=2)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def reset(self, name: str) -> bool:
        """Forget a session; True when it existed."""
        path = self._path(name)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True
