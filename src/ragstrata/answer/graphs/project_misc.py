"""ProjectMiscGraph: project overview questions (what is it, how is it laid out, how to run it).

Extractive answer from the index: the README's opening paragraph (D1), the sections and code
retrieval ranked highest for the question, manifests (pyproject.toml, setup.cfg, package.json,
go.mod, Cargo.toml: name, version, description, console scripts), the top-level folders, the
languages by file count and the entry points (scripts from manifests, ``__main__.py``,
``main.go``, ``main.rs``...). Folder and language counts come from the index catalog.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragstrata.answer.graphs.base import (
    CitationList,
    cite,
    first_sentence,
    overlaps,
    project_words,
    quote_hits,
)
from ragstrata.answer.graphs.central import parts_part
from ragstrata.answer.graphs.code_map import PackageEntry, code_map
from ragstrata.answer.graphs.common import EvidenceGraph
from ragstrata.answer.graphs.focus import not_overview_path
from ragstrata.answer.graphs.messages import Messages
from ragstrata.answer.graphs.sections import (
    has_body,
    heading_section,
    prose_paragraph,
    quoted_section,
    readme_parts,
    topic_sections,
)
from ragstrata.answer.graphs.settings import settings_part
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.core.answer import Answer
from ragstrata.core.evidence import Evidence, Hit
from ragstrata.core.languages import detect_language
from ragstrata.query.facets import facets_of
from ragstrata.query.models import RouterPlan

__all__ = ["MANIFESTS", "Manifest", "ProjectMiscGraph", "parse_manifest"]

MANIFESTS = ("pyproject.toml", "setup.cfg", "package.json", "go.mod", "Cargo.toml")
_ENTRY_FILES = ("__main__.py", "main.go", "main.rs", "main.py")
_MAX_DIRS = 12
_MAX_LANGUAGES = 8
_MAX_ENTRIES = 10
_MAX_RELEVANT = 2
_SETUP_TOPICS = ("install", "build", "usage")


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a manifest says about the project."""

    path: str
    name: str | None = None
    version: str | None = None
    description: str | None = None
    module: str | None = None
    scripts: dict[str, str] = field(default_factory=dict)  # command -> target


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def parse_manifest(path: str, text: str) -> Manifest:
    """Parse one manifest's text (unparseable text yields an empty :class:`Manifest`)."""
    base = posixpath.basename(path)
    try:
        if base == "go.mod":
            match = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
            return Manifest(path, module=match.group(1) if match else None)
        if base == "package.json":
            data = json.loads(text)
            bin_ = data.get("bin")
            scripts = {data.get("name", "bin"): bin_} if isinstance(bin_, str) else (bin_ or {})
            return Manifest(
                path,
                _str(data.get("name")),
                _str(data.get("version")),
                _str(data.get("description")),
                scripts={str(k): str(v) for k, v in scripts.items()},
            )
        if base == "setup.cfg":
            cfg = configparser.ConfigParser()
            cfg.read_string(text)
            meta = cfg["metadata"] if cfg.has_section("metadata") else {}
            raw = cfg.get("options.entry_points", "console_scripts", fallback="")
            pairs = (ln.split("=", 1) for ln in raw.splitlines() if "=" in ln)
            return Manifest(
                path,
                _str(meta.get("name")),
                _str(meta.get("version")),
                _str(meta.get("description")),
                scripts={k.strip(): v.strip() for k, v in pairs},
            )
        data = tomllib.loads(text)
        table = data.get("project") or data.get("package") or {}
        poetry = data.get("tool", {}).get("poetry", {})
        scripts = table.get("scripts") or poetry.get("scripts") or {}
        bins = {b["name"]: b.get("path", "") for b in data.get("bin", []) if "name" in b}
        return Manifest(
            path,
            _str(table.get("name") or poetry.get("name")),
            _str(table.get("version") or poetry.get("version")),
            _str(table.get("description") or poetry.get("description")),
            scripts={str(k): str(v) for k, v in {**scripts, **bins}.items()},
        )
    except (ValueError, KeyError, TypeError, AttributeError, configparser.Error):
        return Manifest(path)


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    return 1


