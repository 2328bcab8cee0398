"""Doc comments -> Markdown per style and language, module documentation per language, and the
Mermaid/SVG diagram subset: pure functions over text."""

from __future__ import annotations

import re

import pytest

from ragstrata.answer.docs.doccomment import parse_doc, to_markdown
from ragstrata.answer.docs.mermaid import parse_flowchart
from ragstrata.answer.docs.moduledoc import module_doc
from ragstrata.answer.docs.svg import flowchart_svg

RAW = re.compile(r"<p>|</p>|<pre>|</pre>|\{@link|\{@code|<code>|&lt;")


def test_javadoc_html_and_inline_tags_become_markdown() -> None:
    doc = parse_doc(
        '<p>Checks if a CharSequence is empty ("") or null.</p>\n\n<pre>\n'
        'StringUtils.isEmpty(null)      = true\nStringUtils.isEmpty("")        = true\n</pre>\n\n'
        "<p>See {@link StringUtils#isBlank(CharSequence)} and {@code List<String>}, "
        "a &lt; b.</p>\n"
        "@param cs  the CharSequence to check, may be null\n"
        "@return {@code true} if the CharSequence is empty or null\n"
        "@throws IllegalArgumentException if bad\n"
        "@deprecated use {@link #isBlank} instead\n@since 3.0"
    )
    assert not RAW.search(doc.description)
    assert "```\nStringUtils.isEmpty(null)      = true\n" in doc.description
    assert "`StringUtils#isBlank(CharSequence)`" in doc.description
    assert "`List<String>`" in doc.description and "a < b." in doc.description
    assert doc.params == (("cs", "the CharSequence to check, may be null"),)
    assert doc.returns == "`true` if the CharSequence is empty or null"
    assert doc.raises == (("IllegalArgumentException", "if bad"),)
    assert doc.deprecated == "use `isBlank` instead"


def test_javadoc_pre_code_blocks_keep_code_and_comments() -> None:
    doc = parse_doc(
        "Like:\n\n<pre>{@code\nMap<String, List<Integer>> m = new HashMap<>(); // empty\n"
        "if (m.isEmpty()) {\n    run();\n}\n}\n</pre>\n\n<p>\nThen {@link Foo\nBar&lt;T&gt;}.</p>"
    )
    assert doc.description == (
        "Like:\n\n```\nMap<String, List<Integer>> m = new HashMap<>(); // empty\n"
        "if (m.isEmpty()) {\n    run();\n}\n```\n\nThen `Bar<T>`."
    )


def test_javadoc_code_block_lines_and_links_with_parameter_lists() -> None:
    doc = parse_doc(
        "<p>\nUse {@link FastDateFormat#getInstance(String, TimeZone, Locale)} or\n"
        "{@link FastDateFormat}.\n</p>\n\n<p>\nA static member:\n</p>\n{@code\n"
        '    private static final DateParser P = FastDateFormat.getInstance("yyyy");\n}\n'
    )
    assert doc.description == (
        "Use `FastDateFormat#getInstance(String, TimeZone, Locale)` or\n`FastDateFormat`.\n\n"
        "A static member:\n\n```\nprivate static final DateParser P = "
        'FastDateFormat.getInstance("yyyy");\n```'
    )


def test_jsdoc_types_optional_params_and_example_comments_kept() -> None:
    doc = parse_doc(
        "Parses a value.\n@param {string} input - the text\n@param {Object} [opts] options\n"
        '@returns {number} the number\n@example\n// parse a number\nparse("12"); // 12'
    )
    assert doc.description == "Parses a value."
    assert doc.params == (("input", "(string) the text"), ("opts", "(Object) options"))
    assert doc.returns == "the number"
    assert doc.examples == ('```\n// parse a number\nparse("12"); // 12\n```',)


