"""Precise callers (issue 12, class 5): a call is resolved from what the code shows, and a
bare name match stays apart as "possible". Small fixtures in Python, Go, TypeScript, Java, Rust.

Each test extracts and resolves real files (tree-sitter, the repository resolver) and lists
callers the way ``store.relations()`` scores them (``relation_score``: 1.0/0.9 precise, 0.5
possible), then checks the sites line by line.
"""

from __future__ import annotations

import hashlib

import pytest

from ragstrata.core.names import relation_score
from ragstrata.core.rows import DefinitionRow, RelationRow, SourceFile
from ragstrata.ingest.code import extract_code
from ragstrata.relations.resolve import resolve_relations


def _file(language: str, path: str, text: str) -> SourceFile:
    raw = text.encode("utf-8")
    return SourceFile(
        path=path,
        language=language,
        is_test=False,
        is_doc=False,
        size=len(raw),
        mtime_ns=0,
        sha256=hashlib.sha256(raw).hexdigest(),
        text=text,
    )


class Repo:
    """Files extracted and resolved together, with callers as ``store.relations`` lists them."""

    def __init__(self, language: str, files: dict[str, str]) -> None:
        rows = [
            r for path, text in files.items() for r in extract_code(_file(language, path, text))
        ]
        self.defs = [r for r in rows if isinstance(r, DefinitionRow)]
        rels = [r for r in rows if isinstance(r, RelationRow)]
        self.relations = resolve_relations(self.defs, rels)
        symbols = {d.symbol for d in self.defs}
        self.symbols = symbols

    def _scored(self, target: str) -> dict[str, float]:
        assert target in self.symbols, f"{target!r} not defined; have {sorted(self.symbols)}"
        out: dict[str, float] = {}
        for r in self.relations:
            if r.relation != "calls":
                continue
            score = relation_score(r.from_symbol, r.to_name, r.to_symbol, target, "callers")
            if score > 0:
                key = f"{r.path}:{r.line}"
                out[key] = max(out.get(key, 0.0), score)
        return out

    def precise(self, target: str) -> set[str]:
        return {site for site, score in self._scored(target).items() if score >= 0.9}

    def possible(self, target: str) -> set[str]:
        return {site for site, score in self._scored(target).items() if score < 0.9}

    def call(self, path: str, line: int, to_name: str) -> RelationRow:
        for r in self.relations:
            if (r.relation, r.path, r.line, r.to_name) == ("calls", path, line, to_name):
                return r
        have = sorted((r.line, r.to_name) for r in self.relations if r.path == path)
        raise AssertionError(f"no call {to_name} at {path}:{line}; have {have}")


# --------------------------------------------------------------------------- Python

PY_WRAPPERS = {
    "app/middleware.py": (
        "class Outer:\n"  # 1
        "    def __init__(self, app):\n"  # 2
        "        self.app = app\n"  # 3
        "\n"  # 4
        "    def __call__(self, environ, start):\n"  # 5
        "        return self.app(environ, start)\n"  # 6
        "\n"  # 7
        "\n"  # 8
        "class Inner(Outer):\n"  # 9
        "    def __call__(self, environ, start):\n"  # 10
        "        return self.app(environ, start)\n"  # 11
    ),
    "app/core.py": (
        "class Application:\n"  # 1
        "    def app(self, environ, start):\n"  # 2
        "        return []\n"  # 3
        "\n"  # 4
        "    def run(self):\n"  # 5
        "        return self.app({}, None)\n"  # 6
    ),
}


def test_python_self_chains_of_wrappers_are_not_callers_of_another_class_method():
    repo = Repo("python", PY_WRAPPERS)
    # only the class's own self.app() is a precise caller; the wrappers' attribute calls are
    # at most possible
    assert repo.precise("app.core.Application.app") == {"app/core.py:6"}
    assert repo.possible("app.core.Application.app") == {
        "app/middleware.py:6",
        "app/middleware.py:11",
    }
    assert repo.call("app/middleware.py", 6, "self.app").resolution == "possible"


