"""An overview's main parts are the project's public face: the types its README names, then
exported ones, before a private helper type the rest of the code merely uses most. Indexed for
real (SQLite, hash embedder), in Go: a private ``contextKey`` that every middleware file uses
comes after ``Mux``, which the README names, and the exported ``Route``."""

from __future__ import annotations

from pathlib import Path

from answer_fixture import indexed
from ragstrata.answer.graphs.central import central_definitions

MIDDLEWARES = {
    f"middleware/{name}.go": f"""
        package middleware

        // {name.title()} stores its value in the request context.
        func {name.title()}(r Request) Request {{
            return r.WithValue(&contextKey{{"{name}"}}, 1)
        }}
        """
    for name in ("logger", "recoverer", "timeout", "throttle")
}

FILES = {
    "go.mod": "module example.com/router\n\ngo 1.22\n",
    "README.md": "# router\n\nA small HTTP router: a `Mux` matches each request to a handler.\n",
    "mux.go": """
        package router

        // Mux matches each request to the handler registered for its path.
        type Mux struct {
            routes []Route
        }

        // Route is one registered path and its handler.
        type Route struct {
            Pattern string
        }
        """,
    "app/main.go": """
        package main

        func main() {
            m := &router.Mux{}
            m.routes = append(m.routes, router.Route{Pattern: "/"})
        }
        """,
    "app/serve.go": """
        package main

        func serve(m *router.Mux) router.Route {
            return router.Route{Pattern: "/health"}
        }
        """,
    "middleware/key.go": """
        package middleware

        // contextKey is a value for use with context.WithValue.
        type contextKey struct {
            name string
        }

        type Request struct{}
        """,
    **MIDDLEWARES,
}


def test_the_parts_an_overview_names_are_the_project_s_public_face(tmp_path: Path) -> None:
    with indexed(tmp_path, FILES) as repo:
        names = [row.name for row in central_definitions(repo.reader)]
    assert "contextKey" in names, names  # used from four files: still a part, just not first
    assert names.index("Mux") < names.index("contextKey"), names
    assert names[0] == "Mux", names  # the type the README names