@pytest.mark.parametrize(
    "text",
    [
        # Google
        "Register a blueprint.\n\nArgs:\n    blueprint: The blueprint to register.\n"
        "    options (dict): Keyword arguments that\n        override defaults.\n\n"
        "Returns:\n    Nothing.\n\nRaises:\n    ValueError: if the name is taken.\n",
        # NumPy
        "Register a blueprint.\n\nParameters\n----------\nblueprint : Blueprint\n"
        "    The blueprint to register.\noptions : dict\n    Keyword arguments.\n\n"
        "Returns\n-------\nNone\n    Nothing.\n\nRaises\n------\nValueError\n"
        "    if the name is taken.\n",
        # Sphinx
        "Register a blueprint.\n\n:param blueprint: The blueprint to register.\n"
        ":param options: Keyword arguments\n   that override defaults.\n:returns: Nothing.\n"
        ":raises ValueError: if the name\n    is taken.\n",
    ],
    ids=["google", "numpy", "sphinx"],
)
def test_python_docstring_styles(text: str) -> None:
    doc = parse_doc(text)
    assert doc.description == "Register a blueprint."
    assert [n for n, _ in doc.params] == ["blueprint", "options"]
    assert "The blueprint to register." in doc.params[0][1]
    assert "Nothing." in doc.returns
    assert doc.raises and doc.raises[0][0] == "ValueError" and "taken" in doc.raises[0][1]
    assert "taken" not in doc.params[-1][1]  # a continuation line stays with its own field


def test_sphinx_rst_docstring_roles_directives_and_code() -> None:
    doc = parse_doc(
        "Tagged JSON\n~~~~~~~~~~~\n\nUses :class:`~flask.sessions.SecureCookieSessionInterface`"
        " and :func:`dumps <flask.json.dumps>`; pass ``key``.\n\n"
        ".. autoclass:: TaggedJSONSerializer\n    :members:\n\n"
        ".. versionchanged:: 2.0\n    Uses ``t.Any``.\n\n"
        "Example::\n\n    app = Flask(__name__)  # the app\n    app.run()\n\n"
        ".. code-block:: python\n\n    x = 1\n"
    )
    assert doc.description == (
        "**Tagged JSON**\n\nUses `SecureCookieSessionInterface` and `dumps`; pass `key`.\n\n"
        "*Changed in version 2.0.* Uses `t.Any`."
    )
    # "Example::" is a Google-style section; the comment in the code is kept
    assert doc.examples == (
        "```\napp = Flask(__name__)  # the app\napp.run()\n```\n\n```python\nx = 1\n```",
    )


def test_rustdoc_sections_links_and_example_comments() -> None:
    doc = parse_doc(
        "Builds a walker.\n\nSee [`WalkBuilder`] for more.\n\n# Errors\n\n"
        "Returns an error if the path is bad.\n\n# Examples\n\n```\n// make one\n"
        "let w = build();\n```"
    )
    assert doc.description == "Builds a walker.\n\nSee `WalkBuilder` for more."
    assert doc.raises == (("", "Returns an error if the path is bad."),)
    assert doc.examples == ("```\n// make one\nlet w = build();\n```",)


def test_godoc_indented_code_and_deprecation() -> None:
    doc = parse_doc(
        "Next should be used only inside middleware.\nSee example:\n\n"
        "\tr.Use(func(c *gin.Context) {\n\t\tc.Next() // run the rest\n\t})\n\n"
        "Deprecated: use Other instead."
    )
    assert "```\nr.Use(func(c *gin.Context) {\n\tc.Next() // run the rest\n})\n```" in (
        doc.description
    )
    assert doc.deprecated == "use Other instead."


def test_yard_ruby_tags() -> None:
    doc = parse_doc(
        "Sets an option.\n@param [Symbol] option the option name\n@return [void]\n"
        "@example\n  set :port, 4567  # the port"
    )
    assert doc.params == (("option", "(Symbol) the option name"),)
    assert doc.examples == ("```\nset :port, 4567  # the port\n```",)