PY_SUPER = {
    "pkg/base.py": (
        "class Base:\n"  # 1
        "    def __init__(self, name):\n"  # 2
        "        self.name = name\n"  # 3
    ),
    "pkg/other.py": (
        "class Unrelated:\n"  # 1
        "    def __init__(self):\n"  # 2
        "        self.x = 1\n"  # 3
    ),
    "pkg/child.py": (
        "from pkg.base import Base\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "class Child(Base):\n"  # 4
        "    def __init__(self):\n"  # 5
        "        super().__init__('child')\n"  # 6
        "\n"  # 7
        "\n"  # 8
        "class Failure(Exception):\n"  # 9
        "    def __init__(self, msg):\n"  # 10
        "        super().__init__(msg)\n"  # 11
    ),
}


def test_python_super_calls_resolve_to_the_base_class_only():
    repo = Repo("python", PY_SUPER)
    assert repo.precise("pkg.base.Base.__init__") == {"pkg/child.py:6"}
    assert repo.precise("pkg.other.Unrelated.__init__") == set()
    # a base outside the repository: the code shows the target is not here
    assert repo.call("pkg/child.py", 11, "super().__init__").resolution == "external"


PY_SAME_NAME = {
    "svc/api.py": (
        "import os\n"  # 1
        "from svc import helpers as h\n"  # 2
        "from svc.helpers import fetch as grab\n"  # 3
        "\n"  # 4
        "\n"  # 5
        "def get(key):\n"  # 6
        "    return key\n"  # 7
        "\n"  # 8
        "\n"  # 9
        "class Cache:\n"  # 10
        "    def get(self, key):\n"  # 11
        "        return get(key)\n"  # 12
        "\n"  # 13
        "\n"  # 14
        "def use(client):\n"  # 15
        "    c = Cache()\n"  # 16
        "    c.get('a')\n"  # 17
        "    get('b')\n"  # 18
        "    client.get('c')\n"  # 19
        "    h.fetch()\n"  # 20
        "    grab()\n"  # 21
        "    return os.getcwd()\n"  # 22
    ),
    "svc/helpers.py": "def fetch():\n    return 1\n\n\ndef getcwd():\n    return '/'\n",
}


def test_python_free_function_and_method_of_the_same_name_stay_apart():
    repo = Repo("python", PY_SAME_NAME)
    assert repo.precise("svc.api.get") == {"svc/api.py:12", "svc/api.py:18"}
    assert repo.precise("svc.api.Cache.get") == {"svc/api.py:17"}  # c = Cache(); c.get()
    # a parameter of unknown type: only possible, never resolved as a global name
    assert "svc/api.py:19" in repo.possible("svc.api.Cache.get")
    assert repo.call("svc/api.py", 19, "client.get").receiver_type == "?"


def test_python_imported_aliases_and_external_modules():
    repo = Repo("python", PY_SAME_NAME)
    assert repo.precise("svc.helpers.fetch") == {"svc/api.py:20", "svc/api.py:21"}
    assert repo.precise("svc.helpers.getcwd") == set()
    assert repo.call("svc/api.py", 22, "os.getcwd").resolution == "external"


# --------------------------------------------------------------------------- Go

