"""A Rust unit test written beside the code (``#[cfg(test)] mod tests``) is a test use: asked
"who calls it?", the code's own callers lead, the tests follow. Asked through the facade on a
small crate (real SQLite, hash embedder), in English and Russian."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import indexed

CRATE = {
    "Cargo.toml": '[package]\nname = "envfilter"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod parser;\nmod registry;\n\nuse parser::parse_spec;\n",
    "src/parser.rs": """
        pub(crate) fn parse_spec(spec: &str) -> Vec<String> {
            spec.split(',').map(|s| s.trim().to_owned()).collect()
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn parse_spec_valid() {
                let found = parse_spec("a,b");
                assert_eq!(found.len(), 2);
            }

            #[test]
            fn parse_spec_empty() {
                let found = parse_spec("");
                assert_eq!(found.len(), 1);
            }
        }
        """,
    "src/registry.rs": """
        use crate::parse_spec;

        pub struct Builder {
            directives: Vec<String>,
        }

        impl Builder {
            pub fn parse(&mut self, filters: &str) -> &mut Self {
                self.directives = parse_spec(filters);
                self
            }
        }
        """,
}


@pytest.mark.parametrize("question", ["Who calls parse_spec?", "Кто вызывает parse_spec?"])
def test_the_code_calling_a_function_leads_its_unit_tests(tmp_path: Path, question: str) -> None:
    repo = indexed(tmp_path, CRATE)
    try:
        result = repo.ask(question)
    finally:
        repo.close()
    cites = [(c.path, c.start_line) for c in result.answer.citations]
    assert cites and cites[0] == ("src/registry.rs", 9), cites
    assert "Builder::parse" in result.answer.lead, result.answer.lead
    # the unit tests are still listed, after the code
    assert ("src/parser.rs", 10) in cites, cites
