"""Code structure extraction (C0-C3) on one small realistic fixture per language."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ragstrata.core.rows import ChunkRow, DefinitionRow, FileRow, Layer, RelationRow, SourceFile
from ragstrata.errors import ConfigError
from ragstrata.ingest.code import extract_code, supported_languages
from ragstrata.relations.resolve import resolve_relations

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "code"


def _file(language: str, path: str, text: str, *, is_test: bool = False) -> SourceFile:
    raw = text.encode("utf-8")
    return SourceFile(
        path=path,
        language=language,
        is_test=is_test,
        is_doc=False,
        size=len(raw),
        mtime_ns=0,
        sha256=hashlib.sha256(raw).hexdigest(),
        text=text,
    )


def _fixture(language: str, path: str) -> SourceFile:
    text = (FIXTURES / language / path).read_text(encoding="utf-8")
    return _file(language, path, text)


class Extracted:
    def __init__(self, *files: SourceFile, chunk_size: int = 1200) -> None:
        self.rows = [r for f in files for r in extract_code(f, chunk_size=chunk_size)]
        self.texts = {f.path: f.text for f in files}
        self.files = [r for r in self.rows if isinstance(r, FileRow)]
        self.defs = [r for r in self.rows if isinstance(r, DefinitionRow)]
        self.raw_relations = [r for r in self.rows if isinstance(r, RelationRow)]
        self.relations = resolve_relations(self.defs, self.raw_relations)
        self.chunks = [r for r in self.rows if isinstance(r, ChunkRow)]

    def d(self, symbol: str) -> DefinitionRow:
        hits = [d for d in self.defs if d.symbol == symbol]
        assert hits, f"no definition {symbol!r}; have {sorted(d.symbol for d in self.defs)}"
        return hits[0]

    def rel(self, relation: str, source: str, to_name: str, line: int | None = None) -> RelationRow:
        for r in self.relations:
            if (r.relation, r.from_symbol, r.to_name) == (relation, source, to_name) and (
                line is None or r.line == line
            ):
                return r
        have = sorted((r.relation, r.from_symbol, r.to_name) for r in self.relations)
        raise AssertionError(f"no {relation} {source} -> {to_name}; have {have}")


# (language, path in fixtures and repo), definitions: symbol -> (kind, parent, start, end,
# exported), docstrings, decorators, relations: (relation, from, to_name, line, to_symbol)
CASES = {
    "python": dict(
        files=["src/shop/cart.py", "src/shop/pricing.py"],
        defs={
            "shop.cart": ("module", None, 1, 1, True),
            "shop.cart.MAX_ITEMS": ("constant", None, 8, 8, True),
            "shop.cart.CartError": ("class", None, 11, 12, True),
            "shop.cart.Cart": ("class", None, 15, 38, True),
            "shop.cart.Cart.__init__": ("method", "shop.cart.Cart", 18, 20, True),
            "shop.cart.Cart.total": ("method", "shop.cart.Cart", 23, 26, True),
            "shop.cart.Cart.checkout": ("method", "shop.cart.Cart", 28, 32, True),
            "shop.cart.Cart._validate": ("method", "shop.cart.Cart", 34, 38, False),
            "shop.cart.Cart._validate.check": ("function", "shop.cart.Cart._validate", 35, 36, False),
            "shop.cart.make_cart": ("function", None, 41, 45, True),
            "shop.pricing.apply_discount": ("function", None, 4, 5, True),
        },
        docs={
            "shop.cart": "Shopping cart: items, totals and checkout.",
            "shop.cart.Cart": "A customer's shopping cart.",
            "shop.cart.Cart.total": "Sum of the item prices after discount.",
            "shop.cart.Cart.checkout": None,
        },
        decorators={"shop.cart.Cart.total": ("property",)},
        signatures={
            "shop.cart.Cart.checkout": "async def checkout(self, gateway, *, retries: int = 3):",
            "shop.cart.Cart": "class Cart(BaseCart, metaclass=Registry):",
        },
        relations=[
            ("imports", "shop.cart", "logging", 3, None),
            ("imports", "shop.cart", ".pricing.apply_discount", 5, "shop.pricing.apply_discount"),
            ("inherits", "shop.cart.Cart", "BaseCart", 15, "shop.pricing.BaseCart"),
            ("imports", "shop.cart", ".pricing.Registry", 5, "shop.pricing.Registry"),
            ("inherits", "shop.cart.CartError", "Exception", 11, None),
            ("calls", "shop.cart.Cart.total", "apply_discount", 26, "shop.pricing.apply_discount"),
            ("calls", "shop.cart.Cart.checkout", "gateway.charge", 32, None),
            ("calls", "shop.cart.Cart.checkout", "CartError", 30, "shop.cart.CartError"),
            ("calls", "shop.cart.Cart._validate", "check", 38, "shop.cart.Cart._validate.check"),
            ("calls", "shop.cart.make_cart", "Cart", 43, "shop.cart.Cart"),
            ("calls", "shop.cart", "logging.getLogger", 7, None),
            ("contains", "shop.cart.Cart", "shop.cart.Cart.total", 23, "shop.cart.Cart.total"),
        ],
        file_imports=("logging", ".pricing"),
        file_symbols=("MAX_ITEMS", "CartError", "Cart", "make_cart"),
    ),
    "javascript": dict(
        files=["api.js"],
        defs={
            "api.Client": ("class", None, 8, 18, True),
            "api.Client.constructor": ("method", "api.Client", 9, 11, True),
            "api.Client.get": ("method", "api.Client", 14, 17, True),
            "api.LoggingClient": ("class", None, 21, 26, False),
            "api.makeClient": ("function", None, 28, 30, True),
            "api.DEFAULT_TIMEOUT": ("constant", None, 32, 32, True),
            "api.wait": ("function", None, 34, 36, False),
        },
        docs={
            "api.Client": "Base HTTP client.",
            "api.Client.get": "Fetch one resource.",
            "api.LoggingClient": "A client that logs every call.",
        },
        signatures={"api.Client.get": "async get(resource)", "api.wait": "const wait = async (ms) =>"},
        relations=[
            ("imports", "api", "./util.js", 2, None),
            ("imports", "api", "path", 3, None),
            ("inherits", "api.LoggingClient", "Client", 21, "api.Client"),
            ("calls", "api.Client.get", "path.join", 15, None),
            ("calls", "api.Client.get", "retry", 16, None),
            ("calls", "api.makeClient", "LoggingClient", 29, "api.LoggingClient"),
            ("calls", "api.wait", "sleep", 35, None),
        ],
        file_imports=("axios", "./util.js", "path"),
    ),
    "typescript": dict(
        files=["service.ts"],
        defs={
            "service.Entity": ("interface", None, 5, 8, True),
            "service.Entity.save": ("method", "service.Entity", 7, 7, True),
            "service.UserId": ("type_alias", None, 10, 10, True),
            "service.Role": ("enum", None, 12, 15, True),
            "service.UserService": ("class", None, 21, 37, True),
            "service.UserService.find": ("method", "service.UserService", 28, 32, True),
            "service.UserService.remember": ("method", "service.UserService", 34, 36, False),
            "service.createService": ("function", None, 39, 41, True),
        },
        docs={"service.UserService": "Loads and saves users.", "service.Entity": "Something that can be stored."},
        decorators={"service.UserService": ("Injectable()",)},
        relations=[
            ("inherits", "service.UserService", "BaseService", 21, None),
            ("implements", "service.UserService", "Repository", 21, None),
            ("calls", "service.UserService.find", "this.remember", 30, "service.UserService.remember"),
            ("calls", "service.UserService.find", "this.client.get", 29, None),
            ("calls", "service.createService", "UserService", 40, "service.UserService"),
            ("imports", "service", "@angular/core", 1, None),
        ],
    ),
    "tsx": dict(
        files=["Button.tsx"],
        defs={
            "Button.ButtonProps": ("interface", None, 3, 6, False),
            "Button.Button": ("function", None, 9, 16, True),
            "Button.IconButton": ("function", None, 18, 18, True),
            "Button.Panel": ("class", None, 20, 24, True),
            "Button.Panel.render": ("method", "Button.Panel", 21, 23, True),
        },
        docs={"Button.Button": "A button that counts its clicks."},
        relations=[
            ("calls", "Button.Button", "useState", 10, None),
            ("inherits", "Button.Panel", "React.Component", 20, None),
            ("imports", "Button", "react", 1, None),
        ],
    ),
    "go": dict(
        files=["server.go"],
        defs={
            "server.MaxBody": ("constant", None, 12, 12, True),
            "server.Handler": ("interface", None, 15, 17, True),
            "server.Handler.ServeHTTP": ("method", "server.Handler", 16, 16, True),
            "server.Server": ("struct", None, 20, 24, True),
            "server.New": ("function", None, 27, 29, True),
            "server.Server.Start": ("method", "server.Server", 32, 35, True),
            "server.Server.handler": ("method", "server.Server", 37, 39, False),
        },
        docs={
            "server.Server": "Server holds the listening state.",
            "server.Server.Start": "Start begins listening.",
            "server.MaxBody": "MaxBody is the largest accepted request body.",
            "server.Server.handler": None,
        },
        signatures={"server.Server.Start": "func (s *Server) Start() error"},
        relations=[
            ("imports", "server", "net/http", 6, None),
            ("imports", "server", "example.com/shop/store", 8, None),
            ("inherits", "server.Server", "Base", 21, None),
            ("calls", "server.New", "store.Open", 28, None),
            ("calls", "server.Server.Start", "s.handler", 34, "server.Server.handler"),
            ("calls", "server.Server.Start", "fmt.Println", 33, None),
            ("contains", "server.Server", "server.Server.Start", 32, "server.Server.Start"),
        ],
    ),
    "java": dict(
        files=["com/example/shop/OrderService.java"],
        defs={
            "com.example.shop.OrderService": ("class", None, 9, 40, True),
            "com.example.shop.OrderService.LIMIT": ("constant", "com.example.shop.OrderService", 13, 13, True),
            "com.example.shop.OrderService.OrderService": ("method", "com.example.shop.OrderService", 16, 18, True),
            "com.example.shop.OrderService.place": ("method", "com.example.shop.OrderService", 23, 29, True),
            "com.example.shop.OrderService.audit": ("method", "com.example.shop.OrderService", 31, 33, False),
            "com.example.shop.OrderService.Listener": ("interface", "com.example.shop.OrderService", 35, 37, False),
            "com.example.shop.OrderService.Status": ("enum", "com.example.shop.OrderService", 39, 39, False),
        },
        docs={
            "com.example.shop.OrderService": "Places and lists orders.",
            "com.example.shop.OrderService.place": "Places an order.",
            "com.example.shop.OrderService.OrderService": "Creates the service.",
        },
        decorators={"com.example.shop.OrderService.place": ("Override",), "com.example.shop.OrderService": ("Service",)},
        relations=[
            ("imports", "com.example.shop", "java.util.List", 3, None),
            ("inherits", "com.example.shop.OrderService", "BaseService", 10, None),
            ("implements", "com.example.shop.OrderService", "Closeable", 10, None),
            ("implements", "com.example.shop.OrderService", "Auditable", 10, None),
            ("calls", "com.example.shop.OrderService.place", "orders.add", 26, None),
            ("calls", "com.example.shop.OrderService.place", "audit", 27, "com.example.shop.OrderService.audit"),
            ("calls", "com.example.shop.OrderService.audit", "System.out.println", 32, None),
        ],
    ),
    "rust": dict(
        files=["src/shapes/circle.rs"],
        defs={
            "crate::shapes::circle::PI": ("constant", None, 7, 7, True),
            "crate::shapes::circle::Circle": ("struct", None, 11, 14, True),
            "crate::shapes::circle::Kind": ("enum", None, 16, 19, True),
            "crate::shapes::circle::Shape": ("trait", None, 21, 23, True),
            "crate::shapes::circle::Circle::new": ("method", "crate::shapes::circle::Circle", 27, 29, True),
            "crate::shapes::circle::Circle::diameter": ("method", "crate::shapes::circle::Circle", 31, 33, False),
            "crate::shapes::circle::Circle::area": ("method", "crate::shapes::circle::Circle", 37, 39, True),
            "crate::shapes::circle::Radius": ("type_alias", None, 42, 42, True),
            "crate::shapes::circle::helpers": ("module", None, 44, 48, False),
            "crate::shapes::circle::helpers::clamp": ("function", "crate::shapes::circle::helpers", 45, 47, True),
            "crate::shapes::circle::describe": ("function", None, 50, 53, False),
        },
        docs={
            "crate::shapes::circle::Circle": "A circle in the plane.",
            "crate::shapes::circle::Circle::new": "Makes a circle.",
            "crate::shapes::circle::PI": "Pi, rounded.",
        },
        decorators={"crate::shapes::circle::Circle": ("derive(Debug, Clone)",)},
        relations=[
            ("imports", "crate::shapes::circle", "std::fmt", 3, None),
            ("imports", "crate::shapes::circle", "crate::shapes::Area", 4, None),
            ("imports", "crate::shapes::circle", "crate::shapes::Point", 4, None),
            ("implements", "crate::shapes::circle::Circle", "Shape", 36, "crate::shapes::circle::Shape"),
            ("calls", "crate::shapes::circle::describe", "helpers::clamp", 51,
             "crate::shapes::circle::helpers::clamp"),
            ("calls", "crate::shapes::circle::describe", "c.area", 51, "crate::shapes::circle::Circle::area"),
        ],
    ),
    "c": dict(
        files=["buffer.c"],
        defs={
            "INITIAL_CAP": ("constant", None, 4, 4, True),
            "buffer": ("struct", None, 7, 10, True),
            "buffer_t": ("type_alias", None, 12, 12, True),
            "mode": ("enum", None, 14, 14, True),
            "grow": ("function", None, 17, 22, False),
            "buffer_append": ("function", None, 27, 32, True),
        },
        docs={
            "grow": "Grow the buffer to at least cap bytes.",
            "buffer_append": "Append n bytes.",
            "buffer": "A growable byte buffer.",
        },
        signatures={"grow": "static int grow(buffer_t *b, size_t cap)"},
        relations=[
            ("imports", "buffer.c", "stdlib.h", 1, None),
            ("imports", "buffer.c", "buffer.h", 2, None),
            ("calls", "buffer_append", "grow", 28, "grow"),
            ("calls", "grow", "realloc", 18, None),
        ],
    ),
    "cpp": dict(
        files=["shape.cpp"],
        defs={
            "geo::Shape": ("class", None, 7, 11, True),
            "geo::Shape::area": ("method", "geo::Shape", 10, 10, True),
            "geo::Circle": ("class", None, 14, 20, True),
            "geo::Circle::Circle": ("method", "geo::Circle", 16, 16, True),
            "geo::Circle::area": ("method", "geo::Circle", 17, 17, True),
            "geo::Point": ("struct", None, 22, 22, True),
            "geo::distance": ("function", None, 25, 27, True),
            "geo::Circle::perimeter": ("method", "geo::Circle", 29, 31, True),
        },
        docs={"geo::Shape": "Base of every shape.", "geo::distance": "Distance between points."},
        relations=[
            ("inherits", "geo::Circle", "Shape", 14, "geo::Shape"),
            ("calls", "geo::distance", "std::sqrt", 26, None),
            ("calls", "geo::Circle::area", "std::pow", 17, None),
            ("imports", "shape.cpp", "cmath", 1, None),
        ],
    ),
    "csharp": dict(
        files=["Inventory.cs"],
        defs={
            "Shop.Inventory.IItem": ("interface", None, 7, 10, True),
            "Shop.Inventory.Warehouse": ("class", None, 13, 31, True),
            "Shop.Inventory.Warehouse.Add": ("method", "Shop.Inventory.Warehouse", 21, 25, True),
            "Shop.Inventory.Warehouse.Count": ("method", "Shop.Inventory.Warehouse", 27, 30, False),
            "Shop.Inventory.Warehouse.Sku": ("property", "Shop.Inventory.Warehouse", 18, 18, True),
            "Shop.Inventory.Slot": ("struct", None, 33, 33, True),
            "Shop.Inventory.Zone": ("enum", None, 35, 35, True),
        },
        docs={"Shop.Inventory.Warehouse": "Tracks stock.", "Shop.Inventory.Warehouse.Add": "Adds stock."},
        decorators={"Shop.Inventory.Warehouse": ("Serializable",)},
        relations=[
            ("imports", "Inventory.cs", "System.Collections.Generic", 2, None),
            ("inherits", "Shop.Inventory.Warehouse", "Building", 14, None),
            ("implements", "Shop.Inventory.Warehouse", "IItem", 14, "Shop.Inventory.IItem"),
            ("calls", "Shop.Inventory.Warehouse.Add", "Count", 23, "Shop.Inventory.Warehouse.Count"),
            ("calls", "Shop.Inventory.Warehouse.Add", "Console.WriteLine", 24, None),
        ],
    ),
    "ruby": dict(
        files=["account.rb"],
        defs={
            "Bank": ("module", None, 4, 34, True),
            "Bank::Account": ("class", "Bank", 7, 33, True),
            "Bank::Account::LIMIT": ("constant", "Bank::Account", 10, 10, True),
            "Bank::Account#initialize": ("method", "Bank::Account", 12, 15, True),
            "Bank::Account#deposit": ("method", "Bank::Account", 18, 22, True),
            "Bank::Account#open": ("method", "Bank::Account", 24, 26, True),
            "Bank::Account#validate!": ("method", "Bank::Account", 30, 32, False),
        },
        docs={"Bank::Account": "A customer account.\nHolds a balance.", "Bank::Account#deposit": "Deposit money."},
        relations=[
            ("imports", "account.rb", "json", 1, None),
            ("imports", "account.rb", "ledger", 2, None),
            ("inherits", "Bank::Account", "Base", 7, None),
            ("implements", "Bank::Account", "Comparable", 8, None),
            ("calls", "Bank::Account#deposit", "validate!", 19, "Bank::Account#validate!"),
            ("calls", "Bank::Account#deposit", "Ledger.record", 21, None),
        ],
    ),
    "php": dict(
        files=["UserRepository.php"],
        defs={
            "App\\Repository\\UserRepository": ("class", None, 11, 32, True),
            "App\\Repository\\UserRepository::TABLE": ("constant", "App\\Repository\\UserRepository", 13, 13, True),
            "App\\Repository\\UserRepository::find": ("method", "App\\Repository\\UserRepository", 22, 26, True),
            "App\\Repository\\UserRepository::hydrate": ("method", "App\\Repository\\UserRepository", 28, 31, False),
            "App\\Repository\\RepositoryInterface": ("interface", None, 34, 37, True),
            "App\\Repository\\make_repository": ("function", None, 39, 42, True),
        },
        docs={
            "App\\Repository\\UserRepository": "Reads users from the database.",
            "App\\Repository\\UserRepository::find": "Find one user.",
        },
        relations=[
            ("imports", "App\\Repository", "App\\Models\\User", 5, None),
            ("inherits", "App\\Repository\\UserRepository", "BaseRepository", 11, None),
            ("implements", "App\\Repository\\UserRepository", "RepositoryInterface", 11,
             "App\\Repository\\RepositoryInterface"),
            ("calls", "App\\Repository\\UserRepository::find", "$this->hydrate", 25,
             "App\\Repository\\UserRepository::hydrate"),
            ("calls", "App\\Repository\\UserRepository::hydrate", "User::fromArray", 30, None),
            ("calls", "App\\Repository\\make_repository", "UserRepository", 41,
             "App\\Repository\\UserRepository"),
        ],
    ),
    "kotlin": dict(
        files=["Library.kt"],
        defs={
            "org.example.library.Book": ("class", None, 9, 9, True),
            "org.example.library.Lendable": ("interface", None, 11, 13, True),
            "org.example.library.Library": ("class", None, 16, 29, True),
            "org.example.library.Library.add": ("method", "org.example.library.Library", 19, 22, True),
            "org.example.library.Library.checkOut": ("method", "org.example.library.Library", 28, 28, False),
            "org.example.library.Registry": ("object", None, 31, 33, True),
            "org.example.library.Registry.VERSION": ("constant", "org.example.library.Registry", 32, 32, True),
            "org.example.library.Genre": ("enum", None, 35, 35, True),
            "org.example.library.openLibrary": ("function", None, 37, 37, True),
        },
        docs={"org.example.library.Book": "A book in the catalogue.", "org.example.library.Library": "The library itself."},
        relations=[
            ("imports", "org.example.library", "kotlin.math.max", 3, None),
            ("inherits", "org.example.library.Library", "Building", 16, None),
            ("implements", "org.example.library.Library", "Lendable", 16, "org.example.library.Lendable"),
            ("calls", "org.example.library.Library.lend", "checkOut", 25, "org.example.library.Library.checkOut"),
            ("calls", "org.example.library.Library.add", "Logger.info", 21, None),
        ],
    ),
}  # fmt: skip


def _extract_case(language: str) -> Extracted:
    return Extracted(*(_fixture(language, p) for p in CASES[language]["files"]))


def test_every_supported_language_has_a_fixture():
    assert set(CASES) == set(supported_languages())
    assert supported_languages() == frozenset(
        {"python", "javascript", "typescript", "tsx", "go", "java", "rust", "c", "cpp",
         "csharp", "ruby", "php", "kotlin"}
    )  # fmt: skip


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions(language):
    ex = _extract_case(language)
    case = CASES[language]
    for symbol, (kind, parent, start, end, exported) in case["defs"].items():
        d = ex.d(symbol)
        assert (d.kind, d.parent, d.start_line, d.end_line, d.is_exported) == (
            kind, parent, start, end, exported,
        ), symbol  # fmt: skip
        assert d.language == language
        assert (
            d.name
            == symbol.replace("::", ".").replace("#", ".").replace("\\", ".").rsplit(".", 1)[-1]
        )
        assert d.id and d.content_hash
        if d.kind != "module":
            lines = ex.texts[d.path].splitlines()
            assert d.text.splitlines()[0] == lines[start - 1]
            assert d.text.splitlines()[-1] == lines[end - 1]
    for symbol, doc in case["docs"].items():
        assert ex.d(symbol).docstring == doc, symbol
    for symbol, decorators in case.get("decorators", {}).items():
        assert ex.d(symbol).decorators == decorators, symbol
    for symbol, signature in case.get("signatures", {}).items():
        assert ex.d(symbol).signature == signature, symbol


@pytest.mark.parametrize("language", sorted(CASES))
def test_relations(language):
    ex = _extract_case(language)
    for relation, source, to_name, line, to_symbol in CASES[language]["relations"]:
        r = ex.rel(relation, source, to_name)
        assert (r.line, r.start_line, r.to_symbol) == (line, line, to_symbol), (relation, to_name)
    assert all(r.to_symbol is None for r in ex.raw_relations if r.relation != "contains")
    # every parent/child pair is a `contains` relation
    for d in ex.defs:
        if d.parent is not None:
            assert ex.rel("contains", d.parent, d.symbol).line == d.start_line


@pytest.mark.parametrize("language", sorted(CASES))
def test_file_row_and_chunks(language):
    case = CASES[language]
    ex = _extract_case(language)
    first = ex.files[0]
    text = ex.texts[first.path]
    assert (first.layer, first.start_line, first.end_line) == (Layer.C0, 1, text.count("\n"))
    top = [
        d.name
        for d in ex.defs
        if d.path == first.path
        and d.parent is None
        and not (language == "python" and d.kind == "module")  # the file's own row
    ]
    assert list(first.symbols) == list(dict.fromkeys(top))
    if "file_imports" in case:
        assert first.imports == case["file_imports"]
    if "file_symbols" in case:
        assert first.symbols == case["file_symbols"]
    _check_chunks(ex, first.path, text)


def _check_chunks(ex: Extracted, path: str, text: str) -> None:
    chunks = [c for c in ex.chunks if c.path == path]
    assert chunks
    for c in chunks:
        assert c.text == text[c.start_offset : c.end_offset]
        assert c.text.strip() == c.text and c.text
        assert c.start_line == text[: c.start_offset].count("\n") + 1
        assert c.end_line == text[: c.end_offset].count("\n") + 1
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())  # no overlap at this size


def test_chunks_align_to_definitions_and_split_long_ones():
    ex = Extracted(_fixture("python", "src/shop/cart.py"), chunk_size=400)
    text = ex.texts["src/shop/cart.py"]
    starts = {c.start_line for c in ex.chunks}
    # chunk boundaries fall on definition starts (decorators included), never mid-statement
    assert {15, 28, 41} <= starts
    by_start = {c.start_line: c for c in ex.chunks}
    assert by_start[41].symbol == "shop.cart.make_cart"
    assert by_start[28].symbol == "shop.cart.Cart"  # two methods merged: the enclosing class
    assert all(len(c.text) <= 400 for c in ex.chunks)
    _check_chunks(ex, "src/shop/cart.py", text)

    long_body = "def big(x):\n" + "".join(f"    y{i} = x + {i}\n" for i in range(200))
    big = Extracted(_file("python", "big.py", long_body), chunk_size=300)
    assert len(big.chunks) > 5
    assert {c.symbol for c in big.chunks} == {"big.big"}
    assert all(len(c.text) <= 300 for c in big.chunks)
    for c in big.chunks:
        assert c.text == long_body[c.start_offset : c.end_offset]


def test_a_class_too_long_for_one_chunk_splits_at_its_methods():
    methods = "".join(f"    def m{i}(self):\n        return {i} + {i}\n\n" for i in range(30))
    text = f"class Big:\n    '''Doc.'''\n\n{methods}"
    ex = Extracted(_file("python", "pkg/big.py", text), chunk_size=200)
    starts = {c.start_line for c in ex.chunks}
    method_lines = {d.start_line for d in ex.defs if d.kind == "method"}
    assert starts - {1} <= method_lines
    assert {c.symbol for c in ex.chunks} <= {"pkg.big.Big"} | {
        d.symbol for d in ex.defs if d.kind == "method"
    }


def test_syntax_errors_keep_the_file_and_the_definitions_that_parsed():
    text = (
        '"""Broken module."""\n\n'
        "def good(a):\n    return a + 1\n\n"
        "def broken(:\n    pass\n\n"
        "class Fine:\n    def ok(self):\n        return good(1)\n"
    )
    ex = Extracted(_file("python", "pkg/broken.py", text))
    assert len(ex.files) == 1 and ex.files[0].end_line == 11
    names = {d.name for d in ex.defs}
    assert {"good", "Fine", "ok"} <= names
    assert ex.chunks  # fallback splitter chunks
    _check_chunks(ex, "pkg/broken.py", text)
    assert ex.rel("calls", "pkg.broken.Fine.ok", "good", 11).to_symbol == "pkg.broken.good"


@pytest.mark.parametrize("language", ["javascript", "go", "java", "rust", "ruby"])
def test_garbage_in_a_supported_language_never_raises(language):
    text = "}{ ))) class ( def fn func <<< \x00 \ufffd\n" * 20
    ex = Extracted(_file(language, "garbage.x", text))
    assert len(ex.files) == 1 and ex.chunks
    _check_chunks(ex, "garbage.x", text)


def test_unsupported_language_yields_file_and_chunks_only():
    text = "\n\n".join(f"key{i}: value {i}\n  nested: {i}" for i in range(80))
    rows = extract_code(_file("yaml", "config.yaml", text), chunk_size=300)
    kinds = [r.layer for r in rows]
    assert kinds[0] == Layer.C0 and set(kinds) == {Layer.C0, Layer.C3}
    chunks = [r for r in rows if isinstance(r, ChunkRow)]
    assert len(chunks) > 3 and all(c.symbol is None for c in chunks)
    for c in chunks:
        assert c.text == text[c.start_offset : c.end_offset]


def test_empty_and_whitespace_files():
    for text in ("", "\n\n   \n"):
        rows = extract_code(_file("python", "empty.py", text))
        assert len(rows) == 1 and isinstance(rows[0], FileRow)
        assert rows[0].start_line == 1 and rows[0].end_line >= 1


def test_non_ascii_and_crlf_offsets_are_code_points():
    text = (
        '"""Модуль с юникодом — ünïcödé."""\r\n\r\n'
        "def привет(имя):\r\n    '''Здороваться.'''\r\n    return f'Привет, {имя}! 🎉'\r\n\r\n"
        "class Ёлка:\r\n    def зажечь(self):\r\n        return привет('мир')\r\n"
    )
    ex = Extracted(_file("python", "ру/праздник.py", text))
    d = ex.d("ру.праздник.привет")
    assert (d.start_line, d.end_line, d.docstring) == (3, 5, "Здороваться.")
    assert d.text.startswith("def привет(имя):")
    method = ex.d("ру.праздник.Ёлка.зажечь")
    assert (method.start_line, method.end_line, method.parent) == (8, 9, "ру.праздник.Ёлка")
    assert ex.rel("calls", "ру.праздник.Ёлка.зажечь", "привет", 9).to_symbol == "ру.праздник.привет"
    _check_chunks(ex, "ру/праздник.py", text)


def test_output_is_deterministic():
    files = [_fixture(lang, CASES[lang]["files"][0]) for lang in sorted(CASES)]
    first = [extract_code(f, chunk_size=300, chunk_overlap=50) for f in files]
    second = [extract_code(f, chunk_size=300, chunk_overlap=50) for f in files]
    assert first == second
    ids = [r.id for rows in first for r in rows]
    assert len(ids) == len(set(ids))
    defs = [r for rows in first for r in rows if isinstance(r, DefinitionRow)]
    rels = [r for rows in first for r in rows if isinstance(r, RelationRow)]
    assert resolve_relations(defs, rels) == resolve_relations(defs, rels)
    assert len(resolve_relations(defs, rels)) == len(rels)


def test_is_test_and_language_flow_into_every_row():
    f = _fixture("go", "server.go")
    test_file = SourceFile(**{**{s: getattr(f, s) for s in f.__slots__}, "is_test": True})
    rows = extract_code(test_file)
    assert rows and all(r.is_test and r.language == "go" and r.path == "server.go" for r in rows)


def test_self_calls_resolve_through_the_class_hierarchy_only():
    base = _file(
        "python",
        "app/base.py",
        "class Base:\n    def save(self):\n        return self.flush()\n\n"
        "    def flush(self):\n        return 1\n",
    )
    child = _file(
        "python",
        "app/child.py",
        "from app.base import Base\n\n\nclass Child(Base):\n    def run(self):\n"
        "        self.save()\n        self.unknown()\n        self.stop()\n        return self.flush()\n",
    )
    other = _file(
        "python",
        "app/other.py",
        "class Other:\n    def save(self):\n        return 0\n\n    def stop(self):\n        return 1\n",
    )
    ex = Extracted(base, child, other)
    assert ex.rel("calls", "app.base.Base.save", "self.flush", 3).to_symbol == "app.base.Base.flush"
    assert ex.rel("calls", "app.child.Child.run", "self.save", 6).to_symbol == "app.base.Base.save"
    assert ex.rel("calls", "app.child.Child.run", "self.unknown", 7).to_symbol is None
    # not in the class hierarchy: only a possible caller of a method of that name elsewhere
    stop = ex.rel("calls", "app.child.Child.run", "self.stop", 8)
    assert (stop.to_symbol, stop.resolution) == (None, "possible")
    assert ex.rel("inherits", "app.child.Child", "Base", 4).to_symbol == "app.base.Base"
    assert ex.rel("imports", "app.child", "app.base.Base", 1).to_symbol == "app.base.Base"


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (-5, 0), (100, 100), (100, -1)])
def test_bad_chunk_settings_are_rejected(size, overlap):
    with pytest.raises(ConfigError, match=str(size if size <= 0 else overlap)):
        extract_code(_file("python", "a.py", "x = 1\n"), chunk_size=size, chunk_overlap=overlap)


def test_minified_one_line_code_with_deep_nesting():
    inner = "function f0(){return 0}"
    for i in range(1, 60):
        inner = (
            f"function f{i}(a){{var o={{k{i}:function(){{return a}}}};{inner};return f{i - 1}(o)}}"
        )
    text = f"var lib={{init:function(){{{inner}}}}};\n" * 3
    ex = Extracted(_file("javascript", "dist/lib.js", text), chunk_size=200)
    assert any(d.name == "f59" for d in ex.defs)
    assert ex.chunks
    for c in ex.chunks:
        assert c.text == text[c.start_offset : c.end_offset]


def test_cross_file_resolution_through_imports_and_packages():
    util = _file("javascript", "web/lib/util.js", "export function retry(f) {\n  return f();\n}\n")
    api = _file(
        "javascript",
        "web/api.js",
        "import { retry } from './lib/util.js';\n\nexport function get() {\n  return retry(() => 1);\n}\n",
    )
    store = _file("go", "store/store.go", "package store\n\nfunc Open() int {\n\treturn 1\n}\n")
    server = _file(
        "go",
        "server/server.go",
        'package server\n\nimport "example.com/shop/store"\n\n'
        "func New() int {\n\treturn store.Open() + helper()\n}\n",
    )
    helper = _file(
        "go", "server/helper.go", "package server\n\nfunc helper() int {\n\treturn 2\n}\n"
    )
    order = _file(
        "java",
        "src/main/java/com/shop/model/Order.java",
        "package com.shop.model;\n\npublic class Order {\n    public static Order of() { return null; }\n}\n",
    )
    service = _file(
        "java",
        "src/main/java/com/shop/Service.java",
        "package com.shop;\n\nimport com.shop.model.Order;\n\n"
        "public class Service extends Order {\n    Order make() { return Order.of(); }\n}\n",
    )
    ex = Extracted(util, api, store, server, helper, order, service)
    assert ex.rel("calls", "web/api.get", "retry").to_symbol == "web/lib/util.retry"
    assert ex.rel("calls", "server.New", "store.Open").to_symbol == "store.Open"
    assert ex.rel("calls", "server.New", "helper").to_symbol == "server.helper"
    assert ex.rel("imports", "com.shop", "com.shop.model.Order").to_symbol == "com.shop.model.Order"
    assert ex.rel("inherits", "com.shop.Service", "Order").to_symbol == "com.shop.model.Order"
    assert (
        ex.rel("calls", "com.shop.Service.make", "Order.of").to_symbol == "com.shop.model.Order.of"
    )


@pytest.mark.parametrize("chunk_size", [60, 150, 400])
@pytest.mark.parametrize("language", sorted(CASES))
def test_chunks_cover_everything_within_size(language, chunk_size):
    file = _fixture(language, CASES[language]["files"][0])
    rows = extract_code(file, chunk_size=chunk_size, chunk_overlap=20)
    chunks = [r for r in rows if isinstance(r, ChunkRow)]
    covered = bytearray(len(file.text))
    for c in chunks:
        assert c.text == file.text[c.start_offset : c.end_offset]
        assert len(c.text) <= chunk_size
        covered[c.start_offset : c.end_offset] = b"\x01" * (c.end_offset - c.start_offset)
    missing = [i for i, ch in enumerate(file.text) if not ch.isspace() and not covered[i]]
    assert not missing, file.text[missing[0] : missing[0] + 40]
    starts = [c.start_offset for c in chunks]
    assert starts == sorted(starts)


def test_definitions_on_one_huge_line_keep_their_own_text():
    text = ";".join(f"function f{i}(a){{return a+{i}}}" for i in range(400)) + "\n"
    ex = Extracted(_file("javascript", "dist/min.js", text))
    assert len(ex.defs) == 400
    assert ex.d("dist/min.f100").text == "function f100(a){return a+100}"
    assert all(len(d.text) < 300 for d in ex.defs)


def test_c_header_prototypes_are_definitions():
    text = (
        "#ifndef BUFFER_H\n#define BUFFER_H\n\n"
        "/* Append n bytes; returns 0 on success. */\n"
        "int buffer_append(struct buffer *b, const char *src, size_t n);\n"
        "char *buffer_data(struct buffer *b);\n\n#endif\n"
    )
    ex = Extracted(_file("c", "include/buffer.h", text))
    append = ex.d("buffer_append")
    assert (append.kind, append.start_line, append.end_line) == ("function", 5, 5)
    assert append.docstring == "Append n bytes; returns 0 on success."
    assert append.signature == "int buffer_append(struct buffer *b, const char *src, size_t n)"
    assert ex.d("buffer_data").start_line == 6
    cpp = Extracted(
        _file(
            "cpp",
            "include/geo.hpp",
            "#pragma once\nnamespace geo {\n/// Area of a circle.\ndouble area(double r);\n}\n"
            'extern "C" { int c_api(void); }\n',
        )
    )
    assert cpp.d("geo::area").docstring == "Area of a circle."
    assert cpp.d("c_api").start_line == 6


def test_functions_bound_to_names_fields_and_exports():
    js = Extracted(
        _file(
            "javascript",
            "lib/a.js",
            "class A {\n  handle = (e) => { go(e); };\n}\n"
            "module.exports.run = function (x) {\n  return 1;\n};\n"
            "const o = { fetch: async (u) => u };\n",
        )
    )
    handle = js.d("lib/a.A.handle")
    assert (handle.kind, handle.parent, handle.signature) == (
        "method",
        "lib/a.A",
        "handle = (e) =>",
    )
    run = js.d("lib/a.run")
    assert (run.kind, run.start_line, run.end_line, run.is_exported) == ("function", 4, 6, True)
    assert js.d("lib/a.fetch").signature == "fetch: async (u) =>"
    assert js.rel("calls", "lib/a.A.handle", "go").line == 2
    py = Extracted(_file("python", "pkg/types.py", "type Vec = list[float]\n"))
    vec = py.d("pkg.types.Vec")
    assert (vec.kind, vec.signature) == ("type_alias", "type Vec = list[float]")


@pytest.mark.parametrize(
    ("language", "path"), [("javascript", "index.js"), ("typescript", "index.ts")]
)
def test_a_named_function_handed_to_a_call_is_a_definition(language: str, path: str) -> None:
    # morgan.token('response-time', function getResponseTimeToken (...) {...}): the code that
    # computes the response time lives only there; an anonymous one stays no definition
    ex = Extracted(
        _file(
            language,
            path,
            "morgan.token('response-time', function getResponseTimeToken (req, res) {\n"
            "  return res.time - req.time\n"
            "})\n"
            "app.use(function (req, res, next) {\n  next()\n})\n",
        )
    )
    token = ex.d("index.getResponseTimeToken")
    assert (token.kind, token.start_line, token.end_line) == ("function", 1, 3)
    assert [d.symbol for d in ex.defs] == ["index.getResponseTimeToken"]
