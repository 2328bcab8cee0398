"""The ragstrata MCP server (Model Context Protocol, official ``mcp`` SDK).

- :mod:`ragstrata.mcp.server` — ``build_server(RepoSet)`` and ``run_server(server, transport)``
- :mod:`ragstrata.mcp.repos` — ``RepoSet``: the served-repository registry (:mod:`ragstrata.app.registry`)
- :mod:`ragstrata.mcp.tools` — what each tool does, as plain functions returning ``ToolOutput``
- :mod:`ragstrata.mcp.render` — the compact text views with ``path:start-end`` citations
- :mod:`ragstrata.mcp.descriptions` — tool descriptions and server instructions for agents

Nothing is imported here so ``import ragstrata`` never loads the SDK.
"""

__all__: list[str] = []
