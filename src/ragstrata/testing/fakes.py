"""Implementations of the fakes exported by ``ragstrata.testing``."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ragstrata.embed.hashing import HashEmbedder
from ragstrata.llm.base import LLMMetadata, Request, RunResult

__all__ = ["HashEmbedder", "ScriptedRunner"]

Reply = str | BaseException | Callable[[Request], str]


class ScriptedRunner:
    """Replays ``replies`` in order (the last one repeats); records requests in ``requests``.

    A reply may be a string, an exception instance (raised), or a callable of the request.
    """

    def __init__(self, replies: Iterable[Reply] | Reply = "", model: str = "scripted") -> None:
        if isinstance(replies, (str, BaseException)) or callable(replies):
            replies = [replies]
        self._replies: list[Reply] = list(replies)
        if not self._replies:
            raise ValueError("ScriptedRunner needs at least one reply")
        self.model = model
        self.requests: list[Request] = []

    def run(self, request: Request) -> RunResult:
        index = min(len(self.requests), len(self._replies) - 1)
        self.requests.append(request)
        reply = self._replies[index]
        if isinstance(reply, BaseException):
            raise reply
        text = reply(request) if callable(reply) else reply
        tokens_in = len(request.combined().split())
        meta = LLMMetadata(input_tokens=tokens_in, output_tokens=len(text.split()), num_turns=1)
        return RunResult(text=text, meta=meta)
