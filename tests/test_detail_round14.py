"""Follow-ups and how-questions from the fourteenth round's blind batches, one class each (what
a question asks — the callers readings below — joined round thirteen's test of its shape).

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
from ragstrata.answer.graphs.copies import _copied, _legacy_paths
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.doing import doing_rank
from ragstrata.answer.graphs.words import line_stems
from ragstrata.query.facets import read_facets

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


BACKOFF = """\
func (b *ExponentialBackOff) incrementCurrentInterval() {
	// Check for overflow, if overflow is detected set the current interval to the max interval.
	if float64(b.currentInterval) >= float64(b.MaxInterval)/b.Multiplier {
		b.currentInterval = b.MaxInterval
	} else {
		b.currentInterval = time.Duration(float64(b.currentInterval) * b.Multiplier)
	}
}"""

_ROWS = {
    "rename": ("afero.MemMapFs.Rename", "memmap.go", "go", RENAME),
    "promote": ("bytes.shallow_clone_vec", "src/bytes.rs", "rust", PROMOTE),
    "merge": ("loader.mergeMappings", "lib/loader.js", "javascript", MERGE),
    "decode": ("cookie.decode", "src/index.js", "javascript", DECODE),
    "scan": ("afero.readerContainsAny", "util.go", "go", SCAN),
    "backoff": ("backoff.ExponentialBackOff.incrementCurrentInterval", "exp.go", "go", BACKOFF),
}
_THREADS = ("thread", "race", "lose", "loses", "shared", "state", "allocated", "allocation")


@pytest.mark.parametrize(
    ("question", "detail", "row", "terms", "span"),
    [
        # two names asked about as one: their comparison
        ("What happens if the old and the new name are the same?", "equal", "rename",
         ("old", "new", "name"), (5, 5, 7)),
        ("Что произойдёт, если старое и новое имя совпадают?", "equal", "rename",
         ("old", "new", "name"), (5, 5, 7)),
        # a value of another type: the test of its type and the error
        ("And what happens if the source to merge is not an object but a plain string?",
         "wrongtype", "merge", ("source", "merge", "plain", "string"), (4, 4, 6)),
        ("А что будет, если источник для слияния не объект, а обычная строка или число?",
         "wrongtype", "merge", ("source", "merge", "plain", "string", "number"), (4, 4, 6)),
        # an error: the branch it takes
        ("and what if an error occurs while decoding?", "error", "decode",
         ("error", "decoding", "decode"), (7, 7, 9)),
        ("а что если при декодировании возникает ошибка?", "error", "decode",
         ("error", "decoding", "decode"), (7, 7, 9)),
        # a size made as a multiple is an amount
        ("How large is the read buffer it uses while scanning?", "amount", "scan",
         ("large", "read", "buffer", "size", "scanning"), (11, 11, 13)),
        ("Какого размера буфер для чтения?", "amount", "scan",
         ("large", "read", "buffer", "size", "scanning"), (11, 11, 13)),
        # `MaxInterval` says "maximum"
        ("and what if the interval grows past the maximum?", None, "backoff",
         ("interval", "grows", "past", "maximum"), (3, 3, 5)),
        ("а если интервал вырастет больше максимума?", None, "backoff",
         ("interval", "grows", "past", "maximum"), (3, 3, 5)),
        # the comment above says what the lines do
        ("If two threads race and one loses, what does the losing thread do with the shared "
         "state it already allocated?", None, "promote", _THREADS, (9, 12, 15)),
        ("Если два потока соревнуются и один проигрывает, что проигравший поток делает с уже "
         "выделенным общим состоянием?", None, "promote", _THREADS, (9, 12, 15)),
    ],
)  # fmt: skip
def test_the_lines_of_the_kind_asked_for(
    question: str,
    detail: str | None,
    row: str,
    terms: tuple[str, ...],
    span: tuple[int, int, int],
) -> None:
    facets = read_facets(question)
    assert detail is None or detail in facets.details, facets.details
    found = answering_lines(method_row(*_ROWS[row]), replace(facets, terms=terms))
    first, last, end = span
    assert found is not None and first <= found.start_line <= last, found
    assert found.end_line <= end, found


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
        # a type cue with a gap is no cue
        ("Как ограничивается размер диапазона, чтобы не получить огромный массив?", set()),
    ],
)
def test_a_cue_inside_a_longer_one_is_none_of_its_own(question: str, details: set[str]) -> None:
    assert read_facets(question).details == details


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


def test_a_punctuation_literal_with_a_space_names_its_character() -> None:
    assert "comm" in line_stems('s := strings.Index(fwd, ", ")')
    assert "colo" in line_stems("parts = line.split(': ')")
    assert "comm" not in line_stems('name := "a, b"')


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
    # only files defining a name another file defines too are read at all
    window = [
        code_hit("btree.node.remove", "btree.go", "func (n *node) remove() {}"),
        code_hit("btree.node.remove", "btree_generic.go", "func (n *node) remove() {}"),
        code_hit("btree.node.find", "find.go", "func (n *node) find() {}"),
    ]
    assert _copied(window) == {"btree.go", "btree_generic.go"}
