"""The precomputed morphology (``data/morph/seed.json``) is what pymorphy3 computes live, was
made with the installed dictionary, and covers a Router's construction (so a fresh process
builds its Router without analysing a word)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from ragstrata.query import facets, lexicon
from ragstrata.query.intents import load_router_data
from ragstrata.query.terms import TermExpander
from ragstrata.text import morph


@pytest.fixture(scope="module")
def seed() -> dict[str, object]:
    data: dict[str, object] = json.loads(
        resources.files("ragstrata").joinpath(morph.SEED_FILE).read_text()
    )
    return data


def test_the_seed_was_made_with_the_installed_dictionary(seed: dict[str, object]) -> None:
    assert seed["dictionary"] == morph.dictionary_version(), "run scripts/build_morph_seed.py"


def test_seeded_results_equal_live_analysis(seed: dict[str, object]) -> None:
    morph.use_seed(False)
    try:
        for kind in morph.SEEDED:
            table = seed[kind]
            assert isinstance(table, dict) and table, kind
            live = getattr(morph, kind)
            for word, result in table.items():
                got = live(word)
                expected = tuple(result) if isinstance(got, tuple) else frozenset(result)
                assert got == expected, (kind, word)
    finally:
        morph.use_seed(True)


def test_the_static_word_lists_are_built_without_analysing_a_word() -> None:
    morph.use_seed(True)  # also empties the per-word caches
    morph._parses.cache_clear()
    lexicon.cue_forms.cache_clear()
    TermExpander.from_files([])
    load_router_data()
    for build in facets.LEXICONS:
        build.cache_clear()
        build()
    assert morph._parses.cache_info().misses == 0


def test_words_outside_the_seed_are_analysed_live() -> None:
    morph.use_seed(True)
    assert morph.lemmatize("ретраями") == morph.lemma_candidates("ретраями")[0]
    assert "ретраями" in morph.lexeme_forms("ретраями")
