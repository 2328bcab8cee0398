"""How-questions from the seventeenth round's blind batch.

A how-question that lists the steps it asks about ("in what order does it check the length,
the signature, the age and then decrypt?") is answered by the function doing those steps, not
by the setter of one of them that retrieval ranked first (`MinAge`): a candidate whose body
carries three more of the question's word groups than the lead's takes the lead, unless its
body is long enough to carry any words. A callee named by one of the steps (`decrypt`) does
not take the lead back.

"When I build a query on a nested field, how is it evaluated against a stored document?" asks
how the code works: the clause before the how-word sets the scene, and its "build" and
"document" ask for no docs. A typing protocol (`class QueryLike(Protocol)` with `...` bodies)
declares what its implementations do; it is no called object doing the work.

A type a how-question names by a word of it («куда смонтирована cgroup» and `Cgroup`) is what
the work is about, not the function doing it: the parsing function leads, not the struct's
card; and a macro the short function expands (`some!`) is a helper, not the worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, how_order, indexed, plan
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.query.facets import facets_of, read_facets
from ragstrata.query.router import route

MIN_AGE = """\
// MinAge restricts the minimum age, in seconds, for the timestamp value.
func (s *SecureCookie) MinAge(value int) *SecureCookie {
	s.minAge = int64(value)
	return s
}"""
MAX_AGE = """\
// MaxAge restricts the maximum age, in seconds, for the timestamp value.
func (s *SecureCookie) MaxAge(value int) *SecureCookie {
	s.maxAge = int64(value)
	return s
}"""
DECODE = """\
// Decode decodes a cookie value: it verifies the signature, optionally decrypts and
// finally deserializes the value.
func (s *SecureCookie) Decode(name, value string, dst interface{}) error {
	// 1. Check length.
	if s.maxLength != 0 && len(value) > s.maxLength {
		return errValueToLong
	}
	b, err := decode([]byte(value))
	if err != nil {
		return err
	}
	// 2. Verify the signature. Value is "date|value|mac".
	parts := bytes.SplitN(b, []byte("|"), 3)
	b = append([]byte(name+"|"), b[:len(b)-len(parts[2])-1]...)
	if err = verifyMac(hash.New(), b, parts[2]); err != nil {
		return err
	}
	// 3. Verify the age.
	t1, _ := strconv.ParseInt(string(parts[0]), 10, 64)
	t2 := s.timestamp()
	if s.maxAge != 0 && t1 < t2-s.maxAge {
		return errTimestampExpired
	}
	// 4. Decrypt (optional).
	if s.block != nil {
		if b, err = decrypt(s.block, b); err != nil {
			return err
		}
	}
	return s.sz.Deserialize(b, dst)
}"""
DECRYPT = """\
// decrypt decrypts a value using the given block in counter mode.
func decrypt(block cipher.Block, value []byte) ([]byte, error) {
	size := block.BlockSize()
	iv := value[:size]
	value = value[size:]
	stream := cipher.NewCTR(block, iv)
	stream.XORKeyStream(value, value)
	return value, nil
}"""
QUESTIONS = [
    "How does it read back a value it issued earlier: in what order does it check the length,"
    " the signature, the age and then decrypt the data?",
    "Как читается обратно выданное ранее значение: в каком порядке проверяются длина, подпись,"
    " возраст и как расшифровываются данные?",
]


def _lead(question: str, decode: str) -> str:
    hits = [
        code_hit("securecookie.SecureCookie.MinAge", "securecookie.go", MIN_AGE, kind="method"),
        code_hit("securecookie.SecureCookie.MaxAge", "securecookie.go", MAX_AGE, kind="method"),
        code_hit("securecookie.SecureCookie.Decode", "securecookie.go", decode, kind="method"),
        code_hit("securecookie.decrypt", "securecookie.go", DECRYPT),
    ]
    head = how_order(question, hits)
    return head[0].symbol or ""


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_function_doing_the_listed_steps_leads(question: str) -> None:
    assert _lead(question, DECODE) == "securecookie.SecureCookie.Decode"


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_body_long_enough_to_carry_any_words_does_not_take_the_lead(question: str) -> None:
    padded = DECODE.replace("\treturn s.sz", "\tlog.Println()\n" * 60 + "\treturn s.sz")
    assert _lead(question, padded) == "securecookie.SecureCookie.MinAge"


_SCENE_FIRST = [
    "When I build a query on a nested field (like user -> address -> city), how is it actually"
    " evaluated against a stored document?",
    "Когда я собираю запрос по вложенному полю, как он на самом деле проверяется на"
    " сохранённом документе?",
]


@pytest.mark.parametrize("question", _SCENE_FIRST)
def test_a_how_clause_after_a_scene_setting_clause_asks_how_the_code_works(question: str) -> None:
    # "build" and "document" in the first clause set the scene; they ask for no docs
    assert read_facets(question).how
    assert route(question)["intent"] == "CODE_QA"


PROTOCOL = '''\
class QueryLike(Protocol):
    """A typing protocol that acts like a query: callable, with a stable hash."""
    def __call__(self, value: Mapping) -> bool: ...

    def __hash__(self) -> int: ...'''
STRATEGY = '''\
class QueryInstance:
    """The object on which the actual query operations are performed."""

    def __init__(self, test, hashval):
        self._test = test
        self._hash = hashval

    def __call__(self, value: Mapping) -> bool:
        return self._test(value)'''


def test_a_typing_protocol_declares_and_a_called_object_does_the_work() -> None:
    protocol = code_hit("queries.QueryLike", "tinydb/queries.py", PROTOCOL, kind="class")
    strategy = code_hit("queries.QueryInstance", "tinydb/queries.py", STRATEGY, kind="class")
    assert doing_rank(protocol) == (False, 3)
    assert doing_rank(strategy) == (False, 0)


MOUNT_FILES = {
    "Cargo.toml": '[package]\nname = "cpus"\nversion = "0.1.0"\n',
    "src/mounts.rs": """\
