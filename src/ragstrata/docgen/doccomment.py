"""Doc comments as Markdown: the description, and the parameter / return / raises / example /
deprecation fields taken out of it.

Input is a doc comment with its markers already stripped (what C1 ``docstring`` holds). The
style is recognised from the text, whatever the language:

- tags (``@param name desc``, ``@return``, ``@throws``, ``@example``, ``@deprecated``,
  ``@see``): JSDoc, Javadoc, YARD (``@param [Type] name``); inline ``{@link X}``,
  ``{@code x}``, ``{@linkplain X label}`` become code spans, HTML (``<p>``, ``<pre>``, ``<code>``,
  ``<ul><li>``, ``<b>``, entities) becomes Markdown;
- Sphinx fields (``:param x:``, ``:returns:``, ``:raises E:``);
- Google sections (``Args:``, ``Returns:``, ``Raises:``, ``Example:``) and NumPy sections
  (``Parameters`` over a ``----------`` rule);
- rustdoc headings (``# Arguments``, ``# Errors``, ``# Panics``, ``# Examples``), intra-doc
  links ``[`Foo`]`` become ``Foo`` spans;
- godoc: plain paragraphs, indented blocks are code, a ``Deprecated:`` paragraph.

Text inside ``@example`` blocks and fenced code is kept verbatim, comments included.
:func:`parse_doc` is pure; :func:`to_markdown` renders only the description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragstrata.docgen.markup import (
    dedent_block,
    html_to_markdown,
    inline_links,
    outside_fences,
    pre_blocks,
    rst_blocks,
    rst_inline,
)

__all__ = ["DocComment", "parse_doc", "to_markdown"]


@dataclass(frozen=True, slots=True)
class DocComment:
    """A parsed doc comment: Markdown description and the structured fields."""

    description: str = ""
    params: tuple[tuple[str, str], ...] = ()
    returns: str = ""
    raises: tuple[tuple[str, str], ...] = ()
    examples: tuple[str, ...] = ()
    deprecated: str | None = None
    see: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = field(default=())  # other sections: (title, markdown)

    @property
    def summary(self) -> str:
        """The first sentence of the description (one line)."""
        text = " ".join(self.description.split("\n\n", 1)[0].split())
        if text.startswith("```"):
            return ""
        m = re.search(r"(?<=[.!?])\s", text)
        return text[: m.start()] if m else text


# --------------------------------------------------------------------------- parsing

_JSTAG = re.compile(r"^@(\w+)\b\s?(.*)$")
_SPHINX = re.compile(r"^:(param|parameter|arg|argument|key|keyword|type|rtype|returns?|raises?|"
                     r"except|exception|deprecated)\b([^:]*):\s*(.*)$")
_GOOGLE = {
    "args": "params", "arguments": "params", "parameters": "params", "params": "params",
    "keyword args": "params", "keyword arguments": "params", "other parameters": "params",
    "returns": "returns", "return": "returns", "yields": "returns", "yield": "returns",
    "raises": "raises", "raise": "raises", "errors": "raises", "panics": "raises",
    "throws": "raises", "exceptions": "raises",
    "example": "examples", "examples": "examples", "usage": "examples",
    "deprecated": "deprecated", "see also": "see", "note": "note", "notes": "note",
    "warning": "note", "warnings": "note", "safety": "note",
}
_GOOGLE_HEAD = re.compile(r"^([A-Z][A-Za-z ]{1,20}):\s*$")
_RUST_HEAD = re.compile(r"^#{1,3}\s+(.+?)\s*$")
_RULE = re.compile(r"^\s*-{3,}\s*$")
_ITEM = re.compile(r"^\*?\*?([\w.*\[\]]+)\*?\*?\s*(?:\(([^)]*)\))?\s*(?::|-|–)\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^([\w*][\w.*]*(?:, [\w*][\w.*]*)*)\s+:\s+(.*)$|^([\w.*]+)$")


class _Acc:
    def __init__(self) -> None:
        self.desc: list[str] = []
        self.params: list[tuple[str, str]] = []
        self.returns: list[str] = []
        self.raises: list[tuple[str, str]] = []
        self.examples: list[str] = []
        self.deprecated: str | None = None
        self.see: list[str] = []
        self.extra: list[tuple[str, str]] = []
        self.last_field = ""  # the Sphinx field an indented line continues

    def build(self) -> DocComment:
        desc = _finish("\n".join(self.desc))
        return DocComment(
            description=desc,
            params=tuple((n, _finish(d)) for n, d in self.params),
            returns=_finish(" ".join(self.returns)),
            raises=tuple((n, _finish(d)) for n, d in self.raises),
            examples=tuple(re.sub(r"\n{3,}(?=```)", "\n\n", e.strip("\n"))
                           for e in self.examples if e.strip()),
            deprecated=None if self.deprecated is None else _finish(self.deprecated),
            see=tuple(inline_links(s).strip() for s in self.see if s.strip()),
            extra=tuple((t, _finish(b)) for t, b in self.extra if b.strip()),
        )


def _finish(text: str) -> str:
    def convert(part: str) -> str:
        body = html_to_markdown(inline_links(rst_inline(part)))
        body = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", body).strip()
        # a part between fences keeps the line breaks that separate it from them
        lead = "\n\n" if part[:1] == "\n" and body else ""
        trail = "\n\n" if part.endswith("\n") and body else ""
        return lead + body + trail if body else ("\n\n" if part.strip() == "" and part else "")

    return outside_fences(text, convert).strip()


def parse_doc(text: str | None) -> DocComment:
    """Parse a doc comment (markers stripped) of any supported style."""
    if not text or not text.strip():
        return DocComment()
    lines = _dedent(pre_blocks(text.replace("\r\n", "\n"))).split("\n")
    if any(s.strip().startswith(".. ") or s.rstrip().endswith("::") for s in lines):
        lines = rst_blocks(lines)
    acc = _Acc()
    if any(_JSTAG.match(s.strip()) for s in lines if not s.startswith((" " * 4, "\t"))):
        lines = _tags(lines, acc)
    _sections(lines, acc)
    return acc.build()


def to_markdown(text: str | None) -> str:
    """A module's doc comment as Markdown: the description, then its examples."""
    doc = parse_doc(text)
    return "\n\n".join(p for p in (doc.description, *doc.examples) if p)