GO = {
    "context.go": (
        "package web\n"  # 1
        "\n"  # 2
        'import "example.com/shop/web/render"\n'  # 3
        'import "encoding/json"\n'  # 4
        "\n"  # 5
        "type Context struct{ index int }\n"  # 6
        "\n"  # 7
        "func (c *Context) reset() { c.index = 0 }\n"  # 8
        "\n"  # 9
        "func reset() {}\n"  # 10
        "\n"  # 11
        "func (c *Context) Next() {\n"  # 12
        "\tc.reset()\n"  # 13
        "\treset()\n"  # 14
        "\trender.Marshal(c)\n"  # 15
        "\tjson.Marshal(c)\n"  # 16
        "}\n"  # 17
    ),
    "engine.go": (
        "package web\n"  # 1
        "\n"  # 2
        "type Engine struct{}\n"  # 3
        "\n"  # 4
        "func New() *Engine { return &Engine{} }\n"  # 5
        "\n"  # 6
        "func (e *Engine) Run() {}\n"  # 7
        "\n"  # 8
        "func (c *Context) Run() {}\n"  # 9
        "\n"  # 10
        "func start(ctx *Context) {\n"  # 11
        "\te := New()\n"  # 12
        "\te.Run()\n"  # 13
        "\tctx.Run()\n"  # 14
        "}\n"  # 15
    ),
    "render/render.go": "package render\n\nfunc Marshal(v any) []byte { return nil }\n",
    "internal/json/json.go": "package json\n\nfunc Marshal(v any) ([]byte, error) { return nil, nil }\n",
}


def test_go_receiver_variables_and_bare_calls():
    repo = Repo("go", GO)
    assert repo.precise("web.Context.reset") == {"context.go:13"}
    assert repo.precise("web.reset") == {"context.go:14"}  # a bare call never names a method


def test_go_package_calls_follow_the_import_path():
    repo = Repo("go", GO)
    assert repo.precise("render.Marshal") == {"context.go:15"}
    # "encoding/json" is not the repository's internal/json package
    assert repo.precise("json.Marshal") == set()
    assert repo.call("context.go", 16, "json.Marshal").resolution == "external"


def test_go_constructor_results_and_typed_parameters():
    repo = Repo("go", GO)
    assert repo.precise("web.Engine.Run") == {"engine.go:13"}  # e := New() -> *Engine
    assert repo.precise("web.Context.Run") == {"engine.go:14"}  # ctx *Context


# --------------------------------------------------------------------------- TypeScript

TS = {
    "src/util.ts": "export function save(x: number) {\n  return x;\n}\n",
    "src/model.ts": (
        'import { save } from "./util";\n'  # 1
        "\n"  # 2
        "export class Base {\n"  # 3
        "  save() {\n"  # 4
        "    return 1;\n"  # 5
        "  }\n"  # 6
        "}\n"  # 7
        "\n"  # 8
        "export class Model extends Base {\n"  # 9
        "  handler: any;\n"  # 10
        "  save() {\n"  # 11
        "    super.save();\n"  # 12
        "    this.handler();\n"  # 13
        "    return save(2);\n"  # 14
        "  }\n"  # 15
        "  handler2() {\n"  # 16
        "    return this.save();\n"  # 17
        "  }\n"  # 18
        "}\n"  # 19
        "\n"  # 20
        "export function run(other: any) {\n"  # 21
        "  const m = new Model();\n"  # 22
        "  m.save();\n"  # 23
        "  other.save();\n"  # 24
        "}\n"  # 25
    ),
    "src/app.ts": "export class App {\n  handler() {\n    return 0;\n  }\n}\n",
}


def test_typescript_this_super_new_and_imports():
    repo = Repo("typescript", TS)
    assert repo.precise("src/model.Base.save") == {"src/model.ts:12"}  # super.save()
    assert repo.precise("src/model.Model.save") == {"src/model.ts:17", "src/model.ts:23"}
    assert repo.precise("src/util.save") == {"src/model.ts:14"}  # bare name: the import
    assert repo.precise("src/app.App.handler") == set()  # this.handler is a field
    assert "src/model.ts:24" in repo.possible("src/model.Model.save")


# --------------------------------------------------------------------------- Java

