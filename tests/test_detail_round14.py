"""Follow-ups and how-questions from the fourteenth round's blind batch, one class each.

«Как библиотека определяет, из какого модуля был сделан вызов?» asks how the code finds its
caller out, not for the callers: a call cue inside a clause that a question word opens after
the comma is the object of the how («Как найти, кто вызывает parse?» still asks for them).
"What if the old and new names are the same?" is answered by the comparison of the two names
(`if oldname == newname {`). "None of those" asks for what no branch handled, not for a
missing value: a cue inside a longer one of another detail is none of its own. And the comment
above a line, which says in words what it does, counts half of what its code's words count.
A method that hands its work to the package's function of the same name (Go's
`func (a Afero) TempFile(…) { return TempFile(a.Fs, …) }`) is a wrapper, no accessor: the
function doing the work leads a how-answer through it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from answer_fixture import code_hit, method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.query.facets import read_facets


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (
            "Как библиотека определяет, из какого модуля приложения был сделан вызов "
            "логирования, пропуская свои внутренние кадры стека?",
            {"how"},
        ),
        (
            "How does the library work out, from which module of the application the logging "
            "call was made, skipping its own frames?",
            {"how"},
        ),
        ("Как узнать, кто вызывает parse?", {"callers"}),
        ("Кто вызывает parse?", {"callers"}),
        ("Who calls parse?", {"callers"}),
    ],
)
def test_a_call_inside_the_clause_a_how_question_asks_about_asks_no_callers(
    question: str, asks: set[str]
) -> None:
    facets = read_facets(question)
    assert facets.asks == asks, facets.asks


RENAME = """\
func (m *MemMapFs) Rename(oldname, newname string) error {
	oldname = normalizePath(oldname)
	newname = normalizePath(newname)

	if oldname == newname {
		return nil
	}

	m.mu.RLock()
	defer m.mu.RUnlock()
	if _, ok := m.getData()[oldname]; ok {
		m.mu.RUnlock()
		m.mu.Lock()
		fileData := m.getData()[oldname]
		delete(m.getData(), oldname)
		mem.ChangeFileName(fileData, newname)
		m.getData()[newname] = fileData
		m.mu.Unlock()
		m.mu.RLock()
	} else {
		return &os.PathError{Op: "rename", Path: oldname, Err: ErrFileNotFound}
	}
	return nil
}"""


@pytest.mark.parametrize(
    "question",
    [
        "What happens if the old and the new name are the same?",
        "Что произойдёт, если старое и новое имя совпадают?",
    ],
)
def test_two_names_asked_about_as_one_are_answered_by_their_comparison(question: str) -> None:
    facets = read_facets(question)
    assert "equal" in facets.details, facets.details
    facets = replace(facets, terms=("old", "new", "name"))
    span = answering_lines(method_row("afero.MemMapFs.Rename", "memmap.go", "go", RENAME), facets)
    assert span is not None and (span.start_line, span.end_line) == (5, 7), span


@pytest.mark.parametrize(
    ("question", "details"),
    [
        (
            "And what happens if the last processor returns something that is none of those?",
            {"condition", "otherwise", "returns"},
        ),
        ("а если ни одно правило не подошло?", {"condition", "otherwise"}),
        ("what if the value is None?", {"condition", "missing", "returns"}),
        ("а если значение пустое?", {"condition", "missing"}),
    ],
)
def test_a_cue_inside_a_longer_one_is_none_of_its_own(question: str, details: set[str]) -> None:
    assert read_facets(question).details == details


PROMOTE = """\
unsafe fn shallow_clone_vec(atom: &AtomicPtr<()>, ptr: *const (), buf: *mut u8) -> Bytes {
    let shared = Box::new(Shared { buf, ref_cnt: AtomicUsize::new(2) });
    let shared = Box::into_raw(shared);
    match atom.compare_exchange(ptr as _, shared as _, Ordering::AcqRel, Ordering::Acquire) {
        Ok(actual) => {
            debug_assert!(core::ptr::eq(actual, ptr));
            Bytes::from_shared(shared)
        }
        Err(actual) => {
            // The upgrade failed, the race is lost to another thread. Release the
            // allocation made in this thread, it will not be needed.
            let shared = Box::from_raw(shared);
            mem::forget(*shared);
            shallow_clone_arc(actual as _)
        }
    }
}"""


@pytest.mark.parametrize(
    "question",
    [
        "If two threads race and one loses, what does the losing thread do with the shared "
        "state it already allocated?",
        "Если два потока соревнуются и один проигрывает, что проигравший поток делает с уже "
        "выделенным общим состоянием?",
    ],
)
def test_the_comment_above_says_what_the_lines_do(question: str) -> None:
    facets = replace(
        read_facets(question),
        terms=("thread", "race", "lose", "loses", "shared", "state", "allocated", "allocation"),
    )
    span = answering_lines(
        method_row("bytes.shallow_clone_vec", "src/bytes.rs", "rust", PROMOTE), facets
    )
    assert span is not None and 9 <= span.start_line <= 12 and span.end_line <= 15, span


@pytest.mark.parametrize(
    ("symbol", "path", "text", "rank"),
    [
        (
            "afero.Afero.TempFile",
            "ioutil.go",
            "func (a Afero) TempFile(dir, pattern string) (File, error) {\n"
            "\treturn TempFile(a.Fs, dir, pattern)\n}",
            0,
        ),
        (
            "pkg.Reader.read",
            "pkg/reader.py",
            "def read(self, n):\n    return read(self.fd, n)\n",
            0,
        ),
        # the method calling itself through its object, or reading a field: an accessor
        ("pkg.Reader.read", "pkg/reader.py", "def read(self, n):\n    return self.read(n)\n", 1),
        ("lib.Cache.get", "lib/cache.js", "get (key) {\n  return this.get(key)\n}", 1),
        ("afero.Afero.Name", "afero.go", "func (a Afero) Name() string {\n\treturn a.name\n}", 1),
    ],
)
def test_a_method_handing_its_work_to_the_function_of_its_name_is_a_wrapper(
    symbol: str, path: str, text: str, rank: int
) -> None:
    assert doing_rank(code_hit(symbol, path, text, kind="method")) == (False, rank)
