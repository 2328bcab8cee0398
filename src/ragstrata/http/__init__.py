"""The HTTP interface: a FastAPI app over the library facade, and the web page at ``/``.

::

    from ragstrata.http import create_app
    app = create_app({"payments": Ragstrata("path/to/repo")}, token=None)

Run it with ``ragstrata serve``. Routes, bodies and error shapes are described by the app's
OpenAPI document at ``/openapi.json`` (no Swagger page: it would load scripts from a CDN).
"""

from __future__ import annotations

from ragstrata.http.app import create_app

__all__ = ["create_app"]
