"""Retrieval on a small realistic repository: symbols, flow, filters, docs, Russian, policy."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.values import CatalogEntry
from ragstrata.embed.base import Embedder
from ragstrata.embed.factory import make_embedder
from ragstrata.errors import ConfigError
from ragstrata.query.router import Router
from ragstrata.relations.repository import ingest_repository
from ragstrata.retrieve.fusion import CORROBORATION, RankedList, file_ranking, fuse, group_hits
from ragstrata.retrieve.lexical import term_lists
from ragstrata.retrieve.profiles import LIST_KINDS, PROFILE_NAMES, get_profile
from ragstrata.retrieve.retriever import RELAXED_LANGUAGE, RELAXED_SCOPE, Retriever
from ragstrata.settings import EmbedderSettings, IndexSettings
from ragstrata.store.sqlite import SQLiteStore
from ragstrata.testing import HashEmbedder

DIMS = 256  # the hash fake collides too much at 64 dimensions on paragraph-long texts

REPO: dict[str, str] = {
    "src/users/__init__.py": '"""Users package."""\n',
    "src/users/models.py": '''
        """User records."""


        class User:
            """A registered user with a name and an e-mail address."""

            def __init__(self, name, email=None):
                self.name = name
                self.email = email

            def display_name(self):
                """The name shown in the interface."""
                return self.name.title()
        ''',
    "src/users/service.py": '''
        """User management: creating, finding and deleting users."""

        from users.models import User
        from users.repository import UserRepository
        from http_client.retry import retry_request


        class UserService:
            """Creates, finds and deletes users, backed by a UserRepository."""

            def __init__(self, repository=None):
                self.repository = repository or UserRepository()

            def create_user(self, name, email=None):
                """Create a user and save it in the repository."""
                user = User(name, email)
                self.repository.save(user)
                return user

            def fetch_profile(self, user_id):
                """Load a user's profile from the remote service, retrying on failure."""
                return retry_request(lambda: self.repository.load(user_id), attempts=3)

            def delete_user(self, user_id):
                """Remove a user for good."""
                self.repository.delete(user_id)
        ''',
    "src/users/repository.py": '''
        """Persistence of users."""


        class UserRepository:
            """Keeps users in memory, keyed by id."""

            def __init__(self):
                self._items = {}

            def save(self, user):
                self._items[user.name] = user

            def load(self, user_id):
                return self._items[user_id]

            def delete(self, user_id):
                self._items.pop(user_id, None)
        ''',
    "src/http_client/__init__.py": "",
    "src/http_client/retry.py": '''
        """Retrying of failed HTTP requests with exponential backoff."""

        import time


        class RetryPolicy:
            """How many attempts to make and how long to wait between them."""

            def __init__(self, attempts=3, backoff=0.5):
                self.attempts = attempts
                self.backoff = backoff

            def delays(self):
                """Backoff delays: 0.5, 1.0, 2.0 seconds..."""
                return [self.backoff * 2**i for i in range(self.attempts - 1)]


        def retry_request(send, attempts=3, backoff=0.5):
            """Call ``send`` until it succeeds; repeat a failed request with backoff."""
            policy = RetryPolicy(attempts, backoff)
            for delay in policy.delays():
                try:
                    return send()
                except ConnectionError:
                    time.sleep(delay)
            return send()
        ''',
    "src/http_client/session.py": '''
        """An HTTP session that sends requests through the retry helper."""

        from http_client.retry import retry_request


        class Session:
            """Sends requests and keeps cookies between them."""

            def __init__(self):
                self.cookies = {}

            def send(self, request):
                """Send one request, retrying on connection errors."""
                return retry_request(lambda: request.perform(self.cookies))
        ''',
    "src/billing/invoice.py": '''
        """Invoices for users."""

        from users.service import UserService


        def create_invoice(user_id, amount):
            """Create an invoice for a user's order."""
            service = UserService()
            profile = service.fetch_profile(user_id)
            return {"user": profile, "amount": amount}
        ''',
    "tests/test_users.py": """
        from users.service import UserService


        def test_create_user():
            service = UserService()
            user = service.create_user("bob")
            assert user.name == "bob"
        """,
    "README.md": """
        # Demo shop

        A small demo application with users, billing and an HTTP client.

        ## Installation

        Install the package with pip:

            pip install demo-shop

        ## Configuration

        Settings are read from environment variables. Set `DEMO_DATABASE_URL` to the
        database address and `DEMO_TIMEOUT` to the request timeout in seconds.

        ## Retries

        Failed requests are repeated with exponential backoff: three attempts by default,
        waiting 0.5, then 1 second. Change the number of attempts in the retry policy.
        """,
}


def write_repo(root: Path) -> Path:
    """Write the fixture repository under ``root``."""
    for rel, text in REPO.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def build_index(root: Path, store: SQLiteStore, embedder: Embedder | None = None) -> None:
    """Ingest ``root`` into ``store`` and embed every pending row."""
    embedder = embedder or HashEmbedder(dimensions=DIMS)
    result = ingest_repository(root, IndexSettings(chunk_size=300, chunk_overlap=30))
    batch = [
        (CatalogEntry(fr.file.path, fr.file.mtime_ns, fr.file.size, fr.file.sha256), fr.rows)
        for fr in result.files
    ]
    store.replace_files(batch)
    fp = embedder.fingerprint
    while pending := store.pending_vectors(fp, limit=64):
        vectors = embedder.embed_documents([p.text for p in pending])
        store.put_vectors(fp, [(p.text_hash, v) for p, v in zip(pending, vectors, strict=True)])


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    root = write_repo(tmp_path_factory.mktemp("repo"))
    s = SQLiteStore(root / ".ragstrata" / "index.sqlite", cache_min_rows=None)
    build_index(root, s)
    yield s
    s.close()


@pytest.fixture(scope="module")
def router() -> Router:
    return Router()


@pytest.fixture(scope="module")
def ask(store: SQLiteStore, router: Router):  # type: ignore[no-untyped-def]
    retriever = Retriever(store, HashEmbedder(dimensions=DIMS))

    def run(question: str, top_k: int = 10, layers: list[str] | None = None) -> Evidence:
        return retriever.retrieve(router.plan(question), top_k=top_k, layers=layers)

    return run


def _spans(hits: tuple[Hit, ...]) -> list[tuple[str, int, int]]:
    return [(h.path, h.start_line, h.end_line) for h in hits]


# ---------------------------------------------------------------------------- symbols


def test_symbol_question_finds_the_definition_first(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("where is class UserService defined?")
    top = ev.hits[0]
    assert (top.layer, top.symbol, top.path) == (
        "C1",
        "users.service.UserService",
        "src/users/service.py",
    )
    assert any(r.startswith("symbol:exact UserService") for r in top.reasons)
    req = ev.requirements["require_def"]
    assert req.required and req.satisfied
    assert req.hits[0].symbol == "users.service.UserService"


def test_russian_symbol_question_matches_english(ask) -> None:  # type: ignore[no-untyped-def]
    ru = ask("где определён класс UserService?")
    en = ask("where is class UserService defined?")
    assert ru.hits[0].symbol == en.hits[0].symbol == "users.service.UserService"
    assert ru.requirements["require_def"].satisfied


@pytest.fixture(scope="module")
def ask_minilm(store: SQLiteStore, router: Router):  # type: ignore[no-untyped-def]
    """``ask`` with the packaged MiniLM: the fusion weights give dense lists a real say, and
    the hash fake's cosine is only a bag-of-words collision count."""
    embedder = make_embedder(EmbedderSettings())
    fp = embedder.fingerprint
    while pending := store.pending_vectors(fp, limit=64):
        vectors = embedder.embed_documents([p.text for p in pending])
        store.put_vectors(fp, [(p.text_hash, v) for p, v in zip(pending, vectors, strict=True)])
    retriever = Retriever(store, embedder)

    def run(question: str, top_k: int = 10) -> Evidence:
        return retriever.retrieve(router.plan(question), top_k=top_k)

    return run


def test_russian_free_text_question_matches_english(ask_minilm) -> None:  # type: ignore[no-untyped-def]
    ask = ask_minilm
    ru = ask("как работает повтор запроса?")
    en = ask("how does retrying a failed request work?")
    assert ru.hits[0].symbol == "http_client.retry.retry_request"
    assert en.hits[0].symbol == "http_client.retry.retry_request"
    ru_files = {h.path for h in ru.hits[:5]}
    en_files = {h.path for h in en.hits[:5]}
    assert "src/http_client/retry.py" in ru_files & en_files
    # raw Russian words are a separate, low-weight list: expansions carry the ranking
    assert any(r.startswith("lexical:") for r in ru.hits[0].reasons)


def test_missing_symbol_gives_candidates_not_an_invented_definition(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("where is UserServise defined?")
    assert "require_def" in ev.missing and not ev.satisfied
    assert ev.requirements["require_def"].hits == ()
    assert ev.requirements["require_def"].looked_for == "definition of UserServise"
    cands = [(c.symbol, c.citation) for c in ev.candidates]
    assert ("users.service.UserService", "src/users/service.py:8-26") in cands
    assert all(
        c.reasons and c.reasons[0].startswith("candidate:UserServise~") for c in ev.candidates
    )


# ---------------------------------------------------------------------------- flow


@pytest.mark.parametrize("question", ["who calls retry_request?", "кто вызывает retry_request?"])
def test_who_calls_returns_callers_via_c2(ask, question: str) -> None:  # type: ignore[no-untyped-def]
    ev = ask(question)
    callers = {
        (h.path, h.start_line)
        for h in ev.hits
        if h.layer == "C2" and any(r.startswith("flow:callers") for r in h.reasons)
    }
    assert {("src/http_client/session.py", 14), ("src/users/service.py", 22)} <= callers
    flow = ev.requirements["require_flow"]
    assert flow.required and flow.satisfied
    assert ev.hits[0].symbol == "http_client.retry.retry_request"


@pytest.mark.parametrize(
    ("question", "first_side"),
    [
        ("who calls retry_request?", "flow:callers"),
        ("где вызывается retry_request?", "flow:callers"),
        ("what does retry_request call? show its callees", "flow:callees"),
    ],
)
def test_flow_question_ranks_the_side_it_asks_for_first(
    ask, question: str, first_side: str
) -> None:  # type: ignore[no-untyped-def]
    ev = ask(question)
    flow = [h for h in ev.hits if h.layer == "C2" and any(r.startswith("flow:") for r in h.reasons)]
    assert flow, "no flow hits"
    assert any(r.startswith(first_side) for r in flow[0].reasons)


# ---------------------------------------------------------------------------- filters


def test_path_scope_is_honoured_and_resolved_by_file_name(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("how does fetch_profile work in service.py?")
    assert ev.hits[0].symbol == "users.service.UserService.fetch_profile"
    scoped = [h for h in ev.hits if not any(r.startswith("flow:") for r in h.reasons)]
    assert scoped and all(h.path == "src/users/service.py" for h in scoped)


def test_empty_path_scope_is_relaxed_and_says_so(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("UserService in src/nowhere")
    assert ev.hits, "a path scope that matches nothing must not return nothing"
    assert ev.hits[0].symbol == "users.service.UserService"
    assert all(any(r.startswith(RELAXED_SCOPE) for r in h.reasons) for h in ev.hits)


@pytest.mark.parametrize(
    "question",
    [
        "fetch_profile fails: I don't think `math.h` has it, see profile.h",
        "fetch_profile падает: в `math.h` такого нет",
    ],
)
def test_a_language_no_file_is_in_is_relaxed_and_says_so(ask, question: str) -> None:  # type: ignore[no-untyped-def]
    """A pasted C header in a Python repository's issue text must not filter everything out."""
    ev = ask(question)
    assert ev.hits, "a language filter that matches no indexed file must not return nothing"
    assert ev.hits[0].symbol == "users.service.UserService.fetch_profile"
    assert all(f"{RELAXED_LANGUAGE}: no c files indexed" in h.reasons for h in ev.hits)


def test_a_language_the_repository_has_still_filters(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("where is fetch_profile in the python code?")
    assert ev.hits and not any(r.startswith(RELAXED_LANGUAGE) for h in ev.hits for r in h.reasons)


def test_tests_excluded_by_default_and_only_when_asked(ask) -> None:  # type: ignore[no-untyped-def]
    default = ask("how is a user created with create_user?", top_k=30)
    assert default.hits and not any(h.path.startswith("tests/") for h in default.hits)
    only = ask("which tests cover create_user?", top_k=30)
    assert only.hits and all(h.path.startswith("tests/") for h in only.hits)


def test_layers_argument_restricts_the_search(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("how does retry work?", layers=["D1"])
    assert ev.hits and {h.layer for h in ev.hits} == {"D1"}


class _CountingQueries(HashEmbedder):
    """The hash embedder, counting query embeddings (what loads a real model)."""

    def __init__(self) -> None:
        super().__init__(dimensions=DIMS)
        self.queries = 0

    def embed_queries(self, texts):  # type: ignore[no-untyped-def]
        self.queries += 1
        return super().embed_queries(texts)


def test_the_model_is_asked_only_when_a_searched_layer_has_vectors(
    store: SQLiteStore, router: Router
) -> None:
    from ragstrata.retrieve.dense import QueryVectorCache

    embedder = _CountingQueries()
    retriever = Retriever(store, embedder)
    with pytest.MonkeyPatch.context() as mp:  # no vector from an earlier test's cache
        mp.setattr("ragstrata.retrieve.dense._SHARED", QueryVectorCache())
        ev = retriever.retrieve(router.plan("who calls retry_request?"), layers=["C2", "C3"])
        assert ev.hits and embedder.queries == 0  # relations and chunks carry no vectors
        retriever.retrieve(router.plan("how does the retry loop back off?"), layers=["C1"])
        assert embedder.queries > 0


# ---------------------------------------------------------------------------- docs


@pytest.mark.parametrize(
    "question", ["what does the README say about retries?", "что сказано в README про повторы?"]
)
def test_docs_questions_hit_d1_sections(ask, question: str) -> None:  # type: ignore[no-untyped-def]
    ev = ask(question)
    top = ev.hits[0]
    assert (top.layer, top.path, top.heading_path) == (
        "D1",
        "README.md",
        "README.md > Demo shop > Retries",
    )
    spec = ev.requirements["require_spec"]
    assert spec.required and spec.satisfied and spec.hits[0].layer == "D1"


def test_configuration_question_finds_the_configuration_section(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("how do I configure the database address?")
    assert ev.hits[0].heading_path == "README.md > Demo shop > Configuration"


# ---------------------------------------------------------------------------- fusion output


@pytest.mark.parametrize(
    "question",
    [
        "where is class UserService defined?",
        "how does retry work?",
        "who calls retry_request?",
        "как работает повтор запроса?",
        "what does the README say about retries?",
    ],
)
def test_hits_have_reasons_and_no_duplicate_lines(ask, question: str) -> None:  # type: ignore[no-untyped-def]
    ev = ask(question, top_k=50)
    assert ev.hits
    assert all(h.reasons for h in ev.hits)
    spans = _spans(ev.hits)
    assert len(spans) == len(set(spans))
    # no C3 chunk inside a returned C1 definition of the same file (merged instead)
    defs = [h for h in ev.hits if h.layer == "C1"]
    for h in ev.hits:
        if h.layer == "C3":
            assert not any(
                d.path == h.path and d.start_line <= h.start_line and h.end_line <= d.end_line
                for d in defs
            )
    scores = [h.score for h in ev.hits]
    assert scores == sorted(scores, reverse=True)


def test_sub_queries_retrieve_and_fuse(store: SQLiteStore, router: Router) -> None:
    plan = router.plan("Где определён UserRepository и как работает retry_request?")
    assert len(plan.query_plan.sub_queries) == 2
    ev = Retriever(store, HashEmbedder(dimensions=DIMS)).retrieve(plan, top_k=10)
    symbols = [h.symbol for h in ev.hits]
    assert "users.repository.UserRepository" in symbols[:3]
    assert "http_client.retry.retry_request" in symbols[:3]
    assert any(r.startswith("sub1 ") for h in ev.hits for r in h.reasons)
    assert any(r.startswith("sub2 ") for h in ev.hits for r in h.reasons)
    # without the sub-queries the fused score of the second part's definition drops
    bare = plan.model_copy(
        update={"query_plan": plan.query_plan.model_copy(update={"sub_queries": []})}
    )
    ev_bare = Retriever(store, HashEmbedder(dimensions=DIMS)).retrieve(bare, top_k=10)
    score = {h.symbol: h.score for h in ev.hits}
    score_bare = {h.symbol: h.score for h in ev_bare.hits}
    assert score["http_client.retry.retry_request"] > score_bare["http_client.retry.retry_request"]


# ---------------------------------------------------------------------------- units


def _row(store: SQLiteStore, layer: str, path: str, start: int) -> object:
    hits = store.search_lexical(["user", "retry", "service", "repository"], None, 200)
    return next(
        h for h in hits if str(h.layer) == layer and h.path == path and h.start_line == start
    )


def test_weighted_rrf_by_hand(store: SQLiteStore) -> None:
    a = _row(store, "C1", "src/users/service.py", 8)
    b = _row(store, "C1", "src/users/repository.py", 4)
    lists = [
        RankedList("lexical", "C1", "lexical:C1", 1.0, (a, b)),  # type: ignore[arg-type]
        RankedList("dense", "C1", "dense:C1", 2.0, (b,)),  # type: ignore[arg-type]
    ]
    hits = fuse(lists, rrf_k=10)
    by_symbol = {h.symbol: h for h in hits}
    assert by_symbol["users.service.UserService"].score == pytest.approx(1 / 11)
    assert by_symbol["users.repository.UserRepository"].score == pytest.approx(1 / 12 + 2 / 11)
    assert hits[0].symbol == "users.repository.UserRepository"
    assert hits[0].reasons == ("dense:C1#1", "lexical:C1#2")


def test_group_merges_a_chunk_inside_a_definition(store: SQLiteStore) -> None:
    d = _row(store, "C1", "src/users/repository.py", 4)
    chunks = [
        h
        for h in store.search_lexical(["repository"], None, 200)
        if str(h.layer) == "C3" and h.path == "src/users/repository.py"
    ]
    assert chunks
    inside = [c for c in chunks if d.start_line <= c.start_line and c.end_line <= d.end_line]  # type: ignore[attr-defined]
    around = [c for c in chunks if c.start_line <= d.start_line and d.end_line <= c.end_line]  # type: ignore[attr-defined]
    chunk = (inside or around)[0]
    hits = fuse(
        [
            RankedList("lexical", "C3", "lexical:C3", 1.0, (chunk,)),
            RankedList("lexical", "C1", "lexical:C1", 1.0, (d,)),  # type: ignore[arg-type]
        ]
    )
    grouped = group_hits(hits)
    assert len(grouped) == 1
    assert grouped[0].layer == "C1"
    assert set(grouped[0].reasons) == {"lexical:C3#1", "lexical:C1#1"}
    best = max(hits[0].score, hits[1].score)
    # UserRepository is a class: it absorbs the chunk (no duplicate lines) without credit for it
    assert grouped[0].score == pytest.approx(best)


def test_group_credits_a_member_definition_with_its_chunk(store: SQLiteStore) -> None:
    d = _row(store, "C1", "src/http_client/retry.py", 18)  # def retry_request
    assert d.symbol == "http_client.retry.retry_request"
    chunks = [
        h
        for h in store.search_lexical(["attempts"], None, 200)
        if str(h.layer) == "C3"
        and h.path == d.path
        and d.start_line <= h.start_line
        and h.end_line <= d.end_line
    ]
    assert chunks
    hits = fuse(
        [
            RankedList("lexical", "C3", "lexical:C3", 1.0, (chunks[0],)),
            RankedList("lexical", "C1", "lexical:C1", 1.0, (d,)),
        ]
    )
    grouped = group_hits(hits)
    assert [(h.layer, h.symbol) for h in grouped] == [("C1", d.symbol)]
    best, other = sorted((hits[0].score, hits[1].score), reverse=True)
    assert grouped[0].score == pytest.approx(best + CORROBORATION * other)


def test_file_ranking_uses_the_best_hit_per_file(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("who calls retry_request?", top_k=30)
    ranked = file_ranking(ev.hits)
    assert ranked[0][0] == "src/http_client/retry.py"
    assert len({p for p, _ in ranked}) == len(ranked)
    best = {}
    for h in ev.hits:
        best[h.path] = max(best.get(h.path, 0.0), h.score)
    assert dict(ranked) == best


def test_mostly_russian_questions_keep_raw_words_apart_and_translit_only_known_terms() -> None:
    known = {"renderer"}
    lists = {
        t.kind: t.terms for t in term_lists("где рендерер страницы?", None, known.__contains__)
    }
    assert "renderer" in lists["lexical"]
    assert "рендерер" not in lists["lexical"] and "рендерер" in lists["raw"]
    unknown = {
        t.kind: t.terms for t in term_lists("где рендерер страницы?", None, set().__contains__)
    }
    assert "lexical" not in unknown  # nothing English to search with, only the raw list
    english = {t.kind: t.terms for t in term_lists("where is the page renderer?", None, None)}
    assert "renderer" in english["lexical"] and "raw" not in english


def test_profiles_are_data_and_complete() -> None:
    for name in PROFILE_NAMES:
        p = get_profile(name)
        assert set(p.lists) == set(LIST_KINDS)
        assert set(p.layers) == {"C0", "C1", "C2", "C3", "D0", "D1", "D2"}
    assert get_profile("docs").layers["D1"] > get_profile("docs").layers["C3"]
    with pytest.raises(ConfigError, match="valid: code, docs, generate, project"):
        get_profile("nope")


def test_the_code_encoder_weighs_its_dense_list_more_and_reads_no_raw_cyrillic() -> None:
    for name in PROFILE_NAMES:
        base, code = get_profile(name), get_profile(name, "all-MiniLM-L6-v2-code")
        assert code.lists["dense"] == pytest.approx(1.5 * base.lists["dense"])
        assert code.raw_dense_weight == 0.0 < base.raw_dense_weight
        assert {k: v for k, v in code.lists.items() if k != "dense"} == {
            k: v for k, v in base.lists.items() if k != "dense"
        }
        assert get_profile(name, "all-MiniLM-L6-v2-int8") is base  # no section: unchanged


@pytest.mark.slow
def test_real_minilm_embedder_ranks_russian_and_english_alike(tmp_path: Path) -> None:
    embedder = make_embedder(EmbedderSettings())
    root = write_repo(tmp_path / "repo")
    s = SQLiteStore(root / ".ragstrata" / "index.sqlite", cache_min_rows=None)
    try:
        build_index(root, s, embedder)
        retriever, router = Retriever(s, embedder), Router()
        ru = retriever.retrieve(router.plan("как работает повтор запроса?"), top_k=5)
        en = retriever.retrieve(router.plan("how are failed requests retried?"), top_k=5)
        assert ru.hits[0].symbol == en.hits[0].symbol == "http_client.retry.retry_request"
        assert any(r.startswith("dense:en:C1") for r in ru.hits[0].reasons)
        assert any(r.startswith("dense:C1") for r in en.hits[0].reasons)
        docs = retriever.retrieve(router.plan("how do I install it with pip?"), top_k=3)
        assert docs.hits[0].heading_path == "README.md > Demo shop > Installation"
    finally:
        s.close()


def test_symbol_defined_outside_the_path_scope_is_still_found(ask) -> None:  # type: ignore[no-untyped-def]
    ev = ask("who calls retry_request in src/users?")
    req = ev.requirements["require_def"]
    assert req.satisfied and req.hits[0].path == "src/http_client/retry.py"
    callers = [h for h in ev.hits if any(r.startswith("flow:callers") for r in h.reasons)]
    assert ("src/users/service.py", 22) in {(h.path, h.start_line) for h in callers}
    scoped = [h for h in ev.hits if not any(r.startswith(("flow:", "symbol:")) for r in h.reasons)]
    assert all(h.path.startswith("src/users/") for h in scoped)
