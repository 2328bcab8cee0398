"""Fakes for every seam that cannot run for real in a test (shipped in the package).

- ``ScriptedRunner``: an LLM runner that replays scripted replies (or raises scripted errors)
  and records every request it received.
- ``HashEmbedder``: a deterministic embedder (feature hashing of word and identifier tokens,
  L2-normalised) — similar texts get similar vectors, so retrieval tests mean something.
"""

from ragstrata.testing.fakes import HashEmbedder, ScriptedRunner

__all__ = ["HashEmbedder", "ScriptedRunner"]
