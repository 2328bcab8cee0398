"""A module's own documentation, read from its source text at generation time.

- Python: the module docstring (:func:`ast.get_docstring`, so any quoting works);
- Rust: the leading ``//!`` lines or a ``/*! ... */`` block (crate / module docs);
- Go: the comment block directly above ``package x`` (``doc.go`` is preferred for a package);
- JavaScript / TypeScript: a leading ``/** ... */`` carrying ``@file``, ``@fileoverview``,
  ``@overview`` or ``@module``, or a leading block comment followed by a blank line (a file
  header, not a comment attached to the first definition);
- Java: the Javadoc above ``package`` in ``package-info.java`` (or the file's own header);
- Ruby: the leading ``#`` comment block right above the first ``module`` / ``class``
  (magic comments skipped).

The result is the comment text without markers plus its 1-based line span, so the page can cite
it. :func:`module_doc` is pure: text in, :class:`ModuleDoc` or ``None`` out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = ["PACKAGE_DOC_FILES", "ModuleDoc", "module_doc"]

# files whose documentation is the package's (checked in this order within a folder)
PACKAGE_DOC_FILES = ("doc.go", "package-info.java", "__init__.py", "lib.rs", "main.rs",
                     "mod.rs", "index.ts", "index.js", "index.mjs")
_MAGIC = re.compile(r"^#\s*(?:frozen_string_literal|encoding|coding|-\*-|!|typed:|warn_)", re.I)
_FILE_TAGS = re.compile(r"@(?:file|fileoverview|overview|module|packageDocumentation)\b")
_DIRECTIVES = re.compile(r"^\s*(?:@ts-|eslint|prettier|istanbul|jshint|global\s|tslint|#region)")
_LICENSE = re.compile(r"(?i)\b(?:copyright|licensed under|license|spdx-license)\b")


@dataclass(frozen=True, slots=True)
class ModuleDoc:
    """The documentation comment of a file: text (markers stripped) and its line span."""

    text: str
    start_line: int
    end_line: int


def module_doc(text: str, language: str) -> ModuleDoc | None:
    """The module-level documentation of a source file's ``text``, if it has one."""
    fn = _BY_LANGUAGE.get(language)
    if fn is None or not text:
        return None
    found = fn(text)
    if found is None or not found.text.strip():
        return None
    return found


def _python(text: str) -> ModuleDoc | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if not tree.body or not isinstance(tree.body[0], ast.Expr):
        return None
    node = tree.body[0]
    doc = ast.get_docstring(tree)
    if not doc:
        return None
    return ModuleDoc(doc, node.lineno, node.end_lineno or node.lineno)


