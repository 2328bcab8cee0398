"""What a definition's shape says about the work it does, for a how-answer: a function with a
body before a one-line accessor or an attribute writer, before types and declarations; a short
Python class whose instances are called (a strategy object) is a function; a callable that is
mostly its parameter list declares, it does no work. The project's own code before examples,
benchmarks, tests and declaration files.
"""

from __future__ import annotations

import re

from ragstrata.answer.graphs.focus import build_script
from ragstrata.core.evidence import Hit
from ragstrata.core.languages import detect_language, is_inline_test, is_test
from ragstrata.core.paths import peripheral_path

__all__ = [
    "COMMENT_LINE",
    "DOCSTRING",
    "ERROR_NAME",
    "TYPE_KINDS",
    "body_text",
    "doing_rank",
    "last_name",
    "loops",
]

_DOING_KINDS = ("function", "method", "constructor", "property", "macro")  # a JS getter computes
# the kinds of definition that are types: used (constructed, referenced), not called
TYPE_KINDS = frozenset(
    {"class", "struct", "enum", "interface", "trait", "type_alias", "record", "union", "object"}
)
# the name of an error type (`InvalidFrameError`, `ExpiredSignature`)
ERROR_NAME = re.compile(r"(?:Error|Exception|Expired|Invalid\w*)$")
_DECLARING_KINDS = ("interface", "struct", "type_alias", "enum", "trait", "constant", "module")
_ACCESSOR_LINES = 3  # a callable shorter than this only hands a value on
_DECLARING_MIN_LINES = 20  # a callable this long whose signature takes ...
_SIGNATURE_SHARE = 0.5  # ... this share of its lines declares parameters, it does no work
_DECLARATION_FILES = (".d.ts", ".d.mts", ".d.cts", ".pyi")
_SEGMENT_SEP = re.compile(r"::|[.#\\]")
# a loop, or a call mapping over a sequence (`.map(…)`, `map(f, xs)`); Go's `map[K]V` is a type
_LOOP = re.compile(r"\b(?:for|while|loop|each)\b|\bmap\s*\(|\.map\b")


def doing_rank(hit: Hit) -> tuple[bool, int]:
    """How-questions: the project's own code before examples, benchmarks and tests; then a
    function with a body before a one-line accessor or an attribute writer, before types and
    declarations (a function that is mostly its parameter list among them)."""
    language = detect_language(hit.path)
    beside = (
        peripheral_path(hit.path)
        or build_script(hit.path)
        or is_test(hit.path, language)
        or is_inline_test(hit.symbol or "", language)
        or hit.path.endswith(_DECLARATION_FILES)  # `index.d.ts`, a `.pyi` stub: no code runs
    )
    kind = hit.kind or ""
    if kind == "class" and _callable_object(hit):
        return beside, 0  # `wait_exponential(...)`: the object is the function
    if kind == "class" and _PROTOCOL.match(hit.text):
        return beside, 3  # a typing protocol is an interface
    if kind in _DOING_KINDS and (
        _mostly_signature(hit.text) or _bodiless(hit.text, language) or _unimplemented(hit.text)
    ):
        # `Argument(...)`: hundreds of declared parameters, no work; `Decode(value string)
        # error` in a Go interface, `fn mul(self, o: Self) -> Self;` in a Rust trait, a base
        # class's `raise NotImplementedError`: no body
        return beside, 3
    if kind in _DOING_KINDS:
        # a writer (`public=` in Ruby) only stores its value, as a one-line accessor reads it
        writer = (hit.symbol or "").endswith("=")
        short = (
            (hit.end_line - hit.start_line < _ACCESSOR_LINES and not _delegates(hit))
            or _reads_a_field(hit.text)
            or _tests_a_variant(hit.text)
        )
        return beside, 1 if short or writer else 0
    return beside, 3 if kind in _DECLARING_KINDS else 2


