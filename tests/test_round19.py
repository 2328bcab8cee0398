"""How-questions, detail follow-ups and question reading from the nineteenth round's blind
batches.

- "How does go-multierror merge … into existing multi-errors?": "multi-errors" is the
  project's own name inflected, which names no file of it; the function doing the work keeps
  the lead retrieval gave it.
- A lead saying no word of the question (a command-line usage text matched by the project's
  name alone) gives way to the first candidate saying one.
- Russian words of the batches have their English terms (случайность, шифротекст, плоский …).
- "What happens if I ask for a kind that isn't one of the known ones?" asks for the branch a
  failed lookup takes; "a single error" is the value 1 (`len(errs) == 1`).
- «к» is the preposition, no form of «как»: «к консоли не подключён» asks no setup question;
  «Как получить X и как это вычисляется?» asks how the code works.
- The tightest branch inside the best one, saying every word of the question the outer one
  says, is cited.
- A package's own `test.js` and its type tests (`*.test-d.ts`) are test files.
"""

from __future__ import annotations

import pytest

from answer_fixture import ROUTER, code_hit, how_order, method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.core.languages import detect_language, is_test
from ragstrata.query.facets import facets_of, read_facets

OR_NIL = """\
func (e *List) ErrorOrNil() error {
	if e == nil {
		return nil
	}
	return e
}"""
APPEND = """\
func Append(err error, errs ...error) *List {
	all := new(List)
	for _, e := range append([]error{err}, errs...) {
		if e != nil {
			all.Errors = append(all.Errors, e)
		}
	}
	return all
}"""


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        (
            "How does go-multierror merge new errors into an existing value when some of them"
            " are multi-errors?",
            "append.go",
        ),
        (
            "Как go-multierror добавляет новые ошибки к уже существующей, если среди них есть"
            " multi-errors?",
            "append.go",
        ),
        # a word naming the file that is no form of the project's name still names it
        ("How does the list merge new errors into an existing value?", "list.go"),
    ],
)
def test_the_projects_name_inflected_names_no_file(question: str, lead: str) -> None:
    hits = [
        code_hit("multierror.Append", "append.go", APPEND),
        code_hit("multierror.List.ErrorOrNil", "multierror.go", OR_NIL, kind="method"),
        code_hit("multierror.List.ErrorOrNil", "list.go", OR_NIL, kind="method"),
    ]
    head = how_order(question, hits, ["go-multierror", "multierror"])
    assert head[0].path == lead, [h.path for h in head]


USAGE = """\
function usage() {
  console.log('Usage:');
  console.log('  ident');
  console.log('  ident v1');
  console.log('  ident v7');
}"""
NEXT = """\
function nextState(state, now) {
  if (now > state.msecs) {
    state.seq = random();
    state.msecs = now;
  } else {
    state.seq = (state.seq + 1) | 0;  // the same millisecond
  }
  return state;
}"""
STAMP = """\
function stamp(ids) {
  return ids.map((id) => id.millisecond);
}"""
ORDER = """\
function sorted(ids) {
  return ids.slice().sort(compare);
}"""


@pytest.mark.parametrize(
    "question",
    [
        "How does ident keep ids made within the same millisecond strictly increasing?",
        "Как ident сохраняет строгий порядок идентификаторов, созданных в одну миллисекунду?",
    ],
)
def test_a_lead_saying_no_word_of_the_question_gives_way(question: str) -> None:
    # retrieval ranked the command-line usage first by the project's name alone
    hits = [
        code_hit("bin.usage", "src/bin.ts", USAGE),
        code_hit("v7.nextState", "src/v7.ts", NEXT),
        code_hit("stamp.stamp", "src/stamp.ts", STAMP),
        code_hit("sort.sorted", "src/sort.ts", ORDER),
    ]
    head = how_order(question, hits, ["ident"])
    assert head[0].symbol == "v7.nextState", [h.symbol for h in head]


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("А если свой источник случайности вернёт меньше 16 байт?", "random"),
        ("А если шифротекст длиннее модуля ключа?", "ciphertext"),
        ("Как получить одну ошибку с плоским списком всех ошибок?", "flat"),
        ("Как при чтении знакового целого восстанавливается отрицательное значение?", "signed"),
        ("Как промежуток времени превращается в строку вроде «2d»?", "duration"),
        ("Откуда берётся маскирующий множитель?", "factor"),
        ("Когда он отдаёт встроенный генератор платформы?", "platform"),
    ],
)
def test_russian_words_of_the_blind_questions_have_english_terms(question: str, term: str) -> None:
    facets = facets_of(ROUTER.plan(question, None, None))
    assert any(term in concept for concept in facets.concepts), facets.concepts