def _strip_block(lines: list[str]) -> list[str]:
    """A ``/* ... */`` block without its markers; `` * `` gutters removed, other indentation
    kept (a Go or Rust block comment indents code with a tab)."""
    out = []
    starred = all(s.lstrip().startswith("*") for s in lines[1:] if s.strip())
    for i, line in enumerate(lines):
        s = line.rstrip()
        if i == 0:
            s = re.sub(r"^\s*/\*[*!]?\s?", "", s)
        s = re.sub(r"\s*\*+/$", "", s)
        if i and starred:
            s = re.sub(r"^\s*\* ?", "", s)
        out.append(s)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def _block_at(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """The ``/* ... */`` block starting at line index ``i``: (its lines, end index)."""
    for j in range(i, len(lines)):
        if "*/" in lines[j]:
            return lines[i : j + 1], j
    return None


def _line_run(lines: list[str], i: int, prefix: str) -> tuple[list[str], int]:
    j = i
    while j < len(lines) and lines[j].lstrip().startswith(prefix):
        j += 1
    return lines[i:j], j - 1


def _rust(text: str) -> ModuleDoc | None:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#![")):
        i += 1
    if i >= len(lines):
        return None
    head = lines[i].lstrip()
    if head.startswith("//!"):
        run, end = _line_run(lines, i, "//!")
        body = [re.sub(r"^\s*//! ?", "", s) for s in run]
        return ModuleDoc("\n".join(body).strip("\n"), i + 1, end + 1)
    if head.startswith("/*!"):
        found = _block_at(lines, i)
        if found:
            return ModuleDoc("\n".join(_strip_block(found[0])), i + 1, found[1] + 1)
    return None


def _first(lines: list[str], pattern: str) -> int | None:
    return next((i for i, line in enumerate(lines) if re.match(pattern, line)), None)


def _go(text: str) -> ModuleDoc | None:
    lines = text.split("\n")
    k = _first(lines, r"^package\s+\w+")
    if k is None:
        return None
    end = k - 1
    if end < 0 or not lines[end].strip():
        return None
    if lines[end].strip().endswith("*/"):
        start = end
        while start > 0 and "/*" not in lines[start]:
            start -= 1
        body = _strip_block(lines[start : end + 1])
    else:
        start = end
        while start > 0 and lines[start - 1].lstrip().startswith("//"):
            start -= 1
        body = [re.sub(r"^\s*// ?", "", s) for s in lines[start : end + 1]]
        if not lines[start].lstrip().startswith("//"):
            return None
    if body and body[0].startswith(("go:build", "+build")):
        return None
    return ModuleDoc("\n".join(body).strip("\n"), start + 1, end + 1)


def _c_header(text: str, *, tags_only: bool) -> ModuleDoc | None:
    """JS/TS/Java: the first block comment of the file when it documents the file."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("#!")
                              or re.match(r"^\s*['\"]use \w+['\"];?\s*$", lines[i])):
        i += 1
    while i < len(lines):
        if not lines[i].lstrip().startswith("/*"):
            return None
        found = _block_at(lines, i)
        if found is None:
            return None
        block, end = found
        raw = "\n".join(block)
        body = _strip_block(block)
        joined = "\n".join(body)
        after_blank = end + 1 >= len(lines) or not lines[end + 1].strip()
        is_file_doc = bool(_FILE_TAGS.search(raw)) or (
            not tags_only and after_blank and raw.lstrip().startswith("/**")
        )
        if is_file_doc and not _LICENSE.search(joined) and not _DIRECTIVES.match(joined):
            cleaned = [s for s in body if not re.match(r"^@(?:file|fileoverview|overview|module"
                                                       r"|packageDocumentation)\s*$", s.strip())]
            cleaned = [re.sub(r"^@(?:file|fileoverview|overview)\s+", "", s) for s in cleaned]
            return ModuleDoc("\n".join(cleaned).strip("\n"), i + 1, end + 1)
        # a licence header or directive: look at the next comment
        i = end + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
    return None


def _js(text: str) -> ModuleDoc | None:
    return _c_header(text, tags_only=False)


def _java(text: str) -> ModuleDoc | None:
    lines = text.split("\n")
    k = _first(lines, r"^\s*package\s+[\w.]+\s*;")
    if k is None:
        return None
    end = k - 1
    while end >= 0 and (not lines[end].strip() or lines[end].lstrip().startswith("@")):
        end -= 1
    if end < 0 or not lines[end].rstrip().endswith("*/"):
        return None
    start = end
    while start > 0 and "/**" not in lines[start]:
        start -= 1
    if "/**" not in lines[start]:
        return None
    return ModuleDoc("\n".join(_strip_block(lines[start : end + 1])), start + 1, end + 1)


def _ruby(text: str) -> ModuleDoc | None:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or _MAGIC.match(lines[i].strip())):
        i += 1
    if i >= len(lines) or not lines[i].startswith("#"):
        return None
    run, end = _line_run(lines, i, "#")
    body = [re.sub(r"^\s*# ?", "", s) for s in run]
    following = next((s for s in lines[end + 1 :] if s.strip()), "")
    if _LICENSE.search("\n".join(body)) or not re.match(r"^(?:module|class)\s", following):
        return None  # a comment above `require`, not the file's documentation
    return ModuleDoc("\n".join(body).strip("\n"), i + 1, end + 1)


_BY_LANGUAGE = {
    "python": _python,
    "rust": _rust,
    "go": _go,
    "javascript": _js,
    "typescript": _js,
    "tsx": _js,
    "java": _java,
    "ruby": _ruby,
}
