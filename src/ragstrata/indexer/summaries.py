"""Cached LLM summaries of files (C0) and definitions (C1) (seed 003 ``Summarize`` / ``SummaryHash``).

A summary is generated from a rendered prompt and stored with ``summary_hash(prompt)``; it is
generated again only when the prompt changes (the file or definition changed, or a definition
summary that a file prompt quotes changed: the cascade) or when forced. A change of runner or
model alone keeps the hash, so it regenerates nothing.

- File prompt (C0): path, language, imports, top-level symbols, the stored summaries of the
  file's top-level definitions, and the head of the file as it is on disk.
- Definition prompt (C1): qualified name, kind, location, signature, docstring, head of the body.

:class:`SummaryPlanner` lists what would be (re)generated and estimates calls, tokens and cost
before anything is spent, then runs it: definitions first (file prompts quote them), stored in
small batches so an interrupted run keeps what it paid for.

Token estimate: ``ceil(chars / 4)`` for prompts (:data:`CHARS_PER_TOKEN`; English prose and code
average 3.5-4.5 characters per token in BPE vocabularies, so this is within about 15%), and a
fixed expected reply length per kind (:data:`EXPECTED_OUTPUT_TOKENS`, what the prompts ask for).

The prompts and one generation are in :mod:`ragstrata.indexer.summary_targets`, the planner in
:mod:`ragstrata.indexer.summary_plan`; their public names are importable from here.
"""

from __future__ import annotations

from ragstrata.indexer import summary_plan as _plan
from ragstrata.indexer import summary_targets as _targets
from ragstrata.indexer.summary_plan import *  # noqa: F403  (re-exported: this module's API)
from ragstrata.indexer.summary_targets import *  # noqa: F403

__all__ = [*_targets.__all__, *_plan.__all__]
