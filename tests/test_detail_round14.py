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
"What if it is not a string?", «не отображение, а строку» ask for the test of the value's type
(`isinstance`, `typeof`, `isObject(…)`) and the error it raises; «не получить огромный массив»
asks for none (a type cue with a gap is no cue). "What if an error occurs?" is answered by the
`catch` / `except` branch. A size made as a multiple (`bufflen := largest * 4`) is an amount,
`MaxInterval` says "maximum", and `", "` writes a comma as `","` does. «Какие функции вызывают
parse?» asks for callers; «Как устроен повторный вызов функции?» for none. A Go file built only
for older toolchains (`//go:build !go1.18`) is the copy kept for them: a how-answer leads with
the code built today.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from answer_fixture import code_hit, indexed, method_row
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.answer.graphs.ranking import _legacy_paths
from ragstrata.answer.graphs.words import line_stems
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


MERGE = """\
function mergeMappings(state, destination, source, overridableKeys) {
  var sourceKeys, key, index, quantity;

  if (!common.isObject(source)) {
    throwError(state, 'cannot merge mappings; the provided source object is unacceptable');
  }

  sourceKeys = Object.keys(source);
  for (index = 0, quantity = sourceKeys.length; index < quantity; index += 1) {
    key = sourceKeys[index];
    if (!_hasOwnProperty.call(destination, key)) {
      setProperty(destination, key, source[key]);
      overridableKeys[key] = true;
    }
  }
}"""


@pytest.mark.parametrize(
    "question",
    [
        "And what happens if the source to merge is not an object but a plain string or number?",
        "А что будет, если источник для слияния не объект, а обычная строка или число?",
    ],
)
def test_a_value_of_another_type_is_answered_by_the_test_of_its_type(question: str) -> None:
    facets = read_facets(question)
    assert "wrongtype" in facets.details, facets.details
    facets = replace(facets, terms=("source", "merge", "plain", "string", "number"))
    span = answering_lines(
        method_row("loader.mergeMappings", "lib/loader.js", "javascript", MERGE), facets
    )
    assert span is not None and (span.start_line, span.end_line) == (4, 6), span


def test_a_type_cue_with_a_gap_is_no_cue() -> None:
    question = "Как ограничивается размер диапазона, чтобы не получить огромный массив?"
    assert "wrongtype" not in read_facets(question).details


DECODE = """\
function decode(str) {
  if (str.indexOf('%') === -1) {
    return str;
  }
  try {
    return decodeURIComponent(str);
  } catch (e) {
    return str;
  }
}"""


@pytest.mark.parametrize(
    "question",
    [
        "and what if an error occurs while decoding?",
        "а что если при декодировании возникает ошибка?",
    ],
)
def test_an_error_is_answered_by_the_branch_it_takes(question: str) -> None:
    facets = replace(read_facets(question), terms=("error", "decoding", "decode"))
    span = answering_lines(
        method_row("cookie.decode", "src/index.js", "javascript", DECODE), facets
    )
    assert span is not None and span.start_line == 7, span


SCAN = """\
func readerContainsAny(r io.Reader, subslices ...[]byte) bool {
	if r == nil || len(subslices) == 0 {
		return false
	}
	largestSlice := 0
	for _, sl := range subslices {
		if len(sl) > largestSlice {
			largestSlice = len(sl)
		}
	}
	bufflen := largestSlice * 4
	halflen := bufflen / 2
	buff := make([]byte, bufflen)
	for {
		n, err := io.ReadAtLeast(r, buff[:halflen], halflen)
		if err != nil {
			return false
		}
	}
}"""


@pytest.mark.parametrize(
    "question",
    ["How large is the read buffer it uses while scanning?", "Какого размера буфер для чтения?"],
)
def test_a_size_made_as_a_multiple_is_an_amount(question: str) -> None:
    facets = read_facets(question)
    assert "amount" in facets.details, facets.details
    facets = replace(facets, terms=("large", "read", "buffer", "size", "scanning"))
    span = answering_lines(method_row("afero.readerContainsAny", "util.go", "go", SCAN), facets)
    assert span is not None and span.start_line == 11, span


BACKOFF = """\
func (b *ExponentialBackOff) incrementCurrentInterval() {
	// Check for overflow, if overflow is detected set the current interval to the max interval.
	if float64(b.currentInterval) >= float64(b.MaxInterval)/b.Multiplier {
		b.currentInterval = b.MaxInterval
	} else {
		b.currentInterval = time.Duration(float64(b.currentInterval) * b.Multiplier)
	}
}"""


@pytest.mark.parametrize(
    "question",
    [
        "and what if the interval grows past the maximum?",
        "а если интервал вырастет больше максимума?",
    ],
)
def test_max_in_a_name_says_maximum(question: str) -> None:
    facets = replace(read_facets(question), terms=("interval", "grows", "past", "maximum"))
    row = method_row(
        "backoff.ExponentialBackOff.incrementCurrentInterval", "exponential.go", "go", BACKOFF
    )
    span = answering_lines(row, facets)
    assert span is not None and span.start_line == 3, span


def test_a_punctuation_literal_with_a_space_names_its_character() -> None:
    assert "comm" in line_stems('s := strings.Index(fwd, ", ")')
    assert "colo" in line_stems("parts = line.split(': ')")
    assert "comm" not in line_stems('name := "a, b"')


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        # the verb in the plural: the functions asked about call `parse`
        ("Какие функции вызывают parse?", {"callers"}),
        ("Какие методы вызывают parse, и где?", {"callers"}),
        # in the singular `parse` calls them
        ("Какие функции вызывает parse?", {"callees"}),
        ("Which functions does parse call?", {"callees"}),
        ("Who calls parse?", {"callers"}),
    ],
)
def test_which_functions_call_it_asks_for_callers(question: str, asks: set[str]) -> None:
    assert read_facets(question).asks == asks


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (
            "Как в funcy устроен повторный вызов функции, если она падает с исключением?",
            {"how"},
        ),
        ("А что будет, если вызов исходной функции всё равно падает с TypeError?", set()),
        ("Покажи вызовы parse", {"callers"}),
        ("Как найти вызовы parse?", {"callers"}),
        ("Как повлияет удаление вызовов функции `merge_cookies` на вход?", {"callers"}),
    ],
)
def test_a_call_described_asks_for_no_callers(question: str, asks: set[str]) -> None:
    assert read_facets(question).asks == asks


TREE_GO = """\
// Copyright 2014 The Authors.
//
// Licensed under the Apache License, Version 2.0.

{constraint}

// Package btree implements in-memory B-Trees.
package btree

func (n *node) growChildAndRemove(i int, item Item) Item {{
	child := n.mutableChild(i)
	return child.remove(item)
}}
"""


def test_a_go_file_built_only_for_older_toolchains_is_the_legacy_copy(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/btree\n\ngo 1.18\n",
        "btree.go": TREE_GO.format(constraint="//go:build !go1.18\n// +build !go1.18"),
        "btree_generic.go": TREE_GO.format(constraint="//go:build go1.18\n// +build go1.18"),
        "btree_other.go": TREE_GO.format(constraint="//go:build linux"),
    }
    with indexed(tmp_path, files) as repo:
        paths = {"btree.go", "btree_generic.go", "btree_other.go"}
        assert _legacy_paths(paths, repo.reader) == {"btree.go"}
