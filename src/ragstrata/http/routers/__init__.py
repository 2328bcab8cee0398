"""The HTTP routes, one module per group; ``ragstrata.http.app.create_app`` mounts them.

- :mod:`.query` — ``POST /v1/route``, ``/v1/search``, ``/v1/ask``
- :mod:`.index` — ``POST /v1/index``, ``GET /v1/jobs/{job_id}``
- :mod:`.source` — ``GET /v1/source``
- :mod:`.status` — ``GET /v1/status``; ``GET /healthz`` (no token)
- :mod:`.page` — the web page ``/`` and its ``/static`` files
- :mod:`ragstrata.http.symbols` — ``/v1/definition``, ``/v1/references``, ``/v1/outline``

Every route parses its body, picks the repository through the registry, calls one facade
method and returns its ``to_dict()``.
"""

__all__: list[str] = []
