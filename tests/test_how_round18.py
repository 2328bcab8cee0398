"""How-questions and details from the eighteenth round's blind batch.

A how-question that writes a word the code also uses as a name ("where the PID is often the
same" and a variable `pid`, an accessor `Pid()`) names what the work is about, as a type named
by a word does: the function doing the work leads, not the variable's line or the accessor.

«Как собирается идентификатор: какие части и в каком порядке записываются?» asks the parts of
what the code builds, not the project's main parts: a question opening with "how" asks no
overview of the parts unless it asks how the project is structured.

"In what order does it check the sources?" asks for the function doing the steps; it does not
hand the lead to a callee whose name says one of them.

A detail asking about "codes 128 to 159" is answered by the branch writing them in hex
(`0x80 <= n <= 0x9F`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, indexed
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.answer.graphs.words import values_in
from ragstrata.core.paths import peripheral_path
from ragstrata.query.facets import read_facets

PID_FILES = {
    "go.mod": "module example.com/uid\n\ngo 1.20\n",
    "uid.go": """\
package uid

import (
	"hash/crc32"
	"os"
)

// ID is a unique identifier of 12 bytes.
type ID [12]byte

var (
	// pid stores the current process id
	pid = os.Getpid()
)

func init() {
	// Inside a container every process may see the same small PID: mix the content
	// of the control group file into the pid so that it stays unique per machine.
	b, err := os.ReadFile("/proc/self/cpuset")
	if err == nil && len(b) > 1 {
		pid ^= int(crc32.ChecksumIEEE(b))
	}
}

// Pid returns the process id part of the id.
func (id ID) Pid() uint16 {
	return uint16(id[7])<<8 | uint16(id[8])
}

