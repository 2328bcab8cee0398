"""Generated pages show the whole public surface (Go var/const blocks, JavaScript members added
by assignment, defineGetter and delegation, Python dunders), Rust type headings without
lifetimes and foreign types as foreign, no name-only "uses" without evidence, no fixture data
as tests, and a request in words for a module documents the module, not a test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from answer_fixture import load_store
from ragstrata.answer.docs.targets import build_docs, resolve_target
from ragstrata.errors import UserError
from ragstrata.query.facets import read_facets
from ragstrata.retrieve.reader import IndexReader
from ragstrata.store.sqlite import SQLiteStore

FILES = {
    "gopkg/errors.go": (
        '// Package gopkg does things.\npackage gopkg\n\nimport "errors"\n\n'
        'var (\n\t// ErrClosed is returned after Close.\n\tErrClosed = errors.New("closed")\n'
        "\tinternal = 1\n)\n\n// Modes.\nconst (\n\t// Fast mode.\n\tFast = 1\n\tSlow = 2\n)\n"
    ),
    "web/response.js": (
        "'use strict';\n\n/**\n * Module dependencies.\n * @private\n */\n\n"
        "var http = require('http');\n\nvar res = Object.create(http.ServerResponse.prototype);\n"
        "\nmodule.exports = res;\n\n/**\n * Set the status `code`.\n * @public\n */\n\n"
        "res.status = function status(code) {\n  return this;\n};\n\n"
        "/**\n * The protocol.\n * @public\n */\n\n"
        "defineGetter(res, 'protocol', function protocol() {\n  return 'http';\n});\n\n"
        "delegate(res, 'socket').method('setTimeout');\n\n"
        "/**\n * Set header `field`.\n */\n\nres.set =\nres.header = function header(field) {\n"
        "  return this;\n};\n\nres.json = function json(obj) {\n  this.set('Content-Type');\n"
        "  return this.status(200);\n};\n"
    ),
    "web/express.js": (
        "exports = module.exports = createApplication;\n\n"
        "/**\n * Create an application.\n * @api public\n */\nfunction createApplication() {}\n\n"
        "/** The JSON parser. */\nexports.json = parsers.json;\n\n"
        "/**\n * @api private\n */\nexports.etag = function etag() {};\n"
    ),
    "web/client.js": "/** Make a request. */\nexports.request = function request(url) {};\n",
    "test/client.test.js": (
        "const request = require('supertest');\nconst client = require('../web/client');\n\n"
        "it('works', function () {\n  request(app);\n  client.request('/');\n});\n"
    ),
    "pkg/runner.py": (
        '"""Runners."""\n\n\nclass Runner:\n    """Runs jobs."""\n\n'
        '    def __call__(self, job):\n        """Run one job."""\n\n'
        "    def __enter__(self):\n        return self\n\n"
        '    def __iter__(self):\n        """Each job."""\n        return iter(())\n\n'
        "    def _helper(self):\n        pass\n"
    ),
    "pkg/reader.py": (
        '"""Reading."""\n\n\nclass Reader:\n    """Reads."""\n\n'
        '    def read(self):\n        """Read it all."""\n        return ""\n'
    ),
    "pkg/tag.py": '"""Tags."""\n\n\ndef make_tag(name):\n    """A tag."""\n    return name\n',
    "scripts/noise.py": "def main(f):\n    return f.read()\n",
    "scripts/uses.py": "from pkg.reader import Reader\n\n\ndef main(r: Reader):\n    return r.read()\n",
    "tests/data/cases/fmt.py": "from pkg.reader import Reader\n\nReader().read()\n",
    "tests/test_reader.py": (
        "from pkg.reader import Reader\n\n\ndef test_read():\n    assert Reader().read() == ''\n"
    ),
    "tests/test_tag.py": "def test_tags():\n    def tag():\n        return 1\n    assert tag()\n",
    "rs/src/lib.rs": (
        "//! A crate.\nuse std::io;\n\n/// A map.\npub struct Map<K, V> { k: K, v: V }\n\n"
        "impl<'de, K, V> Visitor<'de> for &'de Map<K, V> {\n"
        "    /// Visits.\n    fn visit(self) {}\n}\n\n"
        "/// The error.\npub struct Error;\n\n"
        "impl From<Error> for io::Error {\n    /// Converts.\n"
        "    fn from(e: Error) -> io::Error { todo!() }\n}\n\n"
        "impl Index for usize {\n    /// Indexes.\n    fn index_into(&self) {}\n}\n"
    ),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    root = tmp_path_factory.mktemp("surface")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    s = load_store(root)
    yield s
    s.close()


def page(store: SQLiteStore, target: str) -> str:
    root = Path(store.path).parent.parent
    return build_docs(
        target, reader=IndexReader(store), read=lambda p: (root / p).read_text()
    ).markdown


def test_go_package_page_lists_exported_var_and_const_blocks(store: SQLiteStore) -> None:
    md = page(store, "gopkg")
    assert "#### Variable `ErrClosed`" in md and "ErrClosed is returned after Close." in md
    assert "#### Constant `Fast`" in md and "#### Constant `Slow`" in md
    assert "`internal`" not in md


def test_javascript_members_of_the_exported_object(store: SQLiteStore) -> None:
    md = page(store, "web/response.js")
    assert "### Function `status`" in md and "Set the status `code`." in md
    assert "### Property `protocol`" in md and "The protocol." in md
    assert "### Function `setTimeout`" in md
    assert "delegate(res, 'socket').method('setTimeout')" in md
    assert "Module dependencies" not in md
    assert "### Function `set`" in md and "res.set = res.header = function header(field)" in md
    # `this` in a function the file adds to its exported object is that object
    used = page(store, "web/response.set")
    assert "Used by:\n\n- `web/response.json` (`web/response.js:44`)" in used


def test_javascript_exports_of_any_value_and_the_exported_function(store: SQLiteStore) -> None:
    md = page(store, "web/express.js")
    assert "### Function `createApplication`" in md and "Create an application." in md
    assert "### Variable `json`" in md and "The JSON parser." in md
    assert "etag" not in md  # @api private


def test_a_call_of_a_package_bound_to_the_same_name_is_no_use(store: SQLiteStore) -> None:
    md = page(store, "web/client.js")
    assert "test/client.test.js:6" in md  # client.request('/')
    assert "test/client.test.js:5" not in md  # request(app): supertest


def test_python_public_dunders_are_members(store: SQLiteStore) -> None:
    md = page(store, "pkg/runner.py")
    for name in ("__call__", "__enter__", "__iter__"):
        assert f"- `def {name}(self" in md
    assert "_helper" not in md


def test_rust_headings_have_no_lifetimes_and_foreign_types_are_foreign(
    store: SQLiteStore,
) -> None:
    md = page(store, "rs/src/lib.rs")
    assert "'de" not in "\n".join(line for line in md.split("\n") if line.startswith("#"))
    assert "### Struct `Map`" in md and "Visits." in md
    assert "### Methods for `io::Error` (a type declared outside this repository)" in md
    assert "### Methods for `usize` (a type declared outside this repository)" in md
    assert "crate::io::Error" not in md and "crate::usize" not in md


def test_name_only_uses_need_evidence_and_fixture_data_is_no_test(store: SQLiteStore) -> None:
    md = page(store, "pkg/reader.py")
    assert "scripts/uses.py:5" in md  # names Reader: a use
    assert "scripts/noise.py" not in md  # `f.read()` on anything: no use at all
    assert "tests/test_reader.py" in md
    assert "tests/data/cases/fmt.py" not in md


def test_a_module_in_words_is_the_module_never_a_test(store: SQLiteStore) -> None:
    asked = read_facets("сгенерируй документацию для модуля tag")
    module, tests = asked.names_module, asked.mentions_tests
    assert (module, tests) == (True, False)
    target = resolve_target("tag", IndexReader(store), module=module, tests=tests)
    assert (target.kind, target.value) == ("file", "pkg/tag.py")
    asked = read_facets("generate the docs of the tests in package tag")
    assert (asked.names_module, asked.mentions_tests) == (True, True)
    # a symbol that only a test defines is not the target unless tests are asked for
    assert resolve_target("tests.test_tag.test_tags", IndexReader(store)).kind == "symbol"
    with pytest.raises(UserError, match=r"tests\.test_tag\.test_tags"):
        resolve_target("tests.test_tag.test_tags", IndexReader(store), tests=False)


def test_a_required_package_is_not_the_member_of_the_same_name() -> None:
    import hashlib

    from ragstrata.core.rows import DefinitionRow, RelationRow, SourceFile
    from ragstrata.ingest.code import extract_code
    from ragstrata.relations.resolve import resolve_relations

    text = (
        "var send = require('send');\nvar local = function () {};\n"
        "var res = module.exports = {};\n"
        "res.send = function () { local(); };\n"
        "res.sendFile = function () { send(1); this.send(); };\n"
        "res.proto = {\n  get URL() { return new URL('http://x'); },\n};\n"
    )
    raw = text.encode()
    file = SourceFile(
        path="lib/response.js",
        language="javascript",
        is_test=False,
        is_doc=False,
        size=len(raw),
        mtime_ns=0,
        sha256=hashlib.sha256(raw).hexdigest(),
        text=text,
    )
    rows = extract_code(file)
    defs = [r for r in rows if isinstance(r, DefinitionRow)]
    rels = [r for r in rows if isinstance(r, RelationRow) and r.relation == "calls"]
    found = {(r.from_symbol, r.to_name): r.to_symbol for r in resolve_relations(defs, rels)}
    assert found[("lib/response.sendFile", "send")] is None  # the `send` package
    assert found[("lib/response.sendFile", "this.send")] == "lib/response.send"
    assert found[("lib/response.send", "local")] == "lib/response.local"
    # a getter binds no bare name: `new URL(...)` is the global, not the getter
    assert {d.symbol: d.kind for d in defs}["lib/response.URL"] == "property"
    assert found[("lib/response.URL", "URL")] is None
