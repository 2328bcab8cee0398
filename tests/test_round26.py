"""Round twenty-six (issue 23): an English follow-up asking yes or no ("Are … reported as
well?") asks a detail of the answer's topic, as a Russian one with «ли» does; in JavaScript a
callback's `) => {` is no branch of the code; a width the question writes ("64-bit") picks the
function named for it over its 32-bit twin; a Python class whose one method is the hook a
framework calls does the work itself; plain words for aliases, anchors, e-mail, logarithms and
deep nesting reach the words code writes.

Двадцать шестой раунд: уточняющий вопрос по-английски, на который отвечают «да» или «нет»,
спрашивает деталь темы прошлого ответа, как русский вопрос с «ли»; в JavaScript `) => {`
открывает функцию обратного вызова, а не ветку кода; разрядность из вопроса («64-битное
число») выбирает функцию, названную по ней, а не её 32-битную пару; класс Python с одним
методом-обработчиком сам делает работу; слова «алиас», «якорь», «электронная почта»,
«логарифм», «переполнение стека» находят слова кода."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, how_order, method_row, plan, search_terms
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.core.evidence import Hit
from ragstrata.query.facets import facets_of

CHECKER = {
    "lint/checker.py": '''
        class ClassScope(dict):
            pass


        class Checker:
            def __init__(self, tree):
                self.deadScopes = []
                self.messages = []

            def report(self, kind, name):
                self.messages.append((kind, name))

            def checkDeadScopes(self):
                """Report the names imported but never used, once every scope was walked."""
                for scope in self.deadScopes:
                    # imports in classes are public members
                    if isinstance(scope, ClassScope):
                        continue
                    for name, binding in scope.items():
                        if not binding.used:
                            self.report(UnusedImport, name)
    ''',
    "lint/messages.py": '''
        class UnusedImport:
            """A module imported but never used."""

            message = "%r imported but unused"

            def __init__(self, filename, loc, name):
                self.message_args = (name,)
    ''',
}


def test_a_yes_or_no_follow_up_is_answered_from_the_lines_of_the_topic(tmp_path: Path) -> None:
    first = (
        "After the whole module has been walked, how are the imported but unused warnings produced?"
    )
    answer = follow_up(
        tmp_path, CHECKER, first, "Are unused imports inside a class body reported as well?"
    )
    lead = answer.citations[0]
    # lines of `checkDeadScopes` (lines 14-22 of lint/checker.py), not the card of the message
    # class the words "unused imports" also name
    assert lead.path == "lint/checker.py" and 15 <= lead.start_line <= 22, answer.text[:300]


RANKED = (
    "function highestRanking(item, keys, value) {\n"
    "  return keys.reduce(\n"
    "    ({rank, rankedValue}, {itemValue, attributes}) => {\n"
    "      let newRank = matchRanking(itemValue, value)\n"
    "      const {minRanking, maxRanking} = attributes\n"
    "      if (newRank < minRanking && newRank >= MATCHES) {\n"
    "        newRank = minRanking\n"
    "      } else if (newRank > maxRanking) {\n"
    "        newRank = maxRanking\n"
    "      }\n"
    "      return {rank: newRank, rankedValue}\n"
    "    },\n"
    "    {rank: NO_MATCH},\n"
    "  )\n"
    "}\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "And if a minimum ranking is set for a key, is a value below it raised to that minimum?",
        "А если для ключа задан минимальный ранг, поднимается ли до него значение ниже него?",
    ],
)
def test_a_javascript_callback_header_is_no_branch_of_the_code(question: str) -> None:
    row = method_row("index.highestRanking", "src/index.js", "javascript", RANKED)
    span = answering_lines(row, facets_of(plan(question)))
    # the `if` comparing with the minimum (line 6), not the callback's `) => {` (line 3)
    assert span is not None and span.start_line == 6, span


F32 = "fn integer_decode_f32(f: f32) -> (u64, i16, i8) {\n    let bits = f.to_bits();\n    split(bits)\n}\n"
F64 = "fn integer_decode_f64(f: f64) -> (u64, i16, i8) {\n    let bits = f.to_bits();\n    split(bits)\n}\n"


HOOK = '''class AutomailProcessor(InlineProcessor):
    """Return a mailto link element given an auto-mail link."""
    def handleMatch(self, m, data):
        el = etree.Element("a")
        email = self.unescape(m.group(1))
        letters = [codepoint(ord(letter)) for letter in email]
        el.text = "".join(letters)
        el.set("href", "mailto:" + email)
        return el, m.start(0), m.end(0)
'''
VALUE = '''class ParseError(Exception):
    """The text could not be parsed to the end."""
    def __str__(self):
        return "rule %r didn't match at %r (line %s, column %s)." % (
            self.expr.name,
            self.text[self.pos:self.pos + 20],
            self.line(),
            self.column(),
        )
'''
WRAPPER = """class Const(Schema):
    def validate(self, data):
        super().validate(data)
        return data
