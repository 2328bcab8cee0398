"""`gendocs --all` on a repository whose names and doc comments attack the pages: folder names
with a newline, HTML or backticks, `a/b` next to `a__b`, packages named `index` and `_root`,
Windows device names, a folder path longer than a file name may be, Kotlin backticked names,
`javascript:` links and raw HTML in doc comments. The site is rendered by a CommonMark parser
with HTML enabled: no HTML reaches it but the page header, every link is http(s) or relative,
every page the command reports is on disk (and only those), nothing lands outside --out."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token

from hostile.hostile_util import run_cli
from ragstrata.app.facade import Ragstrata
from ragstrata.cli.common import edge_settings

DOC = (
    "Run it. <script>alert(1)</script> <img src=x onerror=alert(2)>\n"
    "[click](javascript:alert(3)) [ok](https://example.com/a b) [entity](&#106;avascript:x)\n"
    "<!-- hidden --> ``` <b>in a code span</b> ``` and `` ` `` then <iframe src=x>\n"
    "[ref]: javascript:alert(4)\n"
)
LONG = "d" * 200 + "/" + "e" * 200
FOLDERS = [
    "evil\nname",
    "<img src=x onerror=alert(5)>",
    "tick`s``here",
    "a/b",
    "a__b",
    "index",
    "Index",
    "_root",
    "CON",
    "aux",
    "a:b",
    LONG,
]


def _write(root: Path) -> None:
    for i, folder in enumerate(FOLDERS):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "mod.py").write_text(
            f'"""Module {i}. <script>alert({i})</script>"""\n\n\n'
            f'def run_{i}(x):\n    """{DOC}"""\n    return x\n',
            encoding="utf-8",
        )
    (root / "top.py").write_text('def top():\n    """Top <b>level</b>."""\n', encoding="utf-8")
    (root / "kt").mkdir()
    (root / "kt" / "Evil.kt").write_text(
        "package evil\n\n/** Says [hi](javascript:alert(6)). */\n"
        "fun `<script>alert(7)</script>`() {}\n\n"
        "/** A widget. <svg onload=alert(8)> */\nclass Widget {\n"
        "    /** Draws. */\n    fun `draw it`() {}\n}\n",
        encoding="utf-8",
    )
    (root / "js").mkdir()
    (root / "js" / "lib.js").write_text(
        "/**\n * Send it. <iframe src=javascript:alert(9)></iframe>\n"
        " * @see {@link javascript:alert(10)}\n */\n"
        "module.exports.send = function send() {};\n",
        encoding="utf-8",
    )


def _walk(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for t in tokens:
        out.append(t)
        out += _walk(t.children or [])
    return out


def _safe_link(url: str) -> bool:
    scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.\-]*):", unquote(url).strip())
    return (scheme is None or scheme.group(1).lower() in ("http", "https")) and not url.startswith(
        "//"
    )


def test_a_hostile_repository_yields_a_safe_complete_site(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _write(repo)
    with Ragstrata(repo, edge_settings(repo)) as rs:
        rs.index()
    out = tmp_path / "site"
    code, _, err = run_cli("gendocs", "--all", "--out", str(out), "--repo", str(repo))
    assert code == 0, err
    m = re.search(r"wrote (\d+) pages and index\.md", err)
    assert m, err
    files = [
        p
        for p in tmp_path.rglob("*")
        if p.is_file() and ".ragstrata" not in p.parts and repo not in p.parents
    ]
    assert all(p.parent == out for p in files), files  # nothing outside --out, no subfolder
    pages = sorted(p.name for p in files if p.name != "index.md")
    assert len(pages) == int(m.group(1)) == len(FOLDERS) + 3  # + the root, kt/ and js/
    assert "index.md" in {p.name for p in files}
    for name in pages:
        stem = name.removesuffix(".md")
        assert len(name.encode()) <= 255 and "\n" not in name
        assert stem.split(".")[0].lower() not in {"con", "aux", "prn", "nul"}
        assert not re.search(r'[<>:"\\|?*`]', name)
    index = (out / "index.md").read_text(encoding="utf-8")
    linked = {unquote(u) for u in re.findall(r"\]\(([^)\s]+)\)", index)}
    assert linked == set(pages)  # the index lists every page, each once
    md = MarkdownIt("commonmark", {"html": True})
    for name in ["index.md", *pages]:
        text = (out / name).read_text(encoding="utf-8")
        for t in _walk(md.parse(text)):
            if t.type in ("html_block", "html_inline"):
                assert t.content.startswith("<!-- ragstrata-gendocs ") and name != "index.md", (
                    name,
                    t.content,
                )
                assert t.content.count("-->") == 1
            for attr in ("href", "src"):
                url = t.attrGet(attr)
                if url is not None:
                    assert _safe_link(str(url)), (name, url)
    # the names are still there, as code spans fenced longer than their own backticks
    everything = "\n".join((out / n).read_text(encoding="utf-8") for n in pages)
    assert "#### Function `` `<script>alert(7)</script>` ``" in everything
    assert "- [```tick`s``here```](tick_s__here.md)" in index
    assert "- [`evil name`](evil_name.md)" in index  # the newline is a space, on one line
    assert "&lt;!-- hidden -->" in everything and "click" in everything


def test_one_page_that_cannot_be_written_never_aborts_the_site(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for folder in ("a", "b", "c"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "m.py").write_text(f"def f_{folder}():\n    pass\n", encoding="utf-8")
    with Ragstrata(repo, edge_settings(repo)) as rs:
        rs.index()
    out = tmp_path / "site"
    (out / "b.md").mkdir(parents=True)  # a folder where the page of `b` should go
    code, _, err = run_cli("gendocs", "--all", "--out", str(out), "--repo", str(repo))
    assert code == 1
    assert "wrote 2 pages and index.md" in err and "1 pages could not be written" in err
    assert "b: IsADirectoryError" in err
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["a.md", "c.md", "index.md"]
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "(a.md)" in index and "(c.md)" in index and "b.md" not in index