# the one statement of a method its subclasses implement
_UNIMPLEMENTED = re.compile(
    r"^(?:raise\s+NotImplementedError\b|throw\s+new\s+Error\(.*not\s+implemented"
    r"|unimplemented!|todo!|panic\(\s*\"not implemented)",
    re.IGNORECASE,
)


def _unimplemented(text: str) -> bool:
    """True for a method whose body, docstring and comments aside, only says it is not
    implemented (``raise NotImplementedError``, ``todo!()``), or is ``pass`` / ``...`` under
    ``@abstractmethod``: its subclasses do the work."""
    lines = text.splitlines()
    start = next((k for k, ln in enumerate(lines) if ln.rstrip().endswith((":", "{"))), None)
    if start is None:
        return False
    body = DOCSTRING.sub("", "\n".join(lines[start + 1 :]))
    said = [
        ln.strip()
        for ln in body.splitlines()
        if ln.strip() not in ("", "}") and not COMMENT_LINE.match(ln)
    ]
    if len(said) != 1:
        return False
    if said[0] in ("pass", "..."):
        return "@abstractmethod" in "\n".join(lines[:start])
    return bool(_UNIMPLEMENTED.match(said[0]))


_BRACED = frozenset({"go", "rust", "typescript", "java", "kotlin", "csharp", "swift", "scala"})


def _bodiless(text: str, language: str) -> bool:
    """True for a method declared without a body in a language whose bodies are braced (an
    interface's or a trait's method, a TypeScript overload signature); an arrow function
    (``x => x * 2``) has a body without braces."""
    return language in _BRACED and "{" not in text and "=>" not in text


_FIELD_RETURN = re.compile(r"^(?:return\s+)?[\w$@.]+(?:\[[^\]()]*\])?;?$")


_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")


_CALL_METHOD = re.compile(r"^\s+(?:async\s+)?def __call__\(.*$", re.MULTILINE)
# a signature whose body is an ellipsis (`def __call__(self, value) -> bool: ...`): declared
_DECLARED_ONLY = re.compile(r":\s*\.\.\.\s*$")
# `class QueryLike(Protocol):`: a typing protocol declares what its implementations do
_PROTOCOL = re.compile(r"\A(?:@.*\n)*class\s+\w+\s*(?:\[[^\]]*\])?\(.*\bProtocol\b")
_METHOD = re.compile(r"^([ \t]+)(?:async[ \t]+)?def (\w+)\(.*$", re.MULTILINE)
_CALLABLE_LINES = 80  # a strategy object; a longer class is a framework with a __call__
_HOOK_LINES = 8  # a class of one method this long does work in it


def _callable_object(hit: Hit) -> bool:
    """True for a short Python class whose instances are called (``__call__``): a strategy
    object (``stop_after_delay(10)``, ``wait_exponential()``) whose behaviour it is; or whose
    one method is the hook a framework calls (an inline processor's ``handleMatch``)."""
    short = hit.end_line - hit.start_line < _CALLABLE_LINES
    if not short or not hit.path.endswith(".py") or _PROTOCOL.match(hit.text):
        return False
    call = _CALL_METHOD.search(hit.text)
    if call is not None:
        return not _DECLARED_ONLY.search(call.group(0))
    defs = list(_METHOD.finditer(hit.text))
    indent = min((len(m[1]) for m in defs), default=None)
    methods = [m for m in defs if len(m[1]) == indent]
    # one dunder (`__str__` of an exception, `__init__` of a record) is no hook: a value; nor
    # a method of a line or two handing the value to its base class
    return (
        len(methods) == 1
        and hit.end_line - hit.start_line >= _HOOK_LINES
        and not methods[0][2].startswith("__")
        and not _DECLARED_ONLY.search(methods[0][0])
    )