SECRET = """\
func makeSecret(kind, master, site string) string {
	var shapes = secretShapes[kind]
	if shapes == nil {
		return fmt.Sprintf("cannot find secret shape %s", kind)
	}
	var buf bytes.Buffer
	buf.WriteString(master)
	buf.WriteString(site)
	sum := sha256.Sum256(buf.Bytes())
	shape := shapes[int(sum[0])%len(shapes)]
	return render(shape, sum[1:])
}"""


@pytest.mark.parametrize(
    "question",
    [
        "What happens if I ask for a kind that isn't one of the known ones?",
        "А что будет, если запросить вид, который не входит в число известных?",
    ],
)
def test_not_one_of_the_known_ones_asks_for_the_failed_lookup(question: str) -> None:
    assert "otherwise" in read_facets(question).details
    row = method_row("secrets.makeSecret", "secrets.go", "go", SECRET)
    span = answering_lines(row, facets_of(ROUTER.plan(question, None, None)))
    # the branch for a kind the table does not hold
    assert span is not None and (span.start_line, span.end_line) == (3, 5), span


LIST_TEXT = """\
func listText(errs []error) string {
	if len(errs) == 0 {
		return "no errors"
	}
	if len(errs) == 1 {
		return fmt.Sprintf("1 error: %s", errs[0])
	}
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = fmt.Sprintf("* %s", err)
	}
	return fmt.Sprintf("%d errors:\\n%s", len(errs), strings.Join(lines, "\\n"))
}"""


@pytest.mark.parametrize(
    "question",
    [
        "What does the message look like when the list holds a single error?",
        "Как выглядит сообщение, если в списке единственная ошибка?",
    ],
)
def test_a_single_one_is_the_value_one(question: str) -> None:
    facets = facets_of(ROUTER.plan(question, None, None))
    assert "1" in facets.values
    span = answering_lines(method_row("text.listText", "text.go", "go", LIST_TEXT), facets)
    assert span is not None and (span.start_line, span.end_line) == (5, 6), span


@pytest.mark.parametrize(
    "question",
    [
        "Как same-file на Windows создаёт объект для стандартного потока, если к консоли не"
        " подключён канал?",
        "Что делает клиент, когда к серверу не подключиться с первого раза?",
    ],
)
def test_the_preposition_k_is_no_how(question: str) -> None:
    # «к … подключён» read as «как подключить» (an install question) routed these to the
    # project's documentation
    plan = ROUTER.plan(question, None, {"project_names": ["same-file"]})
    assert plan.intent.value == "CODE_QA", plan.intent


def test_how_to_connect_still_asks_for_setup() -> None:
    plan = ROUTER.plan("Как подключить библиотеку к проекту?", None, None)
    assert plan.intent.value == "PROJECT_MISC", plan.intent


@pytest.mark.parametrize(
    "question",
    [
        "Как получить из обёрнутой строки новую строку с уже свёрнутым регистром и как это"
        " вычисляется?",
        "How do I get a copy of the string with its case folded, and how is it computed?",
    ],
)
def test_a_second_how_joined_to_a_howto_asks_about_the_code(question: str) -> None:
    plan = ROUTER.plan(question, None, None)
    assert plan.intent.value == "CODE_QA", plan.intent


CHAR_OF = """\
def char_of(code, keep):
    if code is not None:
        # codes 80-9F name the Windows-1252 characters browsers show for them
        try:
            if 0x80 <= code <= 0x9F:
                return bytes((code,)).decode("cp1252")
            return chr(code)
        except (ValueError, OverflowError):
            pass
    return keep"""


@pytest.mark.parametrize(
    "question",
    [
        "And what do character codes from 128 to 159 turn into?",
        "А во что превращаются коды символов от 128 до 159?",
    ],
)
def test_the_inner_branch_saying_it_all_is_cited_not_the_one_around_it(question: str) -> None:
    facets = facets_of(ROUTER.plan(question, None, None))
    span = answering_lines(method_row("chars.char_of", "chars.py", "python", CHAR_OF), facets)
    assert span is not None and (span.start_line, span.end_line) == (5, 6), span


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("test.js", True),  # ava's and node:test's one test file beside index.js
        ("test.mjs", True),
        ("index.test-d.ts", True),  # tsd's type tests
        ("src/types.spec-d.ts", True),  # vitest's
        ("index.js", False),
        ("latest.js", False),
        ("index.d.ts", False),
    ],
)
def test_a_packages_own_test_file_is_a_test(path: str, test: bool) -> None:
    assert is_test(path, detect_language(path)) is test
