"""The light reads every store backend serves the incremental indexer: relation keys (all,
by path, in a :class:`~ragstrata.core.values.RelationScope`) and definition keys. Mixed into
:class:`~ragstrata.testing.store_conformance.StoreConformance`."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ragstrata.core.rows import DefinitionRow, Layer, RelationRow
from ragstrata.core.values import DefinitionKey, RelationKey, RelationScope
from ragstrata.store.protocols import Store
from ragstrata.testing.store_samples import entry, http_rows

__all__ = ["KeyConformance"]


class KeyConformance:
    """Relation and definition keys; the subclass provides the ``loaded`` fixture."""

    def test_relation_keys_are_the_scanned_relations_named(self, loaded: Store) -> None:
        every = _keys(loaded.scan_rows((Layer.C2,)))
        assert every and list(loaded.scan_relation_keys()) == every
        some = ["web/app.js", "missing.py", "web/app.js", "tests/test_http.py"]
        assert list(loaded.scan_relation_keys(some)) == [k for k in every if k.path in some]
        assert list(loaded.scan_relation_keys([])) == []
        # a receiver type is read back, and the stored target with it
        call = next(r for r in loaded.scan_rows((Layer.C2,)) if isinstance(r, RelationRow))
        typed = dataclasses.replace(call, receiver_type="Session", to_symbol=None)
        rows = [typed if r.id == call.id else r for r in loaded.scan_rows(paths=[call.path])]
        loaded.replace_files([(entry(call.path, "2"), rows)])
        found = [k for k in loaded.scan_relation_keys([call.path]) if k.id == call.id]
        assert found == _keys([typed]) and found[0].to_symbol is None

    def test_relation_keys_in_a_scope(self, loaded: Store) -> None:
        every = _keys(loaded.scan_rows((Layer.C2,)))
        call = next(r for r in loaded.scan_rows((Layer.C2,)) if r.path == "src/app/cli.py")
        assert isinstance(call, RelationRow)
        typed = dataclasses.replace(call, receiver_type="Session")
        rows = [typed if r.id == call.id else r for r in loaded.scan_rows(paths=[call.path])]
        loaded.replace_files([(entry(call.path, "2"), rows)])
        every = _keys(loaded.scan_rows((Layer.C2,)))

        def scoped(scope: RelationScope, paths: list[str] | None = None) -> list[RelationKey]:
            return list(loaded.scan_relation_keys(paths, scope))

        imports = [k for k in every if k.relation == "imports"]
        assert imports and scoped(RelationScope(relations=frozenset({"imports"}))) == imports
        # a substring of to_name, receiver_type or from_symbol; case kept
        query = [k for k in every if "query" in k.to_name or "query" in k.from_symbol]
        assert query and scoped(RelationScope(mentioning=frozenset({"query"}))) == query
        assert scoped(RelationScope(mentioning=frozenset({"QUERY"}))) == []
        assert [k.id for k in scoped(RelationScope(mentioning=frozenset({"essio"})))] == [call.id]
        by_from = [k for k in every if "app.cli" in k.from_symbol]
        assert by_from and scoped(RelationScope(mentioning=frozenset({"app.cli"}))) == by_from
        firsts = [k for i, k in enumerate(every) if i == 0 or every[i - 1].path != k.path]
        assert len(firsts) == 3 and scoped(RelationScope(first_of_file=True)) == firsts
        union = RelationScope(frozenset({"imports"}), frozenset({"essio"}), first_of_file=True)
        want = [k for k in every if k in imports or k.id == call.id or k in firsts]
        assert scoped(union) == want
        assert scoped(union, ["src/app/cli.py"]) == [k for k in want if k.path == call.path]
        assert scoped(RelationScope()) == []
        with pytest.raises(ValueError, match="empty"):
            RelationScope(mentioning=frozenset({""}))

    def test_definition_keys_are_the_scanned_definitions_named(self, loaded: Store) -> None:
        def keys() -> list[DefinitionKey]:
            return [
                DefinitionKey(r.path, r.symbol, r.name, r.parent, r.kind, r.language, r.signature)
                for r in loaded.scan_rows((Layer.C1,))
                if isinstance(r, DefinitionRow)
            ]

        every = keys()
        assert len(every) == 6 and list(loaded.scan_definition_keys()) == every
        assert any(k.parent == "app.http.HttpClient" for k in every)
        rewritten = http_rows(with_parse=False)[::-1]  # another version, another order
        loaded.replace_files([(entry("src/app/http.py", "2"), rewritten)])
        loaded.remove_files(["web/app.js"])
        assert list(loaded.scan_definition_keys()) == keys() != every
        assert not any(k.path == "web/app.js" for k in loaded.scan_definition_keys())


def _keys(rows: Any) -> list[RelationKey]:
    """The keys a store must return for these relation rows."""
    return [
        RelationKey(
            r.path,
            r.id,
            r.relation,
            r.from_symbol,
            r.to_name,
            r.receiver_type,
            r.language,
            r.to_symbol,
        )
        for r in rows
    ]