@pytest.mark.parametrize(
    ("language", "text", "expected", "span"),
    [
        (
            "python",
            '#!/usr/bin/env python\n"""Talks to the provider.\n\nMore."""\nimport os\n',
            "Talks to the provider.\n\nMore.",
            (2, 4),
        ),
        (
            "rust",
            "//! Finds files.\n//!\n//! ```\n//! fd foo // search\n//! ```\nuse std;\n",
            "Finds files.\n\n```\nfd foo // search\n```",
            (1, 5),
        ),
        (
            "rust",
            "#![deny(x)]\n/*! Crate docs\n    with code */\nfn main() {}\n",
            "Crate docs\n    with code",
            (2, 3),
        ),
        (
            "go",
            "// Copyright x\n\n// Package gin is a web framework.\n//\n//\tr := gin.New()\n"
            "package gin\n",
            "Package gin is a web framework.\n\n\tr := gin.New()",
            (3, 5),
        ),
        (
            "typescript",
            "/**\n * @fileoverview Schema helpers.\n * Second line.\n */\n\nexport const a = 1;\n",
            "Schema helpers.\nSecond line.",
            (1, 4),
        ),
        (
            "javascript",
            "/*\n * Copyright 2020, licensed under MIT\n */\n/**\n * @file Router.\n"
            " */\nexport function r() {}\n",
            "Router.",
            (4, 6),
        ),
        (
            "java",
            "/*\n * Licensed under the Apache License\n */\n/**\n * Provides {@link Foo} "
            "utilities.\n */\npackage org.apache.x;\n",
            "Provides {@link Foo} utilities.",
            (4, 6),
        ),
        (
            "ruby",
            "# frozen_string_literal: true\n\n# Sinatra's core.\n# Second.\nmodule Sinatra\nend\n",
            "Sinatra's core.\nSecond.",
            (3, 4),
        ),
    ],
    ids=[
        "python",
        "rust-line",
        "rust-block",
        "go",
        "ts-fileoverview",
        "js-after-licence",
        "java-package-info",
        "ruby",
    ],
)
def test_module_docs_per_language(
    language: str, text: str, expected: str, span: tuple[int, int]
) -> None:
    found = module_doc(text, language)
    assert found is not None and found.text == expected
    assert (found.start_line, found.end_line) == span


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("typescript", "/** Adds two numbers. */\nexport function add() {}\n"),  # item doc
        ("ruby", "# external dependencies\nrequire 'rack'\n"),
        ("go", "//go:build linux\n\npackage gin\n"),
        ("java", "/*\n * Licensed under Apache\n */\npackage a.b;\n"),
        ("python", "import os\n"),
    ],
)
def test_comments_that_are_not_module_docs(language: str, text: str) -> None:
    assert module_doc(text, language) is None


def test_module_doc_conversion_keeps_example_code() -> None:
    go = module_doc(
        "/*\nPackage gin is fast.\n\nExample:\n\n\tfunc main() {\n\t\tr.Run()"
        " // serve\n\t}\n*/\npackage gin\n",
        "go",
    )
    assert go is not None
    assert to_markdown(go.text) == (
        "Package gin is fast.\n\n```\nfunc main() {\n\tr.Run() // serve\n}\n```"
    )


def test_flowchart_round_trip_and_svg_escapes_labels() -> None:
    text = (
        'flowchart LR\n  n0["Gate<way>"]\n  n1("run")\n  n2["Sub"]\n  n0 --> n1\n'
        "  n1 --> n0\n  n2 -.->|extends| n0"
    )
    parsed = parse_flowchart(text)
    assert parsed == (
        [("n0", "Gate<way>", True), ("n1", "run", False), ("n2", "Sub", True)],
        [("n0", "n1", False), ("n1", "n0", False), ("n2", "n0", True)],
    )
    svg = flowchart_svg(text)
    assert svg is not None and svg.startswith("<svg") and "Gate&lt;way&gt;" in svg
    assert svg.count('class="edge') == 3 and svg.count("stroke-dasharray") == 1
    assert "<script" not in svg
    assert flowchart_svg("sequenceDiagram\n  A->>B: hi") is None
    assert flowchart_svg('flowchart LR\n  n0("a")\n  n0 --> n9') is None  # unknown node


def test_jsdoc_examples_section_indented_under_the_gutter_is_code():
    doc = parse_doc(
        "Set header `field` to `val`.\n\nExamples:\n\n   res.set('Foo', ['bar']);\n"
        "   res.set({ Accept: 'text/plain' });\n\nAliased as `res.header()`.\n"
        "@param {String|Object} field\n@return {ServerResponse} for chaining"
    )
    assert doc.examples == (
        "```\nres.set('Foo', ['bar']);\nres.set({ Accept: 'text/plain' });\n```",
    )
    assert doc.description == "Set header `field` to `val`.\n\nAliased as `res.header()`."
    assert doc.params == (("field", "(String|Object)"),)


def test_rustdoc_hidden_example_lines_are_left_out_of_rust_blocks_only():
    from ragstrata.answer.docs.doccomment import hide_rustdoc_lines

    text = (
        "Walk it:\n\n```no_run\nuse walkdir::WalkDir;\n# use walkdir::Error;\n#\n"
        '# fn try_main() -> Result<(), Error> {\nfor e in WalkDir::new("foo") {}\n'
        "## shown\n#[derive(Debug)]\n# }\n```\n\n```toml\n# kept\n```"
    )
    assert hide_rustdoc_lines(text) == (
        'Walk it:\n\n```no_run\nuse walkdir::WalkDir;\nfor e in WalkDir::new("foo") {}\n'
        "# shown\n#[derive(Debug)]\n```\n\n```toml\n# kept\n```"
    )
