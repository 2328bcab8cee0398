"""A small repository in six languages for the generated-docs tests: Go methods in another file
than their receiver type, a Ruby class reopened in a second file, Rust crate docs and an
``impl``, a TypeScript file overview with JSDoc, a Java package-info with Javadoc."""

from __future__ import annotations

from pathlib import Path

FILES: dict[str, str] = {
    "java/com/x/Text.java": 'package com.x;\n\n/**\n * <p>Text helpers.</p>\n */\npublic class Text {\n    /**\n     * Checks emptiness.\n     * <pre>\n     * Text.isEmpty("") = true\n     * </pre>\n     * @param s the text, may be {@code null}\n     * @return {@code true} when empty\n     */\n    public static boolean isEmpty(String s) {\n        return s == null || s.isEmpty();\n    }\n}\n',
    "java/com/x/package-info.java": "/**\n * Text utilities, see {@link com.x.Text}.\n */\npackage com.x;\n",
    "lib/app/base.rb": "module App\n  # The base of an app.\n  class Base\n    # Runs the app.\n    # @param [Integer] port the port\n    def run(port); end\n  end\nend\n",
    "lib/app/extra.rb": "module App\n  class Base\n    # An extra helper.\n    def helper; end\n  end\nend\n",
    "server/handlers.go": "package server\n\n// Serve starts the server.\n//\n// Deprecated: use Run.\nfunc (s *Server) Serve() error {\n\treturn s.listen()\n}\n\nfunc (s *Server) listen() error {\n\treturn nil\n}\n\n// Run runs it.\nfunc (s *Server) Run() error {\n\treturn s.Serve()\n}\n",
    "server/server_test.go": 'package server\n\nimport "testing"\n\nfunc TestServe(t *testing.T) {\n\ts := &Server{}\n\ts.Serve()\n}\n',
    "server/types.go": "// Package server serves things.\npackage server\n\n// Server holds the configuration.\ntype Server struct {\n\tAddr string\n}\n",
    "src/lib.rs": "//! Finds entries in a tree.\npub mod walk;\n",
    "src/walk.rs": "/// A walker over a tree.\npub struct Walker;\n\nimpl Walker {\n    /// Makes one.\n    ///\n    /// # Examples\n    ///\n    /// ```\n    /// // build a walker\n    /// let w = Walker::new();\n    /// ```\n    pub fn new() -> Self {\n        Walker\n    }\n}\n",
    "ts/util.ts": "/** @fileoverview Small numeric utilities. */\n\n/**\n * Adds two numbers.\n * @param {number} a - the first\n * @param {number} b - the second\n * @returns {number} the sum\n * @example\n * // one plus two\n * add(1, 2);\n */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n",
}


def write_polyglot(root: Path) -> Path:
    """Write the fixture files under ``root``."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