// Counter returns the incrementing value part of the id.
func (id ID) Counter() int32 {
	b := id[9:]
	return int32(uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]))
}
""",
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it keep the process part unique when running in a container where the PID"
        " is often the same?",
        "Как делается уникальной часть с номером процесса, если программа запущена в"
        " контейнере, где PID у разных процессов часто совпадает?",
    ],
)
def test_a_variable_or_accessor_named_by_a_word_does_not_lead(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, PID_FILES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    # `init`, which mixes the control group into the pid: not `pid`'s line nor `Pid()`
    assert (lead.path, lead.start_line) == ("uid.go", 16), answer.lead


@pytest.mark.parametrize(
    "question",
    [
        "Как собирается новый идентификатор: какие части и в каком порядке записываются в 12 байт?",
        "How is a new identifier assembled: which parts are written, and in what order?",
    ],
)
def test_the_parts_of_what_the_code_builds_are_no_overview(question: str) -> None:
    assert "parts" not in read_facets(question).topics


@pytest.mark.parametrize(
    "question",
    [
        "Из каких основных частей состоит проект и что делает каждая?",
        "Как устроен проект: из каких основных частей он состоит?",
        "What are the main parts of this project?",
        "How is the project structured, what are its main components?",
    ],
)
def test_the_projects_parts_are_still_an_overview(question: str) -> None:
    assert "parts" in read_facets(question).topics


ENCODING_FILES = {
    "pyproject.toml": '[project]\nname = "pagetext"\nversion = "1.0"\n',
    "pagetext/encoding.py": '''\
"""Character encodings of HTML pages."""


def read_bom(data):
    """The encoding a byte order mark at the start of ``data`` names, or None."""
    if data.startswith(b"\\xef\\xbb\\xbf"):
        return "utf-8"
    return None


def body_declared_encoding(data):
    """The encoding the HTML body declares in its meta tag, or None."""
    head = data[:4096].lower()
    for tag in head.split(b"<meta")[1:]:
        at = tag.find(b"charset=")
        if at < 0:
            continue
        value = tag[at + 8 :].strip(b"\"' ")
        name = value.split(b'"')[0].split(b";")[0].strip()
        if name:
            return name.decode("ascii", "replace")
    return None


def header_param(content_type):
    """The charset parameter of a Content-Type header, or None."""
    if not content_type or "charset=" not in content_type:
        return None
    return content_type.split("charset=")[1].strip()


def decode_page(content_type, data):
    """Convert raw HTML bytes to text, choosing the character encoding.

    The sources are checked in this order: a byte order mark, then the HTTP
    header's charset, then the encoding the HTML body declares, and finally
    utf-8 as the fallback when no source names one.
    """
    found = read_bom(data)
    if found is None:
        found = header_param(content_type)
    if found is None:
        found = body_declared_encoding(data)
    if found is None:
        found = "utf-8"
    return data.decode(found, errors="replace")
''',
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it figure out which character encoding to use when turning raw HTML bytes"
        " into text, and in what order does it check the possible sources?",
        "Как выбирается кодировка при переводе сырых байтов HTML в текст и в каком порядке"
        " проверяются источники?",
    ],
)
def test_the_order_of_the_steps_is_asked_of_the_function_doing_them(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, ENCODING_FILES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("pagetext/encoding.py", 32), answer.lead


def test_a_number_the_question_writes_is_found_in_hex() -> None:
    line = "        if 0x80 <= number <= 0x9F:"
    assert values_in(line, frozenset({"128", "159", "150"})) == {"128", "159"}
    assert values_in("    limit = 0x7fffffff", frozenset({"128"})) == set()


@pytest.mark.parametrize(
    "question",
    [
        "Каким алгоритмом 20 байт идентификатора переводятся в текстовую строку?",
        "По какому алгоритму считается контрольная сумма?",
        "By what algorithm is the identifier turned into text?",
    ],
)
def test_by_what_algorithm_asks_how_it_works(question: str) -> None:
    assert read_facets(question).asks == {"how"}


@pytest.mark.parametrize(
    ("path", "aside"),
    [
        ("src-backup/arrayset.rs", True),
        ("attic/old_parser.py", True),
        ("lib/obsolete/router.js", True),
        ("src/arrayvec.rs", False),
        ("src/backup.rs", False),  # a module about backups is the project's own code
        ("golden/files.go", False),
    ],
)
def test_a_copy_set_aside_is_beside_the_project(path: str, aside: bool) -> None:
    assert peripheral_path(path) is aside


BACKUP_FILES = {
    "Cargo.toml": '[package]\nname = "smallset"\nversion = "0.1.0"\n',
    "src/lib.rs": """\
/// A set of at most N keys kept in an array.
pub struct ArraySet { keys: [u32; 8], len: usize }

impl ArraySet {
    /// Keep only the keys for which the predicate returns true, in their order.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let key = self.keys[i];
            if keep(key) {
                self.keys[kept] = key;
                kept += 1;
            }
        }
        self.len = kept;
    }
}
""",
    "src-backup/arrayset.rs": """\
/// The old array set, kept for reference.
pub struct ArraySet { keys: [u32; 8], len: usize }

impl ArraySet {
    /// Keep only the keys for which the predicate returns true, in their order.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let key = self.keys[i];
            if keep(key) {
                self.keys[kept] = key;
                kept += 1;
            }
        }
        self.len = kept;
        self.check_keys_are_kept_in_order_for_retain();
    }
}
""",
}


def test_a_how_question_is_answered_from_the_code_built_not_a_backup(tmp_path: Path) -> None:
    question = "How does the array set keep only the keys for which the predicate returns true?"
    with indexed(tmp_path, BACKUP_FILES) as repo:
        answer = repo.ask(question).answer
    assert answer.citations[0].path == "src/lib.rs", answer.lead


VIEW_FILES = {
    "package.json": '{"name": "tinytpl", "version": "1.0.0", "main": "lib/tpl.js"}\n',
    "lib/tpl.js": """\
const cache = new Map();

function handleCache(options) {
  let fn = cache.get(options.filename);
  if (!fn) {
    fn = (data) => JSON.stringify(data);
    if (options.cache) cache.set(options.filename, fn);
  }
  return fn;
}