JAVA = {
    "src/main/java/com/shop/Base.java": (
        "package com.shop;\n"  # 1
        "\n"  # 2
        "public class Base {\n"  # 3
        "    public void append(String s) {}\n"  # 4
        "    public void close() {}\n"  # 5
        "}\n"  # 6
    ),
    "src/main/java/com/shop/Order.java": (
        "package com.shop;\n"  # 1
        "\n"  # 2
        "public class Order extends Base {\n"  # 3
        "    private Base delegate;\n"  # 4
        "\n"  # 5
        "    @Override\n"  # 6
        "    public void close() {\n"  # 7
        "        super.close();\n"  # 8
        "        this.delegate.close();\n"  # 9
        "        StringBuilder sb = new StringBuilder();\n"  # 10
        '        sb.append("x");\n'  # 11
        '        append("y");\n'  # 12
        "        var o = new Order();\n"  # 13
        "        o.close();\n"  # 14
        '        delegate.append("z");\n'  # 15
        "    }\n"  # 16
        "}\n"  # 17
    ),
}


def test_java_super_fields_locals_and_foreign_types():
    repo = Repo("java", JAVA)
    base_close = "com.shop.Base.close"
    assert repo.precise(base_close) == {
        "src/main/java/com/shop/Order.java:8",  # super.close()
        "src/main/java/com/shop/Order.java:9",  # this.delegate: Base
    }
    assert repo.precise("com.shop.Order.close") == {"src/main/java/com/shop/Order.java:14"}
    # StringBuilder.append is not the repository's Base.append; a bare append() is (inherited)
    assert repo.precise("com.shop.Base.append") == {
        "src/main/java/com/shop/Order.java:12",
        "src/main/java/com/shop/Order.java:15",
    }
    sb = repo.call("src/main/java/com/shop/Order.java", 11, "sb.append")
    assert (sb.to_symbol, sb.resolution) == (None, "external")


# --------------------------------------------------------------------------- Rust

RUST = {
    "src/lib.rs": "pub mod util;\npub mod fmt;\n",
    "src/util.rs": "pub fn helper() -> u8 {\n    1\n}\n\npub fn format(x: u8) -> u8 {\n    x\n}\n",
    "src/fmt.rs": (
        "use crate::util;\n"  # 1
        "\n"  # 2
        "pub struct Template {\n"  # 3
        "    n: u8,\n"  # 4
        "}\n"  # 5
        "\n"  # 6
        "impl Template {\n"  # 7
        "    pub fn new() -> Self {\n"  # 8
        "        Self::with(0)\n"  # 9
        "    }\n"  # 10
        "\n"  # 11
        "    fn with(n: u8) -> Self {\n"  # 12
        "        Template { n }\n"  # 13
        "    }\n"  # 14
        "\n"  # 15
        "    pub fn render(&self) -> String {\n"  # 16
        "        self.check();\n"  # 17
        '        format!("{}", util::helper()) + &format(util::helper()).to_string()\n'  # 18
        "    }\n"  # 19
        "\n"  # 20
        "    fn check(&self) {}\n"  # 21
        "}\n"  # 22
        "\n"  # 23
        "pub fn run() -> String {\n"  # 24
        "    let t = Template::new();\n"  # 25
        "    t.render()\n"  # 26
        "}\n"  # 27
    ),
}


def test_rust_type_paths_self_and_locals():
    repo = Repo("rust", RUST)
    assert repo.precise("crate::fmt::Template::new") == {"src/fmt.rs:25"}
    assert repo.precise("crate::fmt::Template::with") == {"src/fmt.rs:9"}  # Self::with
    assert repo.precise("crate::fmt::Template::check") == {"src/fmt.rs:17"}
    assert repo.precise("crate::fmt::Template::render") == {"src/fmt.rs:26"}  # let t = T::new()
    assert repo.precise("crate::util::helper") == {"src/fmt.rs:18"}


def test_rust_macros_are_not_the_function_of_the_same_name():
    repo = Repo("rust", RUST)
    # ``format!`` is a macro; the bare ``format(..)`` beside it is not imported by
    # ``use crate::util`` (that binds ``util`` only), so it is only possible
    assert repo.precise("crate::util::format") == set()
    assert repo.possible("crate::util::format") == {"src/fmt.rs:18"}
    assert repo.call("src/fmt.rs", 18, "format!").resolution == "external"