def _delegates(hit: Hit) -> bool:
    """True for a short public face of its own implementation (``ParseLevel`` returning
    ``parseLevel(…)``, ``parse`` calling ``_parse`` or ``parse_impl``, ``insert`` calling
    ``insert_full``, ``hamming`` calling ``generic_hamming``): a wrapper, no accessor."""
    own = last_name(hit.symbol or "")
    name = own.lower().strip("_")
    if not name:
        return False
    inner = {name, f"{name}impl", f"do{name}", f"{name}internal"}
    body = body_text(hit.text)
    if hit.kind == "method" and re.search(rf"(?<![\w.:>$]){re.escape(own)}\s*\(", body):
        return True  # `func (a Afero) TempFile(…)` returning the package's `TempFile(…)`
    for called in _CALLED.findall(body):
        if called == own:
            continue
        if called.lower().replace("_", "") in inner:
            return True
        if called.startswith(own) and _EXTENDS.match(called[len(own) :]):
            return True
        # a word saying "its implementation" before it: `hamming` -> `generic_hamming`,
        # `parse` -> `doParse` (not a variant of it: `remove_entry` -> `swap_remove_entry`)
        if _IMPLEMENTING.fullmatch(called) and called.lower().endswith(name):
            return True
    return False


_IMPLEMENTING = re.compile(
    r"_*(?:[Gg]eneric|[Ii]nner|[Rr]aw|[Dd]o|[Ii]nternal|[Bb]ase|[Rr]eal|[Aa]ctual|[Cc]ore|"
    r"[Ii]mpl|[Pp]rivate|[Bb]asic)(?:_|(?=[A-Z]))\w+"
)


# the rest of a callee's name that extends the caller's (`insert` -> `insert_full`,
# `parse` -> `parseWithOptions`): a word of its own, not more letters of one (`get` -> `getattr`)
_EXTENDS = re.compile(r"_[a-z]|[A-Z]")


def _reads_a_field(text: str) -> bool:
    """True for an accessor whatever its docstring and decorators: its code after the
    signature is one ``return`` of a field (``return self.secret_keys[-1]``, ``return l.out``)."""
    lines = [
        line.strip()
        for line in DOCSTRING.sub("", text).splitlines()
        if line.strip() and not COMMENT_LINE.match(line) and not line.strip().startswith("@")
    ]
    body = [line for line in lines[1:] if line not in ("}", "end", "};")]
    return len(body) == 1 and bool(_FIELD_RETURN.match(body[0]))


# the lines of a predicate saying only which variant a value is: `match self { Value::Null =>
# true, _ => false }`, `if let Value::Null = self.untag_ref() { true } else { false }`
_VARIANT_LINE = re.compile(
    r"^(?:match\b.*\{|if let\b.*\{|\}?\s*else\s*\{|\}|true|false|[^=]*=>\s*(?:true|false),?"
    r"|matches!\(.*\))$"
)


def _tests_a_variant(text: str) -> bool:
    """True for a predicate (`is_null`, `is_number`) whose code only matches its value against
    a variant and says true or false: an accessor of the value's kind, not the code deciding
    it."""
    code = [
        line.strip()
        for line in body_text(text).splitlines()
        if line.strip() and not COMMENT_LINE.match(line)
    ]
    return (
        bool(code)
        and any("true" in line for line in code)
        and all(_VARIANT_LINE.match(line) for line in code)
    )


def _mostly_signature(text: str) -> bool:
    """True for a long callable whose parameter list takes most of its lines (a declaration of
    options that hands them to a constructor: typer's ``Argument``, FastAPI's ``Query``)."""
    lines = text.splitlines()
    if len(lines) < _DECLARING_MIN_LINES:
        return False
    indent = len(lines[0]) - len(lines[0].lstrip())
    for n, line in enumerate(lines[1:], 2):
        # the line closing the parameter list at the definition's own indentation: `) -> Any:`
        if line.startswith(")", indent) and len(line) - len(line.lstrip()) == indent:
            return n >= _SIGNATURE_SHARE * len(lines)
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            return False  # the body began: a short signature
    return False


# the names constructors go by: Python's, JavaScript's, Rust's `new`, Go's `New…` functions
_CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor"})


