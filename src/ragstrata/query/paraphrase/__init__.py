"""Query paraphrasers (seed 004): enrich a ``Query`` in a configured chain.

Built-ins by configuration name: ``keywords`` (RU/EN keyword extractor, identifiers whole),
``identifiers`` (camelCase/snake_case/dotted/path parts), ``ru_en_terms`` (English expansions of
Russian programming terms), ``decompose`` (sub-questions into text bundles). User components
are named ``module:Class``. ``build_chain(names)`` validates and builds a chain.
"""

from ragstrata.query.paraphrase.base import ParaphraserChain, Query, QueryParaphraser
from ragstrata.query.paraphrase.keywords import (
    IdentifierSplitter,
    KeywordExtractor,
    keyword_candidates,
)
from ragstrata.query.paraphrase.registry import (
    BUILTIN_PARAPHRASERS,
    build_chain,
    load_paraphraser,
)
from ragstrata.query.paraphrase.ru_en import RuEnTermExpander
from ragstrata.query.paraphrase.subqueries import DecomposerParaphraser

__all__ = [
    "BUILTIN_PARAPHRASERS",
    "DecomposerParaphraser",
    "IdentifierSplitter",
    "KeywordExtractor",
    "ParaphraserChain",
    "Query",
    "QueryParaphraser",
    "RuEnTermExpander",
    "build_chain",
    "keyword_candidates",
    "load_paraphraser",
]