def _dedent(text: str) -> str:
    lines = text.split("\n")
    rest = [s for s in lines[1:] if s.strip()]
    if not rest:
        return text.strip()
    indent = min(len(s) - len(s.lstrip()) for s in rest)
    return "\n".join([lines[0].strip(), *(s[indent:] for s in lines[1:])]).strip("\n")


def _tags(lines: list[str], acc: _Acc) -> list[str]:
    """Take ``@tag`` blocks out of ``lines``; return the description lines."""
    desc: list[str] = []
    tag: str | None = None
    body: list[str] = []
    in_fence = False

    def flush() -> None:
        if tag is not None:
            _store_tag(tag, body, acc)

    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        m = None if in_fence or (tag == "example" and not stripped.startswith("@")) else (
            _JSTAG.match(stripped)
        )
        if m and m.group(1) not in ("link", "code"):
            flush()
            tag, body = m.group(1).lower(), [m.group(2)]
        elif tag is None:
            desc.append(line)
        else:
            body.append(line if tag == "example" else stripped)
    flush()
    return desc


def _store_tag(tag: str, body: list[str], acc: _Acc) -> None:
    text = "\n".join(body).strip("\n")
    first = " ".join(text.split())
    if tag in ("param", "arg", "argument", "prop", "property", "tparam", "option"):
        typ = ""
        m = re.match(r"^\{([^}]*)\}\s*(.*)$", first) or re.match(r"^\[([^\]]*)\]\s*(.*)$", first)
        if m:
            typ, first = m.group(1), m.group(2)
        name, _, desc = first.partition(" ")
        desc = desc.lstrip("- ").strip()
        if not name:
            return
        m2 = re.match(r"^\[([^\]=]+)(?:=[^\]]*)?\]$", name)  # JSDoc optional [name=default]
        name = m2.group(1) if m2 else name
        acc.params.append((name, f"({typ}) {desc}".strip() if typ and not desc.startswith("(")
                           else desc))
    elif tag in ("return", "returns", "yield", "yields"):
        first = re.sub(r"^(?:\{(?!@)[^}]*\}|\[[^\]]*\])\s*", "", first)
        acc.returns.append(first)
    elif tag in ("throws", "throw", "exception", "raise", "raises"):
        first = re.sub(r"^\{([^}]*)\}", r"\1", first)
        name, _, desc = first.partition(" ")
        acc.raises.append((name, desc.lstrip("- ")))
    elif tag == "example":
        acc.examples.append(_fence_example(text))
    elif tag == "deprecated":
        acc.deprecated = first
    elif tag in ("see", "link"):
        acc.see.append(first)
    elif tag in ("since", "version", "author", "file", "fileoverview", "overview", "module",
                 "override", "inheritdoc", "private", "public", "internal", "api", "type",
                 "typedef", "template", "generated", "serial", "flow", "jsx", "hidden"):
        if tag in ("file", "fileoverview", "overview") and first:
            acc.desc.append(first)
    else:
        acc.extra.append((tag, first))