def setup_only(hit: Hit) -> bool:
    """True for a constructor that only sets its object up (no loop in its code): "how does
    it strip the tags?" is answered by the method doing it, not by the one storing the
    options (a constructor parsing its pattern in a loop does the work)."""
    constructor = constructs(last_name(hit.symbol or ""), hit.path, hit.kind or "", hit.text)
    return (constructor or _stores_only(hit)) and not loops(body_text(hit.text))


# a Rust struct built in place (`Decompositions { kind, iter, … }`, `Self {`)
_STRUCT_LITERAL = re.compile(r"(?:\bSelf|\b[A-Z]\w*)\s*\{")


def constructs(name: str, path: str, kind: str, text: str) -> bool:
    """True for a constructor by its name: ``__init__``, JavaScript's ``constructor``, a Rust
    ``fn new`` (a ``new_canonical`` building its struct in place; ``new_v1`` handing the work
    to a builder is none), a Go ``New…`` function."""
    rust = path.endswith(".rs")
    return (
        name in _CONSTRUCTORS
        or (rust and name == "new")
        or (rust and name.startswith("new_") and bool(_STRUCT_LITERAL.search(body_text(text))))
        or (name.startswith("New") and path.endswith(".go") and kind == "function")
    )


# the stems of the words asking how a thing is made («при создании», "a new pool", "build")
CREATING = frozenset({"crea", "new", "init", "buil", "make", "setu", "open"})


_STORE = re.compile(r"^\s*this\.\w+\s*=")
_JS_FILES = (".js", ".mjs", ".cjs", ".ts")


def _stores_only(hit: Hit) -> bool:
    """True for a JavaScript function every statement of which stores a value on ``this``:
    a constructor written as a function (``function Long(low, high) { this.low = low | 0; …
    }``)."""
    if hit.kind != "function" or not hit.path.endswith(_JS_FILES):
        return False
    code = [
        line
        for line in body_text(hit.text).splitlines()
        if line.strip() and not COMMENT_LINE.match(line) and line.strip() not in ("}", "};")
    ]
    return bool(code) and all(_STORE.match(line) for line in code)


# a function reporting a failure (`self._error(field, errors.ALLOF, ...)`, `warn`, `fail`)
# does none of the work that failed, unless the question asks about failing (these stems)
_REPORTS = re.compile(
    r"^_*(?:error|errors|err|fail|failure|warn|warning)(?:_|$)|(?:Error|Errors)$", re.I
)
FAILING = frozenset({"erro", "err", "fail", "warn", "exce", "rais", "thro"})


def reports_failure(symbol: str) -> bool:
    """True for a function named for reporting a failure: ``_error``, ``warn``,
    ``logError``."""
    return bool(_REPORTS.search(last_name(symbol)))


def last_name(symbol: str) -> str:
    return _SEGMENT_SEP.split(symbol)[-1]


DOCSTRING = re.compile(r'"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'')
COMMENT_LINE = re.compile(r"^\s*(?:#|//|/?\*|--)")


def code_span(text: str) -> int:
    """How many lines of code ``text`` spans past its first, its docstring, comments and blank
    lines aside: a one-line delegation under 25 lines of docstring is a wrapper."""
    code = DOCSTRING.sub("", text)
    lines = [ln for ln in code.splitlines() if ln.strip() and not COMMENT_LINE.match(ln)]
    return max(0, len(lines) - 1)


def loops(text: str) -> bool:
    """True when the code of ``text`` has a loop (its docstring and comments aside: "Returns
    the signature for the given value" is no loop)."""
    code = DOCSTRING.sub("", text)
    return any(_LOOP.search(line) for line in code.splitlines() if not COMMENT_LINE.match(line))


def body_text(text: str) -> str:
    """``text`` without its first line (the signature: `for_each(…)` is no loop)."""
    return text.split("\n", 1)[1] if "\n" in text else ""