"""
HELPER = (
    "def build_url(label, base, end):\n    clean = label.strip()\n    return base + clean + end\n"
)


def test_a_class_whose_one_method_is_a_hook_does_the_work_itself() -> None:
    hook = code_hit(
        "markdown.inlinepatterns.AutomailProcessor", "markdown/inline.py", HOOK, kind="class"
    )
    helper = code_hit("markdown.wikilinks.build_url", "markdown/wikilinks.py", HELPER)
    question = "How does it hide an e-mail address in an automatic link from spam bots?"
    assert how_order(question, [hook, helper])[0] is hook
    # a value's one `__str__`, a two-line wrapper of its base class: types, after the function
    for kind_of_class in (VALUE, WRAPPER):
        other = code_hit("pkg.mod.Other", "pkg/mod.py", kind_of_class, kind="class")
        assert how_order(question, [other, helper])[0] is helper


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Как библиотека защищается от алиасов, которые ссылаются на один якорь?", "alias"),
        ("Как библиотека защищается от алиасов, которые ссылаются на один якорь?", "anchor"),
        ("Как прячется адрес электронной почты в автоссылке?", "email"),
        ("Как вычисляется натуральный логарифм числа?", "ln"),
        ("How does it compute the natural logarithm of a value?", "ln"),
        ("How does it stop deeply nested input from overflowing the stack?", "recursion"),
        ("Как парсер избегает переполнения стека на глубоко вложенных данных?", "depth"),
        ("Как учитываются ограничения ранга для отдельного поля?", "rank"),
        ("How does it parse a number given as text?", "string"),
        ("Как приоритетная очередь решает, какой элемент взять?", "priority"),
        ("Как распознаются директивы заголовка управления кэшированием?", "directive"),
        ("How does it parse the HSTS policy of a response?", "strict transport security"),
        ("How does the first in first out queue read the next item?", "fifo"),
    ],
)
def test_plain_words_for_aliases_mail_logarithms_and_nesting_reach_their_code_terms(
    question: str, term: str
) -> None:
    assert term in search_terms(question)


IS_NULL = (
    "pub fn is_null(&self) -> bool {\n"
    "    if let Value::Null = self.untag_ref() {\n"
    "        true\n"
    "    } else {\n"
    "        false\n"
    "    }\n"
    "}\n"
)
IS_U64 = (
    "pub fn is_u64(&self) -> bool {\n"
    "    match self.n {\n"
    "        N::PosInt(_) => true,\n"
    "        N::NegInt(_) | N::Float(_) => false,\n"
    "    }\n"
    "}\n"
)
FITS_I64 = (
    "pub fn is_i64(&self) -> bool {\n"
    "    match self.n {\n"
    "        N::PosInt(v) => v <= i64::max_value() as u64,\n"
    "        N::NegInt(_) => true,\n"
    "        N::Float(_) => false,\n"
    "    }\n"
    "}\n"
)


def test_a_predicate_only_matching_a_variant_is_an_accessor() -> None:
    for accessor in (IS_NULL, IS_U64):
        hit = code_hit("crate::value::Value::is_x", "src/value/mod.rs", accessor, kind="method")
        assert doing_rank(hit) == (False, 1)
    # a comparison decides something: code doing work
    fits = code_hit("crate::number::Number::is_i64", "src/number.rs", FITS_I64, kind="method")
    assert doing_rank(fits) == (False, 0)


def _method(symbol: str, path: str, text: str) -> Hit:
    return code_hit(symbol, path, text, kind="method")


ROBIN_POP = (
    "def pop(self):\n"
    "    while True:\n"
    "        key = self.key_queue.pop()\n"
    "        q = self.queues[key]\n"
    "        m = q.pop()\n"
    "        self.key_queue.appendleft(key)\n"
    "        if m:\n"
    "            return m\n"
)


# two candidates alike but for their names, and a question that names neither
TWINS = {
    "width": (
        ("crate::float::integer_decode_f32", "src/float.rs", F32, "function"),
        ("crate::float::integer_decode_f64", "src/float.rs", F64, "function"),
        "How is a float split into mantissa and exponent?",
    ),
    # the same step in two types, its code alike: only the types' names tell them apart
    "type": (
        ("queuelib.queue.FifoSQLiteQueue.pop", "queuelib/queue.py", ROBIN_POP, "method"),
        ("queuelib.rrqueue.RoundRobinQueue.pop", "queuelib/rrqueue.py", ROBIN_POP, "method"),
        "How is the next item taken out?",
    ),
}


@pytest.mark.parametrize(
    ("twins", "question"),
    [
        (
            "width",
            "How does it split a 64-bit float into an integer mantissa, an exponent and a sign?",
        ),
        ("width", "Как 64-битное число с плавающей точкой раскладывается на мантиссу и знак?"),
        ("type", "How does the round-robin queue rotate between keys when taking items out?"),
        ("type", "Как очередь с циклическим обходом (round-robin) чередует ключи при выдаче?"),
    ],
)
def test_the_question_picks_the_twin_its_words_name(twins: str, question: str) -> None:
    """The width a question writes picks the function named for it (`_f64`, not `_f32`); the
    type it names by two words or more picks that type's method of the shared name."""
    first, named, neither = TWINS[twins]
    found = [code_hit(symbol, path, text, kind=kind) for symbol, path, text, kind in (first, named)]
    assert how_order(question, found)[0] is found[1]
    # a question naming neither leaves retrieval's order
    assert how_order(neither, found)[0] is found[0]


WRITER_NEW = (
    "pub fn new(w: W, level: Compression) -> DeflateEncoder<W> {\n"
    "    DeflateEncoder { inner: zio::Writer::new(w, Compress::new(level, false)) }\n"
    "}\n"
)
WRITER_FINISH = (
    "pub fn finish(mut self) -> io::Result<W> {\n"
    "    self.inner.finish()?;\n"
    "    Ok(self.inner.take_inner())\n"
    "}\n"
)


def test_making_sure_of_something_asks_no_constructor() -> None:
    new = _method("crate::deflate::write::DeflateEncoder::new", "src/deflate/write.rs", WRITER_NEW)
    finish = _method(
        "crate::deflate::write::DeflateEncoder::finish", "src/deflate/write.rs", WRITER_FINISH
    )
    question = (
        "When the compressing writer is asked to push out what it has, how does it make sure"
        " all pending output reached the underlying writer?"
    )
    assert how_order(question, [new, finish])[0] is finish
    # asked how the encoder is made, the constructor answers
    assert how_order("How is a new compressing writer created?", [finish, new])[0] is new
