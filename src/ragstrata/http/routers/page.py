"""The web page at ``/`` and its static files (packaged; nothing loads from elsewhere)."""

from __future__ import annotations

from functools import cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from ragstrata.http.errors import ApiError
from ragstrata.http.render import pygments_css

__all__ = ["router"]

router = APIRouter(include_in_schema=False)


def _web_file(name: str) -> str:
    return resources.files("ragstrata.http").joinpath("web", name).read_text(encoding="utf-8")


@cache
def _static() -> dict[str, tuple[str, str]]:
    return {
        "app.js": ("application/javascript; charset=utf-8", _web_file("app.js")),
        "style.css": ("text/css; charset=utf-8", _web_file("style.css")),
        "pygments.css": ("text/css; charset=utf-8", pygments_css()),
        "index.html": ("text/html; charset=utf-8", _web_file("index.html")),
    }


@router.get("/")
def home() -> HTMLResponse:
    return HTMLResponse(_static()["index.html"][1])


@router.get("/static/{name}")
def static(name: str) -> Response:
    found = _static().get(name) if name != "index.html" else None
    if found is None:
        raise ApiError(404, "not_found", f"no static file {name!r}")
    return Response(found[1], media_type=found[0], headers={"cache-control": "no-cache"})
