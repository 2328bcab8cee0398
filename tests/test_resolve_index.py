"""The resolver's index (``ingest/code/resolve_index.py``): a project nested in a folder is found
by its import's first part (``from flaskr.db import get_db`` in ``examples/tutorial``) through a
table built once, with the same answers as the scan over every module it replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragstrata
from ragstrata.relations.index import Index
from test_code_extract import Extracted, _file

SOURCE = Path(ragstrata.__file__).parent


def _scan(index: Index, name: str) -> str:
    """The definition of ``nested_module`` as a scan over every module (the oracle)."""
    head, dot, rest = name.partition(".")
    found = {
        m
        for m in index.modules
        if m.endswith("." + head) and m[: -len(head) - 1] not in index.modules
    }
    return found.pop() + dot + rest if len(found) == 1 else name


def test_nested_project_import_resolves_and_an_ambiguous_one_does_not() -> None:
    db = "def get_db():\n    return 1\n"
    caller = "from flaskr.db import get_db\n\n\ndef test_db():\n    get_db()\n"
    one = Extracted(
        _file("python", "examples/tutorial/flaskr/__init__.py", "def create_app():\n    pass\n"),
        _file("python", "examples/tutorial/flaskr/db.py", db),
        _file("python", "examples/tutorial/tests/test_db.py", caller),
    )
    call = one.rel("calls", "examples.tutorial.tests.test_db.test_db", "get_db")
    assert call.to_symbol == "examples.tutorial.flaskr.db.get_db"
    two = Extracted(
        _file("python", "examples/tutorial/flaskr/db.py", db),
        _file("python", "examples/other/flaskr/db.py", db),
        _file("python", "examples/tutorial/tests/test_db.py", caller),
    )
    call = two.rel("calls", "examples.tutorial.tests.test_db.test_db", "get_db")
    assert call.to_symbol is None  # two projects named flaskr: the import names neither


@pytest.mark.slow
def test_nested_module_equals_the_scan_on_this_package_nested_in_folders() -> None:
    # the package's top modules in one folder, its store/ in another (without the package's
    # own __init__: there ``store`` is the nested project), so some names find one module,
    # some several, some none
    top = [p for p in sorted(SOURCE.rglob("*.py")) if "store" not in p.parts][:80]
    picked = [("examples/app", p) for p in top]
    picked += [("vendor", p) for p in sorted((SOURCE / "store").rglob("*.py"))]
    files = [
        _file("python", f"{top}/{p.relative_to(SOURCE.parent).as_posix()}", p.read_text("utf-8"))
        for top, p in picked
    ]
    got = Extracted(*files)
    index = Index(got.defs)
    index.add_files(got.raw_relations)
    names = {r.to_name.split(" as ")[0] for r in got.raw_relations if r.relation == "imports"}
    names |= {m.rpartition(".")[2] + ".x" for m in index.modules}
    found = 0
    for name in sorted(names):
        assert index.nested_module(name) == _scan(index, name), name
        found += index.nested_module(name) != name
    assert found > 0  # some names did find a nested module


def test_a_module_learnt_from_a_file_without_definitions_is_seen_after_a_lookup() -> None:
    got = Extracted(_file("python", "examples/app/pkg/core.py", "def run():\n    pass\n"))
    index = Index(got.defs)
    assert index.nested_module("extra.thing") == "extra.thing"
    imports = Extracted(_file("python", "examples/app/extra/__init__.py", "from os import path\n"))
    index.add_files(imports.raw_relations)
    assert index.nested_module("extra.thing") == _scan(index, "extra.thing")
    assert index.nested_module("extra.thing") == "examples.app.extra.thing"
