"""English stemming in the lexical analyzer: the light plural stripper vs Snowball vs none.

Each tree is indexed once (the packaged embedder); then, for each variant, the analyzer's
English stemmer is swapped, every row is re-analyzed (the store does it when the analyzer
version changes) and the datasets are evaluated with the full retriever (lexical + dense +
symbols), so only the lexical terms differ between variants. Prints file-level hit@1,
recall@5/@10 and MRR per (tree, dataset, variant), and writes ``bench/results/stemmer.json``.
Snowball comes from ``snowballstemmer`` (the ``bench`` extra).

Measured (file level, sweqa-dev: requests 47 + flask 48 questions; light / snowball / none):
requests R@5 0.870 / 0.870 / 0.863, MRR 0.936 / 0.936 / 0.936; flask hit@1 0.771 / 0.771 /
0.729, R@5 0.701 / 0.693 / 0.688, R@10 0.767 / 0.771 / 0.769, MRR 0.852 / 0.857 / 0.833;
EN30 on flask R@5 0.758 / 0.683 / 0.758. Snowball is not better than the light plural rules
(which need no reindex), and both beat no stemming: the analyzer keeps the light rules.

    .venv/bin/python bench/stemmer.py --tree TREES/requests-46e939b5 --tree TREES/flask-85c5d93c \
        --dataset ../shared/eval/sweqa-dev.jsonl --dataset bench/data/sweqa-en30.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ragstrata.app.evaluation import evaluate, load_dataset, select_for_tree  # noqa: E402
from ragstrata.app.facade import Ragstrata  # noqa: E402
from ragstrata.store import analyzer  # noqa: E402
from ragstrata.store.sqlite import schema  # noqa: E402


def _snowball() -> Callable[[str], str]:
    import snowballstemmer

    stem = snowballstemmer.stemmer("english").stemWord

    def snowball(word: str) -> str:
        return stem(word) if word.isascii() and word.isalpha() else word

    return snowball


VARIANTS: dict[str, Callable[[], Callable[[str], str]]] = {
    "light": lambda: analyzer.light_stem,
    "snowball": _snowball,
    "none": lambda: lambda word: word,
}


def _use(variant: str, stem: Callable[[str], str]) -> None:
    analyzer.light_stem = stem  # type: ignore[assignment]  # looked up at call time
    analyzer._token_terms.cache_clear()
    schema.ANALYZER_VERSION = f"bench-{variant}"  # type: ignore[misc]  # forces re-analysis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--dataset", type=Path, action="append", required=True)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--top-k", type=int, default=50)
    args = parser.parse_args()
    stems = {name: VARIANTS[name]() for name in args.variants}
    results = []
    for tree in args.tree:
        with Ragstrata(tree) as rs:
            rs.index()  # once: vectors are shared by every variant
        for variant, stem in stems.items():
            _use(variant, stem)
            with Ragstrata(tree) as rs:
                for dataset in args.dataset:
                    items, repo = select_for_tree(load_dataset(dataset), tree)
                    if not items or repo is None:
                        continue
                    report = evaluate(rs, items, top_k=args.top_k, dataset=dataset.name)
                    level = report.file
                    assert level is not None
                    row = {"tree": tree.name, "dataset": dataset.name, "variant": variant,
                           "n": level.n, "hit@1": level.hit[1], "recall@5": level.recall[5],
                           "recall@10": level.recall[10], "mrr": level.mrr}  # fmt: skip
                    results.append(row)
                    print(json.dumps(row), flush=True)
    out = ROOT / "bench" / "results" / "stemmer.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
