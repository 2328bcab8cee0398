"""One symbol resolver: the same names asked through the facade, ``ask`` (English and Russian),
``search``, MCP ``get_definition`` (the SDK's in-process client), HTTP ``/v1/definition`` and
gendocs lead with the same definition, in a Python + Go + TypeScript repository indexed with
the hash embedder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from ragstrata.answer.docs.targets import build_docs
from ragstrata.app.facade import Ragstrata
from ragstrata.errors import UserError
from ragstrata.http import create_app
from ragstrata.mcp.repos import RepoSet
from ragstrata.mcp.server import build_server
from ragstrata.retrieve.reader import IndexReader
from ragstrata.settings import EmbedderSettings, Settings

SETTINGS = Settings(embedder=EmbedderSettings(provider="hash", dimensions=64))

FILES: dict[str, str] = {
    "src/shop/__init__.py": '"""The shop: orders and prices."""\n',
    "src/shop/orders.py": '''"""Orders placed by customers."""


class OrderService:
    """Places and cancels orders."""

    def place(self, order):
        """Place one order and return its total."""
        return total_price(order)

    def cancel(self, order_id):
        return order_id


def total_price(items):
    """Sum of item prices."""
    return sum(items)
''',
    # shares the name's words (and mentions it): must not lead for "OrderService"
    "src/shop/order_service_helpers.py": '''def order_service_factory():
    """Builds an OrderService (a helper that only mentions it)."""
    from shop.orders import OrderService

    return OrderService()
''',
    "tests/test_orders.py": """from shop.orders import OrderService


def test_place():
    assert OrderService().place([1, 2]) == 3
""",
    "billing/invoice.go": """// Package billing stores invoices.
package billing

// InvoiceStore keeps invoices by id.
type InvoiceStore struct {
	items map[string]string
}

// NewInvoiceStore makes an empty store.
func NewInvoiceStore() *InvoiceStore {
	return &InvoiceStore{items: map[string]string{}}
}

// Save stores one invoice.
func (s *InvoiceStore) Save(id string, body string) error {
	s.items[id] = body
	return nil
}
""",
    "billing/run.go": """package billing

// Run saves a first invoice.
func Run() error {
	store := NewInvoiceStore()
	return store.Save("1", "first")
}
""",
    "web/src/cart.ts": """/** Shopping cart state. */
export class CartManager {
  private items: string[] = [];

  /** Add one item by SKU. */
  addItem(sku: string): number {
    this.items.push(sku);
    return this.items.length;
  }
}