macro_rules! some {
    ($e:expr) => {{
        match $e {
            Some(v) => v,
            None => {
                return None;
            }
        }
    }};
}

pub struct Cgroup {
    base: std::path::PathBuf,
}

pub struct MountInfo {
    root: String,
    mount_point: String,
}

impl MountInfo {
    fn load_cpu(proc_path: &str) -> Option<MountInfo> {
        let file = some!(std::fs::read_to_string(proc_path).ok());
        file.lines()
            .filter_map(|line| line.parse().ok())
            .filter_map(MountInfo::parse_line)
            .find(|info| !info.root.is_empty())
    }

    fn parse_line(line: String) -> Option<MountInfo> {
        let mut fields = line.split(' ');
        let root = some!(fields.nth(3));
        let mount_point = some!(fields.nth(0));
        if fields.find(|&field| field == "-").is_none() {
            return None;
        }
        let fs_type = some!(fields.nth(0));
        if fs_type != "cgroup" {
            return None;
        }
        Some(MountInfo { root: root.to_owned(), mount_point: mount_point.to_owned() })
    }
}
""",
}


@pytest.mark.parametrize(
    "question",
    [
        "How does it load the CPU mount info from the process file?",
        "How does the library parse the lines of the process mount table to find where the"
        " cgroup is mounted?",
        "Как библиотека разбирает строки таблицы монтирования процесса, чтобы найти, куда"
        " смонтирована cgroup?",
    ],
)
def test_a_type_named_by_a_word_of_a_how_question_does_not_lead(
    tmp_path: Path, question: str
) -> None:
    with indexed(tmp_path, MOUNT_FILES) as repo:
        answer = repo.ask(question).answer
    lead = answer.citations[0]
    # the parsing functions, not the `Cgroup` struct "cgroup" names nor the `some!` macro
    assert lead.path == "src/mounts.rs" and lead.start_line >= 22, answer.lead


@pytest.mark.parametrize(
    "question",
    [
        "How does it tell whether an error code can be handed back to the caller, rather than"
        " one of its own codes?",
        "Как сделано так, что файл открывается только один раз, даже если потоков несколько?",
        "Как сделано кэширование ответов?",
    ],
)
def test_how_questions_that_ask_neither_callers_nor_how_to(question: str) -> None:
    # "caller, rather than one of" is no "caller of"; «сделано» is done, not «сделать»
    assert read_facets(question).asks == {"how"}


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Who are the callers of parse?", {"callers"}),
        ("Как сделать так, чтобы файл открывался один раз?", {"howto"}),
    ],
)
def test_the_cues_still_ask_when_they_are_whole(question: str, asks: set[str]) -> None:
    assert read_facets(question).asks == asks


def test_once_is_a_word_of_the_question() -> None:
    facets = facets_of(plan("Как сделано так, что файл открывается только один раз?"))
    assert frozenset({"once"}) in facets.concepts


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Что происходит, когда очередное удвоение переполняет 64-битное значение?", "overflow"),
        ("Как считаются задержки по последовательности Фибоначчи?", "fibonacci"),
        ("Просматривает ли он оставшиеся блоки?", "remaining"),
        ("Как память выделяется заранее?", "advance"),
    ],
)
def test_the_russian_words_of_this_round_are_read(question: str, word: str) -> None:
    assert any(word in group for group in facets_of(plan(question)).concepts)
