"""How-questions from the fifteenth round's blind batches.

«Как выбирается точка входа по полю main в package.json?» names the file the code reads, not
the place to look: a how-question asks how the code works, so a path scope holding no
definition (a manifest, a data file) is relaxed for it, as an empty scope is. A question
about a file of code keeps to that file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import indexed
from ragstrata.retrieve.retriever import RELAXED_SCOPE

PACKAGE_FILES = {
    "package.json": '{"name": "finder", "version": "1.0.0", "main": "lib/find.js"}\n',
    "lib/find.js": """\
        'use strict';

        function loadAsDirectory(dir, readPackage) {
          var pkg = readPackage(dir + '/package.json');
          if (pkg && pkg.main) {
            var entry = dir + '/' + pkg.main;
            if (exists(entry)) { return entry; }
          }
          return dir + '/index.js';
        }

        function exists(file) {
          return require('fs').existsSync(file);
        }

        module.exports = loadAsDirectory;
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How is the entry point chosen from the main field in package.json when the path is "
        "a folder?",
        "Как выбирается точка входа по полю main в package.json, если путь указывает на каталог?",
    ],
)
def test_a_how_question_looks_past_the_data_file_it_names(tmp_path: Path, question: str) -> None:
    with indexed(tmp_path, PACKAGE_FILES) as repo:
        hits = repo.search(question).hits
        assert hits and hits[0].path == "lib/find.js", [(h.layer, h.path) for h in hits[:4]]
        assert any(RELAXED_SCOPE in r for r in hits[0].reasons)
        lead = repo.ask(question).answer.citations[0]
        assert lead.path == "lib/find.js", lead


def test_a_how_question_about_a_file_of_code_keeps_to_it(tmp_path: Path) -> None:
    files = {**PACKAGE_FILES, "lib/other.js": "function loadAsDirectory() { return 1; }\n"}
    with indexed(tmp_path, files) as repo:
        hits = repo.search("How does lib/find.js choose the entry point?").hits
        assert {h.path for h in hits} == {"lib/find.js"}, [h.path for h in hits]