/** Format an amount of money. */
export function formatMoney(value: number): string {
  return value.toFixed(2);
}
""",
}

ORDER = ("shop.orders.OrderService", "src/shop/orders.py", 4, 12)
PLACE = ("shop.orders.OrderService.place", "src/shop/orders.py", 7, 9)
NEW_STORE = ("billing.NewInvoiceStore", "billing/invoice.go", 10, 12)
SAVE = ("billing.InvoiceStore.Save", "billing/invoice.go", 15, 18)
CART = ("web/src/cart.CartManager", "web/src/cart.ts", 2, 10)
ADD = ("web/src/cart.CartManager.addItem", "web/src/cart.ts", 6, 9)
MONEY = ("web/src/cart.formatMoney", "web/src/cart.ts", 13, 15)

BOTH = ("ru", "en")
# (name as written, expected definition, how it matches, languages asked through ask/search)
CASES: list[tuple[str, tuple[str, str, int, int], str, tuple[str, ...]]] = [
    ("OrderService", ORDER, "exact", BOTH),
    # wrong case; in English the router takes a lower-case word for a plain word, not a symbol
    ("orderservice", ORDER, "exact", ("ru",)),
    ("shop.orders.OrderService.place", PLACE, "qualified", BOTH),
    ("OrderService.place", PLACE, "suffix", BOTH),
    ("NewInvoiceStore", NEW_STORE, "exact", BOTH),
    ("InvoiceStore.Save", SAVE, "suffix", BOTH),
    ("invoicestore.save", SAVE, "suffix", BOTH),
    ("CartManager", CART, "exact", BOTH),
    ("CartManager::addItem", ADD, "suffix", BOTH),
    ("CartManager#addItem", ADD, "suffix", ()),  # the router splits `A#b` into two anchors
    ("web/src/cart.ts:formatMoney", MONEY, "exact", BOTH),
    ("Order_Service", ORDER, "fuzzy", ()),  # same letters: accepted as found
]
TEMPLATES = {"ru": "где определён {}?", "en": "where is {} defined?"}
ASKED = [(c[0], c[1], lang) for c in CASES for lang in c[3]]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def rs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragstrata]:
    root = tmp_path_factory.mktemp("shop")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    with Ragstrata(root, SETTINGS) as facade:
        facade.index()
        yield facade


@pytest.fixture(scope="module")
def http(rs: Ragstrata) -> Iterator[TestClient]:
    with TestClient(create_app({"shop": rs})) as client:
        yield client


def _span(d: dict[str, Any]) -> tuple[str, str, int, int]:
    return (d["symbol"], d["path"], d["start_line"], d["end_line"])


@pytest.fixture(scope="module")
def mcp_results(rs: Ragstrata) -> dict[str, Any]:
    """``get_definition`` of every case name (and the typo), through the in-process client."""
    out: dict[str, Any] = {}

    async def main() -> None:
        async with Client(build_server(RepoSet({"shop": rs}))) as client:
            for name in [*IDS, "OrdrService"]:
                out[name] = await client.call_tool("get_definition", {"symbol": name})

    anyio.run(main)
    return out


@pytest.mark.parametrize(("name", "want", "mode", "asked"), CASES, ids=IDS)
def test_facade_mcp_http_gendocs_agree(
    rs: Ragstrata,
    http: TestClient,
    mcp_results: dict[str, Any],
    name: str,
    want: tuple[str, str, int, int],
    mode: str,
    asked: tuple[str, ...],
) -> None:
    facade = rs.definition(name).to_dict()
    assert facade["found"] and facade["match"] == mode
    assert _span(facade["definitions"][0]) == want

    result = mcp_results[name]
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["match"] == mode
    first = data["definitions"][0]
    assert _span(first) == want
    assert first["citation"] == f"{want[1]}:{want[2]}-{want[3]}"

    response = http.post("/v1/definition", json={"name": name})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["repo"] == "shop" and body["found"] and body["match"] == mode
    assert _span(body["definitions"][0]) == want

    docs = build_docs(name, reader=IndexReader(rs.store))
    assert docs.target.kind == "symbol" and docs.target.value == want[0]
    assert docs.citations[0].path == want[1] and docs.citations[0].start_line == want[2]


@pytest.mark.parametrize(("name", "want", "lang"), ASKED, ids=[f"{c[0]}-{c[2]}" for c in ASKED])
def test_ask_and_search_lead_with_the_same_definition(
    rs: Ragstrata, name: str, want: tuple[str, str, int, int], lang: str
) -> None:
    question = TEMPLATES[lang].format(name)
    result = rs.ask(question).to_dict()
    required = result["evidence"]["requirements"]["require_def"]
    assert required["satisfied"], result["answer"]["text"]
    cited = result["answer"]["citations"][0]
    assert (cited["path"], cited["start_line"], cited["end_line"]) == want[1:]
    assert f"`{want[0]}`" in result["answer"]["text"].split("\n")[0]
    assert result["plan"]["language"] == lang

    hits = rs.search(question).to_dict()["hits"]
    resolved = [h for h in hits if any(r.startswith("symbol:") for r in h["reasons"])]
    assert resolved and resolved[0]["symbol"] == want[0]
    assert (resolved[0]["path"], resolved[0]["start_line"]) == want[1:3]


def test_exact_case_name_leads_the_search(rs: Ragstrata) -> None:
    hits = rs.search("где определён OrderService?").to_dict()["hits"]
    assert hits[0]["symbol"] == ORDER[0]


def test_a_typo_is_not_found_everywhere_with_the_same_candidate(
    rs: Ragstrata, http: TestClient, mcp_results: dict[str, Any]
) -> None:
    facade = rs.definition("OrdrService").to_dict()
    assert not facade["found"] and facade["definitions"] == []
    assert facade["candidates"][0]["symbol"] == ORDER[0]

    result = mcp_results["OrdrService"]
    assert result.is_error
    assert result.structured_content["error"]["code"] == "symbol_not_found"
    assert result.structured_content["candidates"][0]["symbol"] == ORDER[0]

    body = http.post("/v1/definition", json={"name": "OrdrService"}).json()
    assert not body["found"] and body["candidates"][0]["symbol"] == ORDER[0]

    with pytest.raises(UserError, match=r"shop\.orders\.OrderService"):
        build_docs("OrdrService", reader=IndexReader(rs.store))

    answer = rs.ask("где определён OrdrService?").to_dict()
    assert not answer["evidence"]["requirements"]["require_def"]["satisfied"]
    assert "OrderService" in answer["answer"]["text"]


def test_references_and_outline_through_every_interface(rs: Ragstrata, http: TestClient) -> None:
    refs = rs.references("InvoiceStore.Save").to_dict()
    assert refs["symbol"] == SAVE[0] and refs["found"]
    assert [(c["path"], c["from_symbol"]) for c in refs["callers"]] == [
        ("billing/run.go", "billing.Run")
    ]
    body = http.post("/v1/references", json={"name": "InvoiceStore.Save"}).json()
    assert body["callers"] == refs["callers"] and body["symbol"] == SAVE[0]

    place = rs.references("OrderService.place").to_dict()
    assert [t["path"] for t in place["tests"]] == ["tests/test_orders.py"]
    assert "shop.orders.total_price" in {c["to_symbol"] for c in place["callees"]}

    async def main() -> dict[str, Any]:
        async with Client(build_server(RepoSet({"shop": rs}))) as client:
            res = await client.call_tool(
                "find_references", {"symbol": "OrderService.place", "direction": "callees"}
            )
            assert not res.is_error
            return res.structured_content

    data = anyio.run(main)
    assert data["resolved_symbol"] == PLACE[0]
    assert {r["to_symbol"] for r in data["references"]} == {
        c["to_symbol"] for c in place["callees"]
    }

    outline = rs.outline("src/shop/orders.py").to_dict()
    assert [d["symbol"] for d in outline["definitions"]] == [
        "shop.orders",
        "shop.orders.OrderService",
        "shop.orders.OrderService.place",
        "shop.orders.OrderService.cancel",
        "shop.orders.total_price",
    ]
    response = http.get("/v1/outline", params={"path": "src/shop/orders.py"})
    assert response.status_code == 200
    assert response.json()["definitions"] == outline["definitions"]
    missing = http.get("/v1/outline", params={"path": "src/shop/nope.py"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "path_not_indexed"
    assert not rs.outline("src/shop/nope.py").indexed


def test_bad_names_are_one_line_errors(rs: Ragstrata, http: TestClient) -> None:
    from ragstrata.errors import InvalidQueryError

    with pytest.raises(InvalidQueryError, match="empty symbol name"):
        rs.definition("  ")
    response = http.post("/v1/definition", json={"name": "", "repo": "shop"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
    unknown = http.post("/v1/definition", json={"name": "x", "colour": 1})
    assert unknown.status_code == 422