function tryHandleCache(options, data, cb) {
  try {
    return cb(null, handleCache(options)(data));
  } catch (err) {
    return cb(err);
  }
}

/**
 * Render a template file as an Express view engine: the options (the views directory,
 * view caching) are pulled out of the data object it receives.
 */
function renderFile(path, data, cb) {
  const opts = {};
  // Express passes the views directory and view caching in the data object's settings
  if (data.settings) {
    if (data.settings.views) {
      opts.views = data.settings.views;
    }
    if (data.settings['view cache']) {
      opts.cache = true;
    }
    const engine = data.settings['view options'];
    if (engine) {
      Object.assign(opts, engine);
    }
  }
  if ('cache' in data) {
    opts.cache = data.cache;
  }
  opts.filename = path;
  return tryHandleCache(opts, data, cb);
}

module.exports = { renderFile };
""",
}


@pytest.mark.parametrize(
    "question",
    [
        "When the library is used as an Express view engine, how does it pull options such as"
        " the views directory and view caching out of the data object it receives?",
        "Когда библиотеку используют как движок представлений Express, как она достаёт"
        " настройки вроде каталога представлений и кэширования из полученного объекта данных?",
    ],
)
def test_a_callee_doing_a_part_of_the_work_does_not_take_the_lead(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, VIEW_FILES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    # `renderFile`, not `tryHandleCache`, which "caching" names but which does one part
    assert (lead.path, lead.start_line) == ("lib/tpl.js", 24), answer.lead


PING_FILES = {
    "pyproject.toml": '[project]\nname = "frames"\nversion = "1.0"\n',
    "frames/errors.py": '''\
class FrameError(Exception):
    """Base class for the errors of this package."""


class InvalidFrameError(FrameError):
    """
    Parsing or building a frame failed because the data was not laid out
    appropriately: a payload longer than the frame allows, a bad length.

    The message says which frame and what length it got.
    """
''',
    "frames/ping.py": """\
from frames.errors import InvalidFrameError


class PingFrame:
    def __init__(self, opaque_data=b""):
        self.opaque_data = opaque_data

    def serialize_body(self):
        if len(self.opaque_data) > 8:
            raise InvalidFrameError("a ping frame carries at most 8 bytes of data")
        data = self.opaque_data
        data += b"\\x00" * (8 - len(self.opaque_data))
        return data
""",
}


def test_the_error_a_short_function_raises_is_no_worker(tmp_path: Path) -> None:
    question = (
        "How is the payload of a ping frame encoded when the caller supplies fewer than eight"
        " bytes of opaque data?"
    )
    with indexed(tmp_path, PING_FILES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("frames/ping.py", 8), answer.lead


@pytest.mark.parametrize(
    ("text", "path", "rank"),
    [
        ('    def parse_body(self, data):\n        """Parse the body."""\n'
         "        raise NotImplementedError", "frame.py", 3),
        ("    @abstractmethod\n    def read(self):\n        pass", "storage.py", 3),
        ("fn decode(&self) -> u8 {\n    todo!()\n}", "src/lib.rs", 3),
        ("    def read(self):\n        pass", "storage.py", 1),
        ("def parse(data):\n    if not data:\n        raise NotImplementedError\n"
         "    return data.split()", "parse.py", 0),
    ],
)  # fmt: skip
def test_a_method_left_to_subclasses_is_a_declaration(text: str, path: str, rank: int) -> None:
    hit = code_hit("m.f", path, text, kind="method")
    assert doing_rank(hit) == (False, rank)


PORT_FILES = {
    "Cargo.toml": '[package]\nname = "idents"\nversion = "0.1.0"\n',
    "src/lib.rs": """\
mod names;

