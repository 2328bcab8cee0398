"""Generated documentation on real repositories: completeness, truthfulness, "Used by" precision,
doc-comment conversion, and the LLM path with a loopback fake.

For each ``<name>@<commit>`` tree under ``--trees`` the script indexes it (rows only, into
``--indexes/<name>/index.sqlite``, once), generates the ``--all`` site in memory
(:class:`ragstrata.answer.docs.site.DocsGenerator`, module docs read from the indexed text) and
measures:

- completeness: public definitions of the documented packages (non-test code; top level,
  members of types, methods of types declared in other files) whose span the pages cite,
  over all of them;
- truthfulness: identifiers the pages name in backticks outside code blocks that resolve —
  through the one symbol resolver (strict modes), as an indexed path, or written in the
  source the same item quotes (doc text, an as-written call name at its cited line);
- raw markup: ``<p>``, ``<pre>``, ``{@link``, ``{@code`` left outside code blocks;
- "Used by" precision: a deterministic sample of precise "Used by" entries (``--sample-out``
  writes it with the cited source line, for labelling); precision is read from ``--labels``
  (JSONL with ``label`` 1 = the cited line really uses the documented item);
- LLM: ``--llm-packages`` packages per repository regenerated with prose from a loopback
  fake of OpenAI's chat API (``ragstrata.testing.openai_fake``) whose replies cite the
  evidence and also name one invented identifier; truthfulness after the check, names
  removed, and LLM calls of a second run (the cache: expected 0).

- labelled completeness (``--exports``): exported names listed by reading the code (path,
  line, name) that a package page cites, over all of them.

Run: ``python bench/gendocs.py --trees T --indexes I [--labels F] [--exports F]
[--sample-out F]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragstrata.answer.docs.index_view import CONTAINER_KINDS, is_public
from ragstrata.answer.docs.render import MAX_EXAMPLES, MAX_RELATIONS
from ragstrata.answer.docs.site import DocsGenerator
from ragstrata.answer.docs.targets import Target
from ragstrata.core.rows import DefinitionRow
from ragstrata.indexer import Indexer
from ragstrata.llm.factory import make_runner
from ragstrata.retrieve.reader import IndexReader
from ragstrata.retrieve.resolve import CASCADE, SymbolResolver
from ragstrata.retrieve.rows import file_text
from ragstrata.settings import LLMSettings, Settings
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing.fakes import HashEmbedder
from ragstrata.testing.openai_fake import FakeOpenAI

LANG = {
    "gin": "Go",
    "zod": "TypeScript",
    "flask": "Python",
    "commons-lang": "Java",
    "fd": "Rust",
    "sinatra": "Ruby",
    "express": "JavaScript",
    "walkdir": "Rust",
}
# repositories added with issue 25, at the commits their labels were made on (trees are
# TREES/<name>@<commit>)
PINNED = {
    "express": ("expressjs/express", "a3714473feb3d2908add734d340e7755fd85e0a3"),
    "walkdir": ("BurntSushi/walkdir", "6fd031c82ba5a4204b4ce6eae73dacb00dc072ec"),
}
_CODE = re.compile(r"`([^`\n]+)`")
_CITE = re.compile(r"^([\w./@+-]+):(\d+)(?:-(\d+))?$")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
_RAW = re.compile(r"<p>|</p>|<pre>|</pre>|\{@link|\{@code")
_ENTRY = re.compile(r"^- \[?`([^`]+)`\]?(?:\([^)]*\))? \(`([^`]+):(\d+)`\)$")


def open_store(tree: Path, indexes: Path) -> SQLiteStore:
    name = tree.name.split("@")[0]
    path = indexes / name / "index.sqlite"
    store = SQLiteStore(path)
    if not path.exists() or not store.catalog():
        Indexer(tree, store, HashEmbedder(), Settings()).run(embed=False)
    return store


def public_definitions(gen: DocsGenerator) -> list[DefinitionRow]:
    """What completeness counts: public definitions of documented files whose owners are all
    public types or namespaces (not locals of a function, not members of a private type)."""
    out = []
    for folder in gen.packages():
        for path in gen.collector.package_files(folder):
            module = gen.view.module_row(path)
            for row in gen.view.definitions(path):
                if (module is not None and row.id == module.id) or not is_public(row):
                    continue
                if _owners_public(gen, row, module.symbol if module else None):
                    out.append(row)
    return out


def _owners_public(gen: DocsGenerator, row: DefinitionRow, file_module: str | None) -> bool:
    parent = row.parent
    for _ in range(8):
        if parent is None or parent == file_module:
            return True
        owner = gen.view.definition(parent)
        if owner is None:
            return True  # declared outside the index's C1 rows: judged by the row itself
        if not is_public(owner) or (owner.kind not in CONTAINER_KINDS and owner.kind != "module"):
            return False
        parent = owner.parent
    return True


def reader(store: SQLiteStore, tree: Path) -> Callable[[str], str | None]:
    """The facade's reader: the indexed text, else the file in the tree."""

    def read(path: str) -> str | None:
        text = file_text(store, path)
        if text is None and (tree / path).is_file():
            text = (tree / path).read_text(encoding="utf-8", errors="replace")
        return text

    return read