def _fence_example(text: str) -> str:
    text = text.strip("\n")
    if text.lstrip().startswith("```"):
        return text
    m = re.search(r"(?is)^\s*<caption>(.*?)</caption>\s*", text)
    caption = ""
    if m:
        caption, text = m.group(1).strip() + "\n\n", text[m.end():]
    return caption + "```\n" + dedent_block(text) + "\n```"


def _section_of(lines: list[str], i: int) -> tuple[str, int] | None:
    """``(field, lines used by the heading)`` when a section heading starts at ``lines[i]``."""
    line = lines[i].strip()
    if i + 1 < len(lines) and _RULE.match(lines[i + 1]) and line and not line.startswith("-"):
        key = _GOOGLE.get(line.lower())
        return (key or "extra:" + line, 2)
    m = _GOOGLE_HEAD.match(line)
    if m and m.group(1).lower() in _GOOGLE:
        return (_GOOGLE[m.group(1).lower()], 1)
    m = _RUST_HEAD.match(line)
    if m and lines[i].startswith("#"):
        key = _GOOGLE.get(m.group(1).lower())
        return (key or "extra:" + m.group(1), 1)
    return None


def _sections(lines: list[str], acc: _Acc) -> None:
    current = "desc"
    block: list[str] = []
    in_fence = False

    def flush() -> None:
        _store_section(current, block, acc)

    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if in_fence or stripped.startswith("```"):
            block.append(line)
            continue
        m = _SPHINX.match(stripped)
        if m:
            flush()
            _store_sphinx(m, acc)
            current, block = "sphinx", []
            continue
        if current == "sphinx" and line.startswith((" ", "\t")) and stripped:
            _sphinx_continue(stripped, acc)
            continue
        if stripped.lower().startswith("deprecated:") and current in ("desc", "sphinx"):
            flush()
            acc.deprecated = stripped.split(":", 1)[1].strip()
            current, block = "deprecated", []
            continue
        if stripped.startswith(".. deprecated::"):
            flush()
            acc.deprecated = stripped.split("::", 1)[1].strip()
            current, block = "deprecated", []
            continue
        head = _section_of(lines, i)
        if head is not None:
            flush()
            current, block = head[0], []
            if head[1] == 2:
                lines[i + 1] = ""  # the rule under a NumPy heading
            continue
        block.append(line)
    flush()


def _store_sphinx(m: re.Match[str], acc: _Acc) -> None:
    kind, arg, text = m.group(1), m.group(2).strip(), m.group(3).strip()
    acc.last_field = ""
    if kind in ("param", "parameter", "arg", "argument", "key", "keyword"):
        name = arg.split()[-1] if arg else ""
        if name:
            acc.params.append((name, text))
            acc.last_field = "params"
    elif kind in ("return", "returns"):
        acc.returns.append(text)
        acc.last_field = "returns"
    elif kind in ("raise", "raises", "except", "exception"):
        acc.raises.append((arg, text))
        acc.last_field = "raises"
    elif kind == "deprecated":
        acc.deprecated = text


