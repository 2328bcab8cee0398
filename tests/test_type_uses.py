"""Uses of things that are not functions are precise relations (issue 23, class 5).

Go ``T{}`` / ``&pkg.T{}`` and Rust ``T { .. }`` are ``constructs``; the types a parameter,
result, field or variable names are ``references`` (one per definition and type); a Go call
through an aliased import resolves; a Rust ``name!`` and a C macro of an included header are
uses of the macro; an anonymous
``module.exports = function`` is a definition named after its file; tests never lead a list
of uses when the code has others. Real extraction and resolution, real SQLite, the facade.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragstrata.app.facade import Ragstrata
from ragstrata.core.rows import DefinitionRow, RelationRow
from ragstrata.core.values import Direction
from ragstrata.relations.repository import ingest_repository
from ragstrata.retrieve.resolve import SymbolResolver
from ragstrata.settings import EmbedderSettings, IndexSettings, Settings

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "cart/cart.go": """
        package cart

        // Item is one line of a cart.
        type Item struct {
        \tSKU   string
        \tCount int
        }

        // Cart holds the items a customer picked.
        type Cart struct {
        \tItems []Item
        }

        // Total counts the items.
        func Total(c *Cart) int {
        \tn := 0
        \tfor _, it := range c.Items {
        \t\tn += it.Count
        \t}
        \treturn n
        }

        // NewCart starts an empty cart.
        func NewCart() *Cart {
        \treturn &Cart{}
        }
        """,
    "cart/cart_test.go": """
        package cart

        import "testing"

        func TestTotal(t *testing.T) {
        \tc := Cart{Items: []Item{{SKU: "a", Count: 2}}}
        \tif Total(&c) != 2 {
        \t\tt.Fatal("total")
        \t}
        }
        """,
    "cmd/shop/main.go": """
        package main

        import (
        \t"fmt"

        \tshop "example.com/shop/cart"
        )

        func checkout(c *shop.Cart) {
        \tfmt.Println(shop.Total(c))
        }

        func main() {
        \tc := shop.Cart{Items: []shop.Item{{SKU: "x", Count: 1}}}
        \tcheckout(&c)
        }
        """,
    "Cargo.toml": '[package]\nname = "opts"\nversion = "0.1.0"\n',
    "src/lib.rs": """
        pub mod options;
        use crate::options::Options;

        /// Fails the function unless the condition holds.
        macro_rules! ensure {
            ($cond:expr) => {
                if !$cond {
                    return None;
                }
            };
        }

        /// Options for a name, when it is not empty.
        pub fn options_for(name: &str) -> Option<Options> {
            ensure!(!name.is_empty());
            Some(Options { name: name.to_string() })
        }
        """,
    "src/options.rs": "/// What a run is configured with.\npub struct Options {\n    pub name: String,\n}\n",
    "lib/send.js": """
        /**
         * Sends a file to the response.
         */
        module.exports = function (req, res, path) {
          return res.sendFile(path);
        };
        """,
    "native/util.h": """
        #define MAX(a, b) ((a) > (b) ? (a) : (b))
        int clamp(int v, int hi);
        """,
    "native/main.c": """
        #include "util.h"

        int biggest(int a, int b) {
            return clamp(MAX(a, b), 100);
        }
        """,
    "lib/index.js": """
        var send = require('./send');

        module.exports = function (app) {
          app.use(send);
        };
        """,
}


def _write(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[object]:
    root = _write(tmp_path_factory.mktemp("uses"))
    return [r for fr in ingest_repository(root, IndexSettings()).files for r in fr.rows]


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    root = _write(tmp_path_factory.mktemp("uses_index"))
    repo = Ragstrata(root, Settings(embedder=EmbedderSettings(provider="hash", dimensions=64)))
    repo.index()
    yield repo
    repo.close()


def _relations(rows: list[object], relation: str) -> set[tuple[str, int, str, str | None, str]]:
    return {
        (r.path, r.line, r.from_symbol, r.to_symbol, r.resolution)
        for r in rows
        if isinstance(r, RelationRow) and r.relation == relation
    }


def test_go_constructions_and_type_references_are_exact(rows: list[object]) -> None:
    constructs = _relations(rows, "constructs")
    assert ("cart/cart.go", 25, "cart.NewCart", "cart.Cart", "exact") in constructs
    assert ("cmd/shop/main.go", 14, "main.main", "cart.Cart", "exact") in constructs
    assert ("cmd/shop/main.go", 14, "main.main", "cart.Item", "exact") in constructs
    assert ("cart/cart_test.go", 6, "cart.TestTotal", "cart.Cart", "exact") in constructs
    refs = _relations(rows, "references")
    assert ("cart/cart.go", 15, "cart.Total", "cart.Cart", "exact") in refs
    assert ("cart/cart.go", 11, "cart.Cart", "cart.Item", "exact") in refs  # a field's type
    assert ("cart/cart.go", 24, "cart.NewCart", "cart.Cart", "exact") in refs  # the result
    assert ("cmd/shop/main.go", 9, "main.checkout", "cart.Cart", "exact") in refs
    # builtin types are no references; one row per definition and type
    names = {r.to_name for r in rows if isinstance(r, RelationRow) and r.relation == "references"}
    assert not names & {"int", "string", "error"}
    assert len([r for r in refs if r[2] == "cart.Total"]) == 1


def test_go_call_through_an_aliased_import_is_exact(rows: list[object]) -> None:
    calls = _relations(rows, "calls")
    assert ("cmd/shop/main.go", 10, "main.checkout", "cart.Total", "exact") in calls


def test_rust_struct_expression_and_macro_invocation(rows: list[object]) -> None:
    constructs = _relations(rows, "constructs")
    assert ("src/lib.rs", 16, "crate::options_for", "crate::options::Options", "exact") in (
        constructs
    )
    refs = _relations(rows, "references")
    assert ("src/lib.rs", 14, "crate::options_for", "crate::options::Options", "exact") in refs
    calls = _relations(rows, "calls")
    assert ("src/lib.rs", 15, "crate::options_for", "crate::ensure", "exact") in calls


def test_c_macro_and_function_of_an_included_header_are_exact(rows: list[object]) -> None:
    calls = _relations(rows, "calls")
    assert ("native/main.c", 4, "biggest", "MAX", "exact") in calls
    assert ("native/main.c", 4, "biggest", "clamp", "exact") in calls


def test_anonymous_module_exports_is_named_after_its_file(rows: list[object]) -> None:
    defs = {(r.path, r.name, r.kind) for r in rows if isinstance(r, DefinitionRow) and r.language}
    assert ("lib/send.js", "send", "function") in defs
    assert ("lib/index.js", "lib", "function") in defs  # an index file: its folder's name


def test_uses_of_a_struct_lead_with_non_test_code(rs: Ragstrata) -> None:
    result = rs.ask("Where is the Cart struct used?")
    answer = result.answer
    assert answer.status != "not_found"
    assert answer.lead.startswith("`cart.Cart` is used in")
    assert "cart_test.go" not in answer.lead.split(":", 1)[1].split(",")[0]
    text = answer.text
    assert "**Used in:**" in text and "No uses of" not in text
    listed = text.split("**Used in:**", 1)[1]
    assert listed.index("cmd/shop/main.go") < listed.index("cart/cart_test.go")


def test_uses_in_russian(rs: Ragstrata) -> None:
    answer = rs.ask("Где используется структура Item?").answer
    assert answer.lead.startswith("`cart.Item` используется в местах")


def test_tests_never_lead_the_relations(rs: Ragstrata) -> None:
    found = SymbolResolver(rs.store).relations("cart.Total", Direction.CALLERS)
    paths = [h.path for h in found]
    assert paths[0] == "cmd/shop/main.go" and "cart/cart_test.go" in paths
    first_test = next(i for i, h in enumerate(found) if h.row.is_test)
    assert all(not h.row.is_test for h in found[:first_test])


def test_module_exports_function_is_found_by_name(rs: Ragstrata) -> None:
    answer = rs.ask("Where is the send function defined?").answer
    assert answer.status != "not_found"
    assert answer.citations[0].path == "lib/send.js"