class ProjectMiscGraph(EvidenceGraph):
    """Answers PROJECT_MISC plans."""

    graph_id = "ProjectMiscGraph"

    def extractive(self, plan: RouterPlan, evidence: Evidence, msgs: Messages) -> Answer:
        paths = self.reader.paths()
        focus = facets_of(plan)
        citations = CitationList()
        parts: list[str] = []
        quoted: list[tuple[str, int, int]] = []
        lead = ""
        setup = [t for t in focus.topics if t in _SETUP_TOPICS]
        if focus.configure:  # "how do I turn off …": the setting leads, then the docs
            setting = settings_part(self.reader, plan, evidence, focus, msgs, citations)
            if setting is not None:
                parts.append(setting[0])
                lead = setting[1]
                quoted += setting[2]
        if setup:
            for section in topic_sections(self.reader, paths, setup, focus.words):
                part, section_lead, hit = quoted_section(section, msgs, citations, "project:topic")
                lead = lead or section_lead
                parts.append(part)
                quoted.append((hit.path, hit.start_line, hit.end_line))
        if "howto" in focus.asks and not (focus.topics or focus.configure or lead):
            # "How do I serve static files?": the section headed so answers it
            headed = heading_section(self.reader, paths, focus.concepts, project_words(plan))
            if headed is not None:
                groups = stem_groups(focus.concepts, project_words(plan))
                part, lead, hit = quoted_section(headed, msgs, citations, "project:heading", groups)
                parts.append(part)
                quoted.append((hit.path, hit.start_line, hit.end_line))
        if focus.asks and not focus.topics and not lead:
            code = self._code_part(evidence, msgs, citations, quoted)
            if code is not None:
                parts.append(code[0])
                lead = code[1]
        overview = self._overview(paths)
        if overview is not None and not overlaps(overview, quoted):
            cited = citations.add_hit(overview)
            summary = prose_paragraph(overview.text)
            lead = lead or msgs.t("lead_overview", cite=cited, summary=first_sentence(summary))
            parts.append(msgs.t("overview", cite=cited) + "\n\n" + summary)
            quoted.append((overview.path, overview.start_line, overview.end_line))
        if "parts" in focus.topics:  # the README's description first, then the parts the code uses
            found_parts = parts_part(self.reader, msgs, citations)
            if found_parts is not None:
                parts.append(found_parts[0])
                lead = lead or found_parts[1]
        if not setup:
            packages = code_map(self.reader, paths)
            if packages:
                parts.append(self._code_map_part(packages, msgs, citations))
        relevant = quote_hits(
            evidence.hits,
            citations,
            quoted,
            lambda h: (
                h.layer not in ("C0", "C2", "D0")
                and not not_overview_path(h.path)
                and (h.layer not in ("D1", "D2") or has_body(h.text, h.heading_path or ""))
            ),
            _MAX_RELEVANT,
        )
        if relevant:
            parts.append(msgs.t("relevant") + "\n\n" + "\n\n".join(relevant))
        manifests = self._manifests(paths)
        if manifests:
            parts.append(self._manifest_part(manifests, msgs, citations))
        if not setup:
            parts += self._layout_parts(paths, msgs)
        entries = self._entry_part(paths, manifests, msgs, citations)
        if entries:
            parts.append(entries)
        parts = [p for p in parts if p]
        if not parts:
            from ragstrata.answer.graphs.missing import nothing_found_answer

            return nothing_found_answer(plan, self.graph_id)
        if not lead and citations.items():
            c = citations.items()[0]
            lead = msgs.t("lead_relevant", cite=cite(c.path, c.start_line, c.end_line))
        return self.extractive_answer(parts, citations, msgs, lead=lead)

    @staticmethod
    def _code_part(
        evidence: Evidence,
        msgs: Messages,
        citations: CitationList,
        quoted: list[tuple[str, int, int]],
    ) -> tuple[str, str] | None:
        """A code question that reached the fallback intent ("как Flask сохраняет сессию?"):
        the code retrieval found leads, the project overview follows."""
        layers = ("C1", "C3", "D1", "D2")  # a setting is in the code or in the docs
        code = [
            h
            for h in evidence.hits
            if h.layer in layers
            and not not_overview_path(h.path)
            and (h.layer not in ("D1", "D2") or has_body(h.text, h.heading_path or ""))
        ]
        first = quote_hits(code, citations, quoted, lambda h: True, _MAX_RELEVANT)
        if not first:
            return None
        c = citations.items()[0]
        lead = msgs.t("lead_relevant", cite=cite(c.path, c.start_line, c.end_line))
        return msgs.t("relevant_code") + "\n\n" + "\n\n".join(first), lead

    @staticmethod
    def _code_map_part(
        packages: list[PackageEntry], msgs: Messages, citations: CitationList
    ) -> str:
        items = []
        for entry in packages:
            cited = citations.add(entry.path, entry.start_line, entry.end_line)
            if entry.summary:
                items.append(
                    msgs.t("code_map_item", name=entry.folder, doc=entry.summary, cite=cited)
                )
            else:
                items.append(msgs.t("code_map_item_bare", name=entry.folder, cite=cited))
        return msgs.t("code_map") + "\n" + "\n".join(items)

    def blocks(self, plan: RouterPlan, evidence: Evidence) -> Sequence[Hit]:
        overview = self._overview(self.reader.paths())
        hits = list(evidence.hits)
        return ([overview] if overview is not None else []) + hits

    # ------------------------------------------------------------------ sources
    def _overview(self, paths: list[str]) -> Hit | None:
        """Where the root README says what the project is (:func:`readme_parts`): its
        paragraph or its features, not the title, badges, a logo or release news."""
        found = readme_parts(self.reader, paths)
        if found is None:
            return None
        path, start, text = found
        end = start + text.count("\n")
        return Hit(
            layer="D1",
            path=path,
            start_line=start,
            end_line=end,
            symbol=None,
            score=0.0,
            reasons=("readme",),
            text=text,
            kind="section",
        )

    def _manifests(self, paths: list[str]) -> list[tuple[Manifest, str]]:
        """Top-level manifests, each parsed from its whole indexed text."""
        out = []
        for path in paths:
            if posixpath.basename(path) not in MANIFESTS or path.count("/") > 1:
                continue
            text = self.reader.file_text(path)
            if text:
                out.append((parse_manifest(path, text), text))
        return out

    # ------------------------------------------------------------------ parts
    @staticmethod
    def _manifest_part(
        manifests: list[tuple[Manifest, str]], msgs: Messages, citations: CitationList
    ) -> str:
        items = []
        for manifest, text in manifests:
            details = [
                msgs.t(key, value=value)
                for key, value in (
                    ("manifest_name", manifest.name),
                    ("manifest_version", manifest.version),
                    ("manifest_module", manifest.module),
                    ("manifest_description", manifest.description),
                )
                if value
            ]
            if not details:
                continue
            end = max(1, len(text.splitlines()))
            citations.add(manifest.path, 1, end)
            items.append(msgs.t("manifest_item", path=manifest.path, details=", ".join(details)))
        return msgs.t("manifests") + "\n" + "\n".join(items) if items else ""

    @staticmethod
    def _layout_parts(paths: list[str], msgs: Messages) -> list[str]:
        parts = []
        dirs = Counter(p.split("/", 1)[0] for p in paths if "/" in p)
        if dirs:
            ranked = sorted(dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:_MAX_DIRS]
            rows = [msgs.t("layout_item", name=name, count=count) for name, count in ranked]
            parts.append(msgs.t("layout") + "\n" + "\n".join(rows))
        languages = Counter(detect_language(p) for p in paths)
        languages.pop("unknown", None)
        if languages:
            ranked = sorted(languages.items(), key=lambda kv: (-kv[1], kv[0]))[:_MAX_LANGUAGES]
            items = ", ".join(msgs.t("language_item", name=n, count=c) for n, c in ranked)
            parts.append(msgs.t("languages", items=items))
        return parts

    @staticmethod
    def _entry_part(
        paths: list[str],
        manifests: list[tuple[Manifest, str]],
        msgs: Messages,
        citations: CitationList,
    ) -> str:
        items = []
        for manifest, text in manifests:
            for name, target in sorted(manifest.scripts.items()):
                line = _line_of(text, target)
                cited = citations.add(manifest.path, line, line)
                items.append(msgs.t("entry_script", name=name, target=target, cite=cited))
        for path in paths:
            if posixpath.basename(path) in _ENTRY_FILES:
                items.append(msgs.t("entry_file", cite=citations.add(path, 1, 1)))
        if not items:
            return ""
        return msgs.t("entry_points") + "\n" + "\n".join(items[:_MAX_ENTRIES])
