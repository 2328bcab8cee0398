"""Safe Markdown pieces: code spans, link targets, raw HTML, fences, page names."""

from __future__ import annotations

from ragstrata.answer.docs.pagenames import page_names
from ragstrata.answer.docs.safe import code_span, safe_markdown, safe_url


def test_code_spans_outfence_backticks_and_stay_on_one_line():
    assert code_span("plain") == "`plain`"
    assert code_span("a`b``c") == "```a`b``c```"
    assert code_span("`x") == "`` `x ``"
    assert code_span("two\nlines") == "`two lines`"


def test_only_http_and_relative_link_targets_survive():
    assert safe_url("https://x.org/a b") == "https://x.org/a%20b"
    assert safe_url("../page.md#part") == "../page.md#part"
    for bad in (
        "javascript:alert(1)",
        "JaVaScRiPt:x",
        "java\tscript:x",
        "&#106;avascript:x",
        "&amp;#106;avascript:x",
        "data:text/html,x",
        "vbscript:x",
        "//evil.org/x",
    ):
        assert safe_url(bad) is None, bad
    text = safe_markdown("[a](javascript:alert(1)) [b](https://x.org) ![c](data:x)\n[r]: file:///e")
    assert text == "a [b](https://x.org) c\n[r]\\:"


def test_raw_html_is_escaped_outside_code_only():
    text = safe_markdown("<b>x</b> `<b>kept</b>` ``a`<i>`` <!-- c -->\n```\n<script>\n```\n<p>")
    assert (
        text == "&lt;b>x&lt;/b> `<b>kept</b>` ``a`<i>`` &lt;!-- c -->\n```\n<script>\n```\n&lt;p>"
    )
    # a code span never crosses a line, so a backtick cannot hide HTML a renderer would see
    assert safe_markdown("`a\n<img src=x>`") == "`a\n&lt;img src=x>`"
    # an unclosed fence is closed: the text cannot swallow the rest of the page
    assert safe_markdown("````js <x>\ncode") == "````js\ncode\n````"


def test_page_names_are_distinct_safe_and_never_the_index():
    names = page_names(["", "a/b", "a__b", "index", "_root", "CON", "aux.x", "a:b", "x" * 300])
    assert len(set(names.values())) == len(names)
    assert "index.md" not in names.values()
    assert names["a/b"] != names["a__b"] and names[""] != names["_root"]
    assert names["CON"] == "_CON.md" and names["aux.x"] == "_aux.x.md" and names["a:b"] == "a_b.md"
    assert len(names["x" * 300].encode()) <= 124
    assert page_names(["src/app"]) == {"src/app": "src__app.md"}
