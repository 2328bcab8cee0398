"""``POST /v1/route``, ``/v1/search``, ``/v1/ask``: the router plan, ranked hits, cited answer."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ragstrata.http import models as m
from ragstrata.http.render import highlight_hit, markdown_html
from ragstrata.http.state import Served

__all__ = ["router"]

router = APIRouter()


def _add_html(data: dict[str, Any]) -> dict[str, Any]:
    for hit in data.get("hits", ()):
        hit["html"] = highlight_hit(hit)
    answer = data.get("answer")
    if isinstance(answer, dict):
        answer["html"] = markdown_html(str(answer.get("text", "")))
    return data


@router.post("/route", summary="Router plan of a question", response_model=dict[str, Any])
def route(body: m.RouteRequest, served: Served) -> dict[str, Any]:
    """The Intent Router plan (schema 1.1): intent, anchors, expansions, layers. Needs no index;
    with several repositories and none named, the first one's settings route it."""
    with served.reading(body.repo, indexed=False, first_when_omitted=True) as (_, rs):
        return rs.route(body.query, body.conversation_state, body.repo_context)


@router.post("/search", summary="Plan and ranked hits", response_model=m.SearchResponse)
def search(body: m.SearchRequest, served: Served) -> JSONResponse:
    """Route the query and return the ranked evidence (``ragstrata search --json``)."""
    with served.reading(body.repo) as (_, rs):
        data = rs.search(body.query, layers=body.layers, top_k=body.top_k).to_dict()
    return JSONResponse(_add_html(data) if body.render else data)


@router.post("/ask", summary="Cited answer", response_model=dict[str, Any])
def ask(body: m.AskRequest, served: Served) -> JSONResponse:
    """Answer from cited evidence (``ragstrata ask --json``): ``plan``, ``hits``,
    ``evidence``, ``answer`` (``status``, ``lead``, ``text``, ``citations``), ``session``."""
    with served.reading(body.repo) as (_, rs):
        data = rs.ask(body.query, session=body.session, top_k=body.top_k).to_dict()
    return JSONResponse(_add_html(data) if body.render else data)