RUST_REEXPORT = {
    # the crate root brings `parse_spec` in from its own module; a sibling module imports it
    # from the root (`use crate::parse_spec;`), as env_logger's filter crate does
    "crates/filter/src/lib.rs": "mod parser;\nmod filter;\n\nuse parser::parse_spec;\n",
    "crates/filter/src/parser.rs": (
        "pub(crate) fn parse_spec(spec: &str) -> usize {\n"  # 1
        "    spec.len()\n"  # 2
        "}\n"  # 3
    ),
    "crates/filter/src/filter.rs": (
        "use crate::parse_spec;\n"  # 1
        "\n"  # 2
        "pub fn parse(filters: &str) -> usize {\n"  # 3
        "    parse_spec(filters)\n"  # 4
        "}\n"  # 5
    ),
}


def test_rust_a_name_the_crate_root_imports_resolves_to_its_definition():
    repo = Repo("rust", RUST_REEXPORT)
    # `use crate::parse_spec` names the root's `use parser::parse_spec`: a precise caller
    assert repo.precise("crate::parser::parse_spec") == {"crates/filter/src/filter.rs:4"}
    assert repo.possible("crate::parser::parse_spec") == set()


RUST_NEWTYPE = {
    # a public tuple struct wrapping the byte-level one, as shlex and once_cell do
    "src/lib.rs": (
        "pub mod bytes;\n"  # 1
        "\n"  # 2
        "pub struct Lexer<'a>(bytes::Lexer<'a>, usize);\n"  # 3
        "\n"  # 4
        "impl<'a> Lexer<'a> {\n"  # 5
        "    pub fn next_word(&mut self) -> Option<String> {\n"  # 6
        "        self.0.next_word().map(|w| String::from_utf8(w).unwrap())\n"  # 7
        "    }\n"  # 8
        "\n"  # 9
        "    pub fn count(&self) -> usize {\n"  # 10
        "        self.1.count()\n"  # 11
        "    }\n"  # 12
        "}\n"  # 13
    ),
    "src/bytes.rs": (
        "pub struct Lexer<'a> {\n"  # 1
        "    input: &'a [u8],\n"  # 2
        "}\n"  # 3
        "\n"  # 4
        "impl<'a> Lexer<'a> {\n"  # 5
        "    pub fn next_word(&mut self) -> Option<Vec<u8>> {\n"  # 6
        "        Some(self.input.to_vec())\n"  # 7
        "    }\n"  # 8
        "\n"  # 9
        "    pub fn count(&self) -> usize {\n"  # 10
        "        self.input.len()\n"  # 11
        "    }\n"  # 12
        "}\n"  # 13
    ),
}


def test_rust_a_tuple_struct_field_is_named_by_its_position():
    repo = Repo("rust", RUST_NEWTYPE)
    # `self.0` is the wrapped `bytes::Lexer`: its `next_word` is called, precisely
    assert repo.precise("crate::bytes::Lexer::next_word") == {"src/lib.rs:7"}
    # `self.1` is a `usize`: its `count()` is no call of `bytes::Lexer::count`
    assert repo.precise("crate::bytes::Lexer::count") == set()


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    ("to_name", "to_symbol", "target", "score"),
    [
        ("c.ValidateStruct", "v.Validator.ValidateStruct", "v.Validator.ValidateStruct", 1.0),
        # a resolved call of another symbol that differs only in case is no caller
        ("c.ValidateStruct", "v.Validator.ValidateStruct", "v.Validator.validateStruct", 0.0),
        ("Validator.ValidateStruct", "v.Validator.ValidateStruct", "Validator.ValidateStruct", 0.9),
        # unresolved: a possible caller, however much of the name matches
        ("Validator.ValidateStruct", None, "v.Validator.ValidateStruct", 0.5),
        ("x.ValidateStruct", None, "v.Validator.ValidateStruct", 0.5),
        ("x.other", None, "v.Validator.ValidateStruct", 0.0),
    ],
)
def test_relation_score_separates_precise_from_possible(to_name, to_symbol, target, score):
    assert relation_score("caller", to_name, to_symbol, target, "callers") == score