class Truth:
    """Counts named identifiers and how many resolve."""

    def __init__(self, store: SQLiteStore, read: Callable[[str], str | None]) -> None:
        self.read = read
        self.resolver = SymbolResolver(store)
        self.store = store
        self.paths = set(store.catalog())
        self.known: dict[str, bool] = {}
        self.named = 0
        self.resolved = 0
        self.failures: list[str] = []
        self._lines: dict[str, list[str]] = {}

    def source_line(self, path: str, line: int) -> str:
        if path not in self._lines:
            self._lines[path] = (self.read(path) or "").split("\n")
        lines = self._lines[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def ok(self, token: str, context: str) -> bool:
        name = token.removesuffix("()")
        if name in self.paths or re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", context):
            return True
        if name not in self.known:
            self.known[name] = self.resolver.resolve(name, limit=1, modes=CASCADE[:3]).found
        return self.known[name]

    def page(self, markdown: str, spans: dict[tuple[str, int, int], str]) -> None:
        context = ""
        fenced = overview = False
        for line in markdown.split("\n"):
            if line.startswith("```"):
                fenced = not fenced
                continue
            if fenced or line.startswith(("<!--", "> ")):
                continue  # the page's header, and its note of names removed from LLM text
            if line.startswith("#"):
                context = line
                overview = (line.startswith("## ") and "Overview" in line) or "Обзор" in line
            m = _CITE.match(line.strip().strip("`*"))
            if m:
                key = (m.group(1), int(m.group(2)), int(m.group(3) or m.group(2)))
                context = spans.get(key, context)
                continue
            if (
                line.strip()
                and not line.startswith("#")
                and (overview or (not line.startswith("-") and context.startswith("#")))
            ):
                context += "\n" + line  # overview / doc text quoted from the source
            entry = _ENTRY.match(line)
            local = context
            for tok in _CODE.findall(line):  # items cited on this line (a member's summary)
                c = _CITE.match(tok.strip())
                if c:
                    key = (c.group(1), int(c.group(2)), int(c.group(3) or c.group(2)))
                    local += "\n" + spans.get(key, "")
            if entry:
                local += "\n" + self.source_line(entry.group(2), int(entry.group(3)))
            for tok in _CODE.findall(line):
                tok = tok.strip()
                if _CITE.match(tok) or not _IDENT.match(tok):
                    continue
                self.named += 1
                written = bool(entry) and tok == entry.group(1) and _written(tok, local)
                if written or self.ok(tok, local + "\n" + context):
                    self.resolved += 1
                elif len(self.failures) < 10:
                    self.failures.append(f"{tok} @ {line[:90]}")


def _written(token: str, line: str) -> bool:
    """Every identifier segment of ``token`` is written in ``line`` (``clap::Arg`` in
    ``use clap::{Arg, ...}``)."""
    parts = [p for p in re.split(r"\.|::|#|\(\)", token) if p]
    return bool(parts) and all(
        re.search(rf"(?<![\w$]){re.escape(p)}(?![\w$])", line) for p in parts
    )


def fake_reply(messages: list[dict[str, Any]]) -> str:
    """What the fake model writes: true sentences citing the evidence, and one invented name."""
    user = str(messages[-1]["content"]) if messages else ""
    found = re.findall(
        r"(?m)^\[(.+?):(\d+)(?:-\d+)?\] (class|function|method|struct|"
        r"enum|interface|trait|constant|module|type_alias|macro) (\S+?):?(?=\s|$)",
        user,
    )
    out = []
    for path, line, kind, symbol in found[:3]:
        out.append(f"The {kind} `{symbol}` is defined here `{path}:{line}`.")
    if found:
        path, line = found[0][0], found[0][1]
        out.append(f"It delegates to `frobnicate_widget_cache` for speed `{path}:{line}`.")
        out.append("This sentence cites nothing and is dropped.")
    return " ".join(out)


def run_repo(
    tree: Path, indexes: Path, llm_packages: int, exports: list[dict[str, Any]]
) -> dict[str, Any]:
    name = tree.name.split("@")[0]
    t0 = time.perf_counter()
    store = open_store(tree, indexes)
    read = reader(store, tree)
    gen = DocsGenerator(IndexReader(store), read=read)
    truth = Truth(store, read)
    cited: set[tuple[str, int, int]] = set()
    raw = 0
    used_by: list[dict[str, Any]] = []
    with_overview = 0
    folders = gen.packages()
    for folder in folders:
        page = gen.collect(Target("package", folder))
        rendered = gen.render(page)
        cited |= {(c.path, c.start_line, c.end_line) for c in rendered.citations}
        spans = {
            (i.row.path, i.row.start_line, i.row.end_line): "\n".join(
                (i.row.signature, i.row.docstring or "", i.row.text)
            )
            for i in page.items()
        }
        truth.page(rendered.markdown, spans)
        body = re.sub(r"```.*?```", "", rendered.markdown, flags=re.S)
        raw += len(_RAW.findall(body))
        with_overview += page.overview is not None
        used_by += _uses(name, folder or ".", page, truth)
        for path in gen.collector.package_files(folder):  # module pages: uses across files
            used_by += _uses(name, path, gen.collect(Target("file", path)), truth)
    public = public_definitions(gen)
    labelled = [e for e in exports if e["repo"] == name]
    on_page = [
        e for e in labelled if any(p == e["path"] and a <= e["line"] <= b for p, a, b in cited)
    ]
    for row in public:  # the page of each public definition: its users anywhere
        symbol_page = gen.collect(Target("symbol", row.symbol, row))
        used_by += _uses(name, row.symbol, symbol_page, truth)
        used_by += _test_examples(name, gen, row, symbol_page, truth)
    documented = sum((r.path, r.start_line, r.end_line) in cited for r in public)
    missing = [r.symbol for r in public if (r.path, r.start_line, r.end_line) not in cited][:5]
    result: dict[str, Any] = {
        "repo": name,
        "language": LANG.get(name, "?"),
        "packages": len(folders),
        "with_overview": with_overview,
        "public": len(public),
        "documented": documented,
        "completeness": documented / len(public) if public else 1.0,
        "missing": missing,
        "exports_labelled": len(labelled),
        "exports_on_page": len(on_page),
        "exports_missing": [
            f"{e['path']}:{e['line']} {e['name']}" for e in labelled if e not in on_page
        ][:10],
        "named": truth.named,
        "resolved": truth.resolved,
        "truthfulness": truth.resolved / truth.named if truth.named else 1.0,
        "unresolved": truth.failures,
        "raw_markup": raw,
        "used_by": used_by,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if llm_packages:  # the smallest packages with at least three items: a bounded LLM run
        sizes = {f: len(gen.collect(Target("package", f)).items()) for f in folders}
        chosen = sorted((f for f in folders if sizes[f] >= 3), key=lambda f: (sizes[f], f))
        result.update(run_llm(store, read, chosen[:llm_packages]))
    store.close()
    return result


def _uses(repo: str, where: str, page: Any, truth: Truth) -> list[dict[str, Any]]:
    """The uses one page lists, as shown (at most MAX_RELATIONS a list), with the cited source
    line: "Used by", "Possibly used by", and the tests "that may call it"."""
    out = []
    for listed, sites in (
        ("used_by", page.used_by),
        ("possible", page.used_by_possible),
        ("tests_possible", page.examples_possible),
    ):
        for site in sites[:MAX_RELATIONS]:
            out.append(
                {
                    "repo": repo,
                    "page": where,
                    "list": listed,
                    "target": site.about,
                    "relation": site.kind,
                    "from": site.name,
                    "path": site.path,
                    "line": site.line,
                    "source": truth.source_line(site.path, site.line).strip()[:200],
                }
            )
    return out


def _test_examples(
    repo: str, gen: DocsGenerator, row: DefinitionRow, page: Any, truth: Truth
) -> list[dict[str, Any]]:
    """The tests a symbol's page quotes as examples (as rendered: the shortest ones), each with
    the line where it calls the symbol."""
    shown = sorted(page.examples, key=lambda d: (d.end_line - d.start_line, d.path, d.start_line))[
        :MAX_EXAMPLES
    ]
    sites = {s.name: s for s in gen.view.incoming(row.symbol, ("calls",)) if s.precise}
    out = []
    for test in shown:
        site = sites.get(test.symbol)
        if site is not None:
            out.append(
                {
                    "repo": repo,
                    "page": row.symbol,
                    "list": "tests",
                    "target": row.symbol,
                    "relation": "calls",
                    "from": test.symbol,
                    "path": site.path,
                    "line": site.line,
                    "source": truth.source_line(site.path, site.line).strip()[:200],
                }
            )
    return out


def run_llm(
    store: SQLiteStore, read: Callable[[str], str | None], folders: list[str]
) -> dict[str, Any]:
    with FakeOpenAI(fake_reply) as fake, tempfile.TemporaryDirectory() as tmp:
        settings = LLMSettings(
            provider="openai",
            base_url=fake.base_url,
            model="gpt-4o-mini",
            api_key="fake-key",
            max_retries=0,
        )
        runner = make_runner(settings)
        cache = Path(tmp) / "cache.json"
        truth = Truth(store, read)
        removed: set[str] = set()
        prose_items = 0
        for round_ in (1, 2):
            gen = DocsGenerator(IndexReader(store), read=read, runner=runner, cache_path=cache)
            calls_before = fake.calls
            for folder in folders:
                page = gen.collect(Target("package", folder))
                rendered = gen.render(page)
                if round_ == 1:
                    spans = {
                        (i.row.path, i.row.start_line, i.row.end_line): "\n".join(
                            (i.row.signature, i.row.docstring or "", i.row.text)
                        )
                        for i in page.items()
                    }
                    truth.page(rendered.markdown, spans)
            if round_ == 1:
                first_calls = fake.calls - calls_before
                removed = set(gen.report.removed)
                prose_items = first_calls
            else:
                second_calls = fake.calls - calls_before
    return {
        "llm_pages": len(folders),
        "llm_calls": first_calls,
        "llm_calls_cached_run": second_calls,
        "llm_removed": sorted(removed),
        "llm_prose_items": prose_items,
        "llm_truthfulness": truth.resolved / truth.named if truth.named else 1.0,
        "llm_unresolved": truth.failures,
    }


def sample_used_by(results: list[dict[str, Any]], per_repo: int) -> list[dict[str, Any]]:
    out = []
    for r in results:
        unique = {(e["target"], e["from"], e["path"], e["line"]): e for e in r["used_by"]}
        ranked = sorted(
            unique.values(),
            key=lambda e: hashlib.sha256(
                f"{e['target']}|{e['from']}|{e['path']}|{e['line']}".encode()
            ).hexdigest(),
        )
        out += ranked[:per_repo]
    return out


def _key(e: dict[str, Any]) -> tuple[str, str, str, str, int]:
    return (e["repo"], e["target"], e["from"], e["path"], int(e["line"]))


def label_precision(sample: list[dict[str, Any]], labels: Path) -> dict[str, tuple[int, int]]:
    """``repo -> (labelled uses that are uses, labelled)`` over the entries of ``sample``; a
    labels file of an older run may hold entries no page lists now: those do not count, and an
    entry with no label is reported on stderr."""
    label_of = (
        {
            _key(e): int(e["label"])
            for line in labels.read_text(encoding="utf-8").splitlines()
            if line.strip()
            for e in [json.loads(line)]
        }
        if labels.is_file()
        else {}
    )
    out: dict[str, tuple[int, int]] = {}
    missing = [e for e in sample if _key(e) not in label_of]
    for e in sample:
        if _key(e) in label_of:
            ok, n = out.get(e["repo"], (0, 0))
            out[e["repo"]] = (ok + label_of[_key(e)], n + 1)
    if missing:
        print(
            f"{len(missing)} sampled uses have no label (--sample-out lists them)", file=sys.stderr
        )
    return out


def markdown_table(results: list[dict[str, Any]], precision: dict[str, tuple[int, int]]) -> str:
    head = (
        "| repo | language | packages (overview) | public defs | completeness | labelled "
        "exports on pages | named ids | truthfulness offline | raw markup | Used by precision "
        "(labelled) | LLM fake: truthfulness / removed / calls, cached run |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = [head]
    for r in results:
        ok, n = precision.get(r["repo"], (0, 0))
        prec = f"{ok / n:.2f} ({ok}/{n})" if n else "-"
        labelled = (
            f"{r['exports_on_page'] / r['exports_labelled']:.3f} "
            f"({r['exports_on_page']}/{r['exports_labelled']})"
            if r.get("exports_labelled")
            else "-"
        )
        llm = "-"
        if "llm_calls" in r:
            llm = (
                f"{r['llm_truthfulness']:.3f} / {len(r['llm_removed'])} / "
                f"{r['llm_calls']}, {r['llm_calls_cached_run']}"
            )
        rows.append(
            f"| {r['repo']} | {r['language']} | {r['packages']} ({r['with_overview']}) | "
            f"{r['public']} | {r['completeness']:.3f} | {labelled} | {r['named']} | "
            f"{r['truthfulness']:.3f} | {r['raw_markup']} | {prec} | {llm} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trees", type=Path, required=True)
    ap.add_argument("--indexes", type=Path, required=True)
    ap.add_argument("--labels", type=Path)
    ap.add_argument("--sample-out", type=Path)
    ap.add_argument("--per-repo", type=int, default=10)
    ap.add_argument("--llm-packages", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--exports",
        type=Path,
        help="JSONL of exported names labelled by reading the code: repo, path, line, name",
    )
    args = ap.parse_args(argv)
    exports = (
        [
            json.loads(line)
            for line in args.exports.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        if args.exports and args.exports.is_file()
        else []
    )
    results = []
    for tree in sorted(p for p in args.trees.iterdir() if "@" in p.name):
        results.append(run_repo(tree, args.indexes, args.llm_packages, exports))
        r = results[-1]
        print(
            f"{r['repo']}: completeness {r['completeness']:.3f} truthfulness "
            f"{r['truthfulness']:.3f} ({r['seconds']}s) missing {r['missing']} "
            f"unresolved {r['unresolved']} labelled exports on pages "
            f"{r['exports_on_page']}/{r['exports_labelled']} {r['exports_missing']}",
            file=sys.stderr,
        )
    sample = sample_used_by(results, args.per_repo)
    if args.sample_out:
        args.sample_out.write_text(
            "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in sample), encoding="utf-8"
        )
    precision = label_precision(sample, args.labels) if args.labels else {}
    if args.json:
        for r in results:
            r.pop("used_by")
        print(json.dumps(results, indent=2, ensure_ascii=False))
    print(markdown_table(results, precision))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