def _sphinx_continue(text: str, acc: _Acc) -> None:
    """An indented line continues the field above it."""
    if acc.last_field == "returns" and acc.returns:
        acc.returns[-1] = f"{acc.returns[-1]} {text}".strip()
    elif acc.last_field in ("params", "raises"):
        fields = acc.params if acc.last_field == "params" else acc.raises
        name, desc = fields[-1]
        fields[-1] = (name, f"{desc} {text}".strip())


def _store_section(kind: str, block: list[str], acc: _Acc) -> None:
    if kind == "sphinx" and not any(s.strip() for s in block):
        return
    if kind in ("desc", "sphinx"):
        acc.desc.extend(_godoc_code(block))
    elif kind == "params":
        acc.params.extend(_items(block))
    elif kind == "raises":
        acc.raises.extend(_items(block) or ([("", " ".join(s.strip() for s in block))]
                                            if any(s.strip() for s in block) else []))
    elif kind == "returns":
        acc.returns.append(" ".join(s.strip() for s in block if s.strip()))
    elif kind == "examples":
        text = "\n".join(block).strip("\n")
        if "```" in text:
            acc.examples.append(text)
        elif ">>>" in text:
            acc.examples.append("```python\n" + dedent_block(text) + "\n```")
        elif text.strip():
            code = _godoc_code(["", *block])  # indented lines become a fence
            acc.examples.append("\n".join(code).strip("\n"))
    elif kind == "deprecated":
        more = " ".join(s.strip() for s in block if s.strip())
        acc.deprecated = " ".join(x for x in (acc.deprecated or "", more) if x)
    elif kind == "see":
        acc.see.extend(s.strip() for s in block if s.strip())
    else:
        title = kind.split(":", 1)[1] if kind.startswith("extra:") else kind.capitalize()
        acc.extra.append((title, "\n".join(_godoc_code(block))))


def _items(block: list[str]) -> list[tuple[str, str]]:
    """``name (type): desc`` (Google), ``name : type`` + indented desc (NumPy), ``* `name` - d``."""
    out: list[tuple[str, str]] = []
    base = min((len(s) - len(s.lstrip()) for s in block if s.strip()), default=0)
    for line in block:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip().lstrip("*- ").strip()
        text = re.sub(r"^`([^`]+)`", r"\1", text)
        if indent <= base:
            m2 = _NUMPY_ITEM.match(text)
            if m2:
                name = (m2.group(1) or m2.group(3)).strip()
                out.append((name, f"({m2.group(2)})" if m2.group(2) else ""))
                continue
            m = _ITEM.match(text)
            if m:
                typ = f"({m.group(2)}) " if m.group(2) else ""
                out.append((m.group(1), typ + m.group(3).strip()))
                continue
        if out:
            name, desc = out[-1]
            out[-1] = (name, f"{desc} {text}".strip())
    return out


def _godoc_code(block: list[str]) -> list[str]:
    """Indented runs (godoc / plain comments) become fenced code; fenced text passes."""
    out: list[str] = []
    code: list[str] = []
    in_fence = False
    prose_before = False
    for line in block:
        if line.strip().startswith("```"):
            in_fence = not in_fence
            out.append(line)
            continue
        if not in_fence and line.startswith(("\t", "    ")) and line.strip() and (
            code or prose_before
        ) and not line.strip().startswith(("-", "*")):
            code.append(line)
            continue
        if code and not line.strip():
            code.append(line)
            continue
        if code:
            out += ["", "```", dedent_block("\n".join(code)), "```", ""]
            code = []
        out.append(line)
        prose_before = not line.strip() or prose_before
    if code:
        out += ["", "```", dedent_block("\n".join(code)), "```"]
    return out
