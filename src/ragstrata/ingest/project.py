"""The repository's own names and its declared dependencies, read from its manifests.

A question names the project ("how does gin match a route?", «как flask обрабатывает
ошибки?») or one of its dependencies far more often than a definition of that name; the router
makes these words key terms (subtype ``project`` / ``package``), never a symbol that must be
defined. The names come from:

- ``go.mod``: the module path and its last segment (``github.com/gin-gonic/gin`` -> ``gin``;
  a ``/v2`` tail is skipped); ``require`` lines are dependencies;
- ``package.json``: ``name`` (a ``private`` package below the root names nothing); the keys
  of ``dependencies``,
  ``devDependencies``, ``peerDependencies`` and ``optionalDependencies``;
- ``pyproject.toml`` (``[project]``, ``[tool.poetry]``), ``setup.cfg`` (``[metadata]``),
  ``setup.py`` (``name=``): the distribution name; requirements (PEP 508 names);
- ``Cargo.toml``: ``[package]``, ``[lib]`` and ``[[bin]]`` names; ``[*dependencies]`` keys;
- ``*.gemspec``: ``.name =``; ``add_*dependency`` names;
- ``pom.xml``: the project's own ``artifactId``; the ``artifactId`` of each dependency;
- a Python repository's top-level import package (``src/requests/__init__.py`` ->
  ``requests``; one or two of them), which names the project even when ``setup.py`` reads its
  name from a variable;
- the repository folder's name (``flask@2ac8...`` and ``flask-3.1.0`` -> ``flask``).

Every name also stands in its ``-`` / ``_`` spellings (crate ``fd-find`` is ``fd_find`` in
code); a scoped npm name also by its scope (``@zod/mini`` -> ``zod``). Manifests are read at the root and up to two folders down (``packages/zod/``), never in
tests, examples, fixtures, documentation or vendored code; each at most 256 KiB, and text
that does not parse gives no names.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragstrata.text.stopwords import is_stopword

__all__ = ["MANIFEST_NAMES", "ProjectNames", "manifest_paths", "parse_names", "project_names"]

MANIFEST_NAMES = (
    "go.mod",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "Cargo.toml",
    "pom.xml",
)
_MAX_BYTES = 256 * 1024
_MAX_DEPTH = 2  # folders below the root where a manifest still names the project
_MAX_NAMES = 400
_MAX_PACKAGES = 2  # top-level Python packages that still name the project
_SKIP_DIRS = frozenset(
    {
        "test", "tests", "testdata", "testing", "spec", "fixtures", "fixture", "examples",
        "example", "_examples", "samples", "sample", "demo", "demos", "docs", "doc", "vendor",
        "third_party", "thirdparty", "node_modules", "bench", "benches", "benchmarks",
    }
)  # fmt: skip
_PEP508_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.~-]+(?:/[\w.~-]+)+)\s+v\d", re.MULTILINE)
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
_GEM_NAME = re.compile(r"\.name\s*=\s*[\"']([^\"']+)[\"']")
_GEM_DEP = re.compile(r"add_(?:runtime_|development_)?dependency\s*\(?\s*[\"']([^\"']+)[\"']")
_SETUP_NAME = re.compile(r"\bname\s*=\s*[\"']([A-Za-z0-9][A-Za-z0-9._-]*)[\"']")
_SETUP_REQUIRES = re.compile(r"install_requires\s*=\s*\[([^\]]*)\]", re.DOTALL)
_QUOTED = re.compile(r"[\"']([^\"']+)[\"']")
_POM_BLOCKS = re.compile(
    r"<(parent|dependencies|dependencyManagement|build|profiles|reporting|plugins)\b.*?</\1>",
    re.DOTALL,
)
_POM_DEPENDENCY = re.compile(r"<dependency>.*?</dependency>", re.DOTALL)
_ARTIFACT = re.compile(r"<artifactId>\s*([^<\s]+)\s*</artifactId>")
_FOLDER_TAIL = re.compile(r"(@.*|[-_]v?\d+(?:\.\d+)+.*)$")
_MAJOR_VERSION = re.compile(r"v\d+")
# where a repository is hosted, as a manifest's `repository` / project URL writes it
# (`https://github.com/fatih/color`, `git+https://…/node-lru-cache.git`, `github:owner/name`)
_HOSTED = re.compile(
    r"(?:(?:github|gitlab|codeberg)\.(?:com|org)|bitbucket\.org|^github:|^gitlab:)[/:]?"
    r"([A-Za-z0-9][\w.-]*)/([A-Za-z0-9][\w.-]*?)(?:\.git)?(?:[/#?]|$)"
)


@dataclass(frozen=True, slots=True)
class ProjectNames:
    """The project's own names and its dependencies' names (every spelling, sorted)."""

    names: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()

    def to_context(self) -> dict[str, list[str]]:
        """The ``repo_context`` keys the router reads (``project_names``, ``dependencies``)."""
        return {"project_names": list(self.names), "dependencies": list(self.dependencies)}


def manifest_paths(paths: Iterable[str]) -> list[str]:
    """The manifests among ``paths`` (repository-relative) that may name the project."""
    out = []
    for path in paths:
        *folders, name = path.split("/")
        if len(folders) > _MAX_DEPTH or any(f.lower() in _SKIP_DIRS for f in folders):
            continue
        if name in MANIFEST_NAMES or name.endswith(".gemspec"):
            out.append(path)
    return sorted(out, key=lambda p: (p.count("/"), p))


def project_names(root: Path, paths: Iterable[str]) -> ProjectNames:
    """The names of the repository at ``root`` from its manifests among ``paths`` (the indexed
    files) and the root's own manifests on disk, plus the folder's name."""
    found = set(manifest_paths(paths))
    for name in MANIFEST_NAMES:
        if (root / name).is_file():
            found.add(name)
    names: list[str] = []
    deps: list[str] = []
    for path in sorted(found, key=lambda p: (p.count("/"), p)):
        text = _read(root / path)
        if text is None:
            continue
        own, needs = parse_names(path, text, nested="/" in path)
        names += own
        deps += needs
    names += _import_packages(paths)
    folder = _FOLDER_TAIL.sub("", root.name)
    if folder:
        names.append(folder)
    own_forms = _forms(names, tails=False)
    dep_forms = [d for d in _forms(deps, tails=True) if d not in set(own_forms)]
    return ProjectNames(tuple(own_forms[:_MAX_NAMES]), tuple(dep_forms[:_MAX_NAMES]))


def _import_packages(paths: Iterable[str]) -> list[str]:
    """The Python package a repository is (``src/requests/__init__.py`` or
    ``requests/__init__.py`` -> ``requests``): its import name, even when ``setup.py`` reads
    the distribution name from a variable. At most :data:`_MAX_PACKAGES` of them, else none (a
    folder of many packages names no one project)."""
    found = set()
    for path in paths:
        parts = path.split("/")
        if parts[-1] != "__init__.py":
            continue
        folders = parts[1:-1] if parts[0] == "src" else parts[:-1]
        if len(folders) == 1 and folders[0].lower() not in _SKIP_DIRS:
            found.add(folders[0])
    return sorted(found) if len(found) <= _MAX_PACKAGES else []


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            data = fh.read(_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


def parse_names(path: str, text: str, *, nested: bool = False) -> tuple[list[str], list[str]]:
    """(the project's names, its dependencies) as one manifest declares them; nothing for text
    that does not parse, nor for a ``private`` package below the root (a monorepo's test or
    documentation package)."""
    base = path.rsplit("/", 1)[-1]
    try:
        if base == "go.mod":
            module = _GO_MODULE.search(text)
            body = text[module.end() :] if module else text
            return ([module.group(1)] if module else []), _GO_REQUIRE.findall(body)
        if base == "package.json":
            return _package_json(json.loads(text), nested)
        if base == "setup.cfg":
            return _setup_cfg(text)
        if base == "setup.py":
            name = _SETUP_NAME.search(text)
            reqs = _SETUP_REQUIRES.search(text)
            deps = _QUOTED.findall(reqs.group(1)) if reqs else []
            return ([name.group(1)] if name else []), _pep508(deps)
        if base == "pom.xml":
            return _pom(text)
        if base.endswith(".gemspec"):
            return _GEM_NAME.findall(text)[:1], _GEM_DEP.findall(text)
        return _toml(base, tomllib.loads(text))
    except (ValueError, TypeError, AttributeError, KeyError, configparser.Error):
        return [], []


def _package_json(data: Any, nested: bool) -> tuple[list[str], list[str]]:
    if not isinstance(data, dict) or (nested and data.get("private") is True):
        return [], []
    name = data.get("name")
    deps: list[str] = []
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        table = data.get(key)
        if isinstance(table, dict):
            deps += [str(k) for k in table]
    repository = data.get("repository")
    if isinstance(repository, dict):
        repository = repository.get("url")
    return ([name] if isinstance(name, str) else []) + _hosted([repository]), deps


def _hosted(urls: Iterable[Any]) -> list[str]:
    """``owner/name`` of each repository URL a manifest gives (the way people name a project:
    "fatih/color", "isaacs/node-lru-cache")."""
    out = []
    for url in urls:
        found = _HOSTED.search(url.strip()) if isinstance(url, str) else None
        if found:
            out.append(f"{found.group(1)}/{found.group(2)}")
    return out


def _setup_cfg(text: str) -> tuple[list[str], list[str]]:
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read_string(text)
    name = cfg.get("metadata", "name", fallback="")
    reqs = cfg.get("options", "install_requires", fallback="")
    return ([name] if name else []), _pep508(reqs.splitlines())


def _toml(base: str, data: dict[str, Any]) -> tuple[list[str], list[str]]:
    names: list[str] = []
    deps: list[str] = []
    if base == "Cargo.toml":
        for key in ("package", "lib"):
            table = data.get(key)
            if isinstance(table, dict) and isinstance(table.get("name"), str):
                names.append(table["name"])
        package = data.get("package")
        if isinstance(package, dict):
            names += _hosted([package.get("repository"), package.get("homepage")])
        bins = data.get("bin", [])
        names += [b["name"] for b in bins if isinstance(b, dict) and isinstance(b.get("name"), str)]
        tables = [data, data.get("workspace", {})]
        for table in tables:
            for key in ("dependencies", "dev-dependencies", "build-dependencies"):
                section = table.get(key)
                if isinstance(section, dict):
                    deps += [str(k) for k in section]
        return names, deps
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    for table in (project, poetry):
        if isinstance(table.get("name"), str):
            names.append(table["name"])
    urls = project.get("urls")
    if isinstance(urls, dict):
        names += _hosted(urls.values())
    names += _hosted([poetry.get("repository"), poetry.get("homepage")])
    deps += _pep508(project.get("dependencies", []))
    for group in project.get("optional-dependencies", {}).values():
        deps += _pep508(group)
    for group in data.get("dependency-groups", {}).values():
        deps += _pep508(g for g in group if isinstance(g, str))
    deps += [str(k) for k in poetry.get("dependencies", {}) if k != "python"]
    return names, deps


def _pep508(specs: Iterable[Any]) -> list[str]:
    out = []
    for spec in specs:
        match = _PEP508_NAME.match(str(spec)) if isinstance(spec, str) else None
        if match:
            out.append(match.group(1))
    return out


def _pom(text: str) -> tuple[list[str], list[str]]:
    own = _ARTIFACT.search(_POM_BLOCKS.sub("", text))
    deps = [m.group(1) for d in _POM_DEPENDENCY.findall(text) for m in _ARTIFACT.finditer(d)]
    return ([own.group(1)] if own else []), deps


def _forms(names: Iterable[str], *, tails: bool) -> list[str]:
    """Every spelling of each name a question may use: as declared, its last path segment
    (``github.com/a/b`` -> ``b``), ``-``/``_`` swapped; a scoped package (``@zod/mini``) by
    its scope (``zod``), and for a dependency also by its last part (``mini``)."""
    out: dict[str, None] = {}
    for raw in names:
        name = raw.strip()
        parts = [p for p in name.split("/") if p]
        if len(parts) > 1 and _MAJOR_VERSION.fullmatch(parts[-1]):
            parts = parts[:-1]
        forms = [name]
        if not tails and len(parts) >= 3 and "." in parts[0]:
            forms.append("/".join(parts[-2:]))  # github.com/fatih/color: also "fatih/color"
        if name.startswith("@") and len(parts) == 2:
            forms.append(parts[0][1:])
            tail = parts[1] if tails else ""
        else:
            tail = parts[-1] if parts else ""
        forms += [tail, tail.replace("-", "_"), tail.replace("_", "-")]
        for form in forms:
            if len(form) >= 2 and not is_stopword(form) and form.lower() not in out:
                out[form.lower()] = None
    return list(out)