/// Decode an identifier written in punycode back into its non-ASCII characters.
pub fn decode_ident(input: &str) -> Option<String> {
    let mut out = String::new();
    for part in input.split('_') {
        out.push_str(&names::decode_part(part)?);
    }
    Some(out)
}
""",
    "src/names.rs": """\
pub fn decode_part(part: &str) -> Option<String> {
    let digits: Vec<u32> = part.bytes().map(|b| (b - b'a') as u32).collect();
    char::from_u32(digits.iter().sum()).map(|c| c.to_string())
}

pub fn is_ascii_ident(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
""",
    "src/print.rs": """\
pub fn print_ident(name: &str, out: &mut String) {
    out.push_str(name);
}
""",
    "src/limits.rs": """\
pub const MAX_DEPTH: usize = 500;

pub fn too_deep(depth: usize) -> bool {
    depth > MAX_DEPTH
}
""",
    "native-c/decode.c": """\
/* Decode an identifier written in punycode back into its non-ASCII characters:
 * the C port of the decoder, for tools that cannot link Rust. */
static int decode_ident(const char *input, char *out, size_t len) {
    size_t n = 0;
    for (const char *p = input; *p; p++) {
        if (*p == '_') continue;
        if (n + 1 >= len) return -1;
        out[n++] = (char)(*p - 'a');
    }
    out[n] = 0;
    return 0;
}
""",
}


def test_a_port_in_another_language_does_not_lead(tmp_path: Path) -> None:
    question = "How is an identifier written in punycode decoded back into non-ASCII characters?"
    with indexed(tmp_path, PORT_FILES) as repo:
        answer = repo.ask(question).answer
    assert answer.citations[0].path == "src/lib.rs", answer.lead


@pytest.mark.parametrize(
    ("path", "aside"),
    [
        ("tsan_stress_simplejson.py", True),
        ("examples.js", True),
        ("benchmark.go", True),
        ("index.js", False),
        ("src/examples.rs", False),  # a module of the crate
        ("exampleutil.go", False),
    ],
)
def test_a_script_beside_the_package_is_beside_the_project(path: str, aside: bool) -> None:
    assert peripheral_path(path) is aside


def _symbols(question: str) -> list[str]:
    from ragstrata.query.router import route

    anchors = route(question)["query_plan"]["anchors"]
    return [a["value"] for a in anchors if a["type"] == "SYMBOL"]


@pytest.mark.parametrize(
    ("question", "symbols"),
    [
        # an indefinite article describes one of a kind; it names nothing
        ("How does removing a specific handler work for the same event?", []),
        ("How is an anonymous function stored in the deferred list?", []),
        # a definite one, or a capitalised name, still names it
        ("How does the parse function read a header?", ["parse"]),
        ("Where is the Router class defined?", ["Router"]),
    ],
)
def test_a_word_after_an_indefinite_article_names_no_symbol(
    question: str, symbols: list[str]
) -> None:
    assert _symbols(question) == symbols


EMITTER_FILES = {
    "package.json": '{"name": "tinyemitter", "version": "1.0.0", "main": "index.js"}\n',
    "index.js": """\
function EventEmitter() {
  this._events = {};
}

EventEmitter.prototype.on = function on(event, fn) {
  (this._events[event] = this._events[event] || []).push(fn);
  return this;
};

EventEmitter.prototype.removeListener = function removeListener(event, fn, once) {
  const listeners = this._events[event];
  if (!listeners) return this;
  if (!fn) {
    delete this._events[event];
    return this;
  }
  this._events[event] = listeners.filter((l) => l !== fn || (once && !l.once));
  return this;
};

module.exports = EventEmitter;
""",
}


def test_a_described_handler_is_no_missing_definition(tmp_path: Path) -> None:
    question = "How does removing a specific handler work when several handlers are registered?"
    with indexed(tmp_path, EMITTER_FILES) as repo:
        answer = repo.ask(question).answer
    assert answer.status != "not_found", answer.lead
    assert answer.citations[0].start_line == 10, answer.lead


def test_a_long_body_saying_one_word_more_gives_way_to_a_short_one() -> None:
    from ragstrata.answer.graphs.worded import clear_winner

    groups = [{"brea"}, {"dott"}, {"key"}, {"path"}, {"esca"}, {"valu"}]
    entry = code_hit(
        "sjson.Set",
        "sjson.go",
        "func Set(json, path string) {\n\tb := []byte(json)\n"
        "\tout := set(b, path)\n\treturn string(out)\n}",
    )
    splitter = code_hit(
        "sjson.parsePath",
        "sjson.go",
        "func parsePath(path string) {\n\t// break the dotted path into keys\n"
        "\tfor i := range path {\n\t\tif path[i] == '.' { n++ }\n\t}\n}",
    )
    filler = "".join(f"\tstep{n}()\n" for n in range(70))
    long_one = code_hit(
        "sjson.appendRawPaths",
        "sjson.go",
        "func appendRawPaths(buf []byte, paths []pathResult, value string) {\n"
        f"\t// each key of the dotted path, its escaped value\n{filler}}}",
    )
    head = clear_winner([entry, long_one, splitter], groups)
    assert head[0] is splitter
    # with two words fewer, the long body still says more
    short = code_hit("sjson.trim", "sjson.go", "func trim(path string) {\n\t// keys\n}")
    assert clear_winner([entry, long_one, short], groups)[0] is not short


def _integer_macro() -> str:
    filler = "".join(
        f"            /// Helper number {n}.\n            fn helper_{n}(&self) -> Self {{\n"
        f"                *self + {n}\n            }}\n\n"
        for n in range(12)
    )
    return (
        "pub trait Integer {\n    fn gcd(&self, other: &Self) -> Self;\n}\n\n"
        "macro_rules! impl_integer_for_isize {\n    ($T:ty) => {\n"
        "        impl Integer for $T {\n"
        f"{filler}"
        "            /// Calculates the Greatest Common Divisor of the number and `other`.\n"
        "            fn gcd(&self, other: &Self) -> Self {\n"
        "                // Stein's algorithm: strip the common factors of two\n"
        "                let mut m = *self;\n"
        "                let mut n = *other;\n"
        "                if m == 0 || n == 0 {\n"
        "                    return (m | n).abs();\n"
        "                }\n"
        "                let shift = (m | n).trailing_zeros();\n"
        "                m >>= m.trailing_zeros();\n"
        "                while m != n {\n"
        "                    if m > n { m -= n; m >>= m.trailing_zeros(); }\n"
        "                    else { n -= m; n >>= n.trailing_zeros(); }\n"
        "                }\n"
        "                m << shift\n"
        "            }\n"
        "        }\n    };\n}\n\n"
        "impl_integer_for_isize!(i32);\nimpl_integer_for_isize!(i64);\n"
    )


def test_a_function_inside_a_long_macro_body_leads(tmp_path: Path) -> None:
    files = {"Cargo.toml": '[package]\nname = "ints"\nversion = "0.1.0"\n',
             "src/lib.rs": _integer_macro()}  # fmt: skip
    question = "How does it compute the greatest common divisor of two signed integers?"
    with indexed(tmp_path, files) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    text = (tmp_path / "src/lib.rs").read_text(encoding="utf-8").splitlines()
    assert text[lead.start_line - 1].strip().startswith("fn gcd("), answer.lead
    assert lead.end_line - lead.start_line < 25, answer.lead


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Что происходит при экранировании строки, в которой есть нулевой байт?", "CODE_QA"),
        ("Что происходит при чтении ключа из старой половины кэша?", "CODE_QA"),
        ("What happens on a timeout while the body is being read?", "CODE_QA"),
        # installing the package is a setup question
        ("Что происходит при установке пакета?", "PROJECT_MISC"),
    ],
)
def test_what_happens_on_asks_about_the_code(question: str, intent: str) -> None:
    from ragstrata.query.router import route

    assert route(question)["intent"] == intent
