"""Write ``src/ragstrata/data/morph/seed.json``: the pymorphy3 results a fresh process needs
for its static word lists (the Router's glossary and cue words, the answer graphs' question
lexicons), so it does not analyse them again.

Run after changing the glossary, the router data or the pymorphy3 dictionary:

    python scripts/build_morph_seed.py

The words are the ones building these lists asks for (recorded, not listed by hand); the
results are computed live with the installed dictionary, whose version the file records.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragstrata.text import morph

OUT = Path(__file__).resolve().parents[1] / "src" / "ragstrata" / morph.SEED_FILE


def seed_data() -> dict[str, Any]:
    """The seed for the installed dictionary: every word a Router's construction analyses."""
    morph.use_seed(False)
    asked: dict[str, set[str]] = {kind: set() for kind in morph.SEEDED}
    live: dict[str, Callable[[str], Any]] = {kind: getattr(morph, kind) for kind in morph.SEEDED}

    def recorder(kind: str) -> Callable[[str], Any]:
        def record(word: str) -> Any:
            asked[kind].add(morph.fold(word))
            return live[kind](word)

        return record

    for kind in morph.SEEDED:
        setattr(morph, kind, recorder(kind))
    try:
        from ragstrata.query import facets
        from ragstrata.query.router import Router
        from ragstrata.query.terms import default_expander

        Router()
        default_expander()
        for lexicon in facets.LEXICONS:
            lexicon()
    finally:
        for kind in morph.SEEDED:
            setattr(morph, kind, live[kind])
    data: dict[str, Any] = {"dictionary": morph.dictionary_version()}
    for kind in morph.SEEDED:
        words = sorted(w for w in asked[kind] if morph.has_cyrillic(w))
        # lemma_candidates keep their order (most probable first); the others are sets
        data[kind] = {
            w: list(r) if isinstance(r := live[kind](w), tuple) else sorted(r) for w in words
        }
    morph.use_seed(True)
    return data


def main() -> None:
    if "ragstrata.query.router" in sys.modules or "ragstrata.answer.graphs" in sys.modules:
        raise SystemExit("run in a fresh interpreter: the lists must be built while recording")
    data = seed_data()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
    sizes = ", ".join(f"{k} {len(data[k])}" for k in morph.SEEDED)
    print(f"wrote {OUT} ({sizes}; dictionary {data['dictionary']})")


if __name__ == "__main__":
    main()
