"""The compiled ignore rules against their references: ``fnmatchcase`` for the default-rule
globs, ``pathspec``'s ``GitIgnoreSpec`` for gitignore patterns (the screened fast path must
answer exactly as the full pattern list does), and git for a pattern pathspec cannot compile.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from ragstrata.errors import ConfigError
from ragstrata.ingest.gitignore import _CACHED_SPEC_CHARS, IgnoreSpec, ignore_spec
from ragstrata.ingest.ignore import matches, skip_rules
from ragstrata.ingest.walker import Walker, walk
from ragstrata.settings import IndexSettings

# ---------------------------------------------------------------------------- default globs

NAMES = [
    ".git", ".gitignore", ".env", ".env.local", "prod.env", "env", "id_rsa", "id_rsa.pub",
    "server.pem", "credentials", "credentials.py", "secrets.yaml", "my-secrets.json",
    "package-lock.json", "yarn.lock", "x.lock", "lock", "app.min.js", "app.js", "a.js.map",
    "build", "Build", "foo.egg-info", "node_modules", "site-packages", ".venv", "README.md",
    "файл.env", "ключ.pem", "", "*", "[", ".", "a\nb.pem", "x.PEM", ".idea", ".hg", "ac", "]",
]  # fmt: skip


def _all_globs() -> list[tuple[str, ...]]:
    rules = skip_rules()
    groups = [rules.vcs, rules.secret, rules.secret_unless_code]
    groups += [globs for _, globs in rules.dirs] + [globs for _, globs in rules.files]
    return [*groups, (), ("[!a]*", "?x", "a[b-d]", "[]]", "[!]]x")]


@pytest.mark.parametrize("globs", _all_globs(), ids=lambda g: ",".join(g[:2]) or "empty")
def test_matches_agrees_with_fnmatchcase(globs: tuple[str, ...]) -> None:
    for name in NAMES:
        assert matches(name, globs) == any(fnmatchcase(name, g) for g in globs), name
    assert any(matches(n, globs) for n in NAMES) == bool(globs)  # the names exercise each


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab.*?[]!-/\\é", max_size=6), st.text(alphabet="ab.-/é*", max_size=8))
def test_matches_agrees_with_fnmatchcase_on_generated_globs(glob: str, name: str) -> None:
    assert matches(name, (glob, "zz")) == (fnmatchcase(name, glob) or name == "zz")


# ---------------------------------------------------------------------------- gitignore screen

ATOMS = [
    "a", "b", "ab", "*", "**", "?", "[ab]", "[!a]", "[a-c]", ".", "x.py", "*.py", "\\*",
    "\\!", "#", " ", "\\ ", "[", "]", "(", ")", "|", "^", "$", "+", "{a,b}", "ü", "д",
]  # fmt: skip
PATTERNS = st.builds(
    lambda pre, parts, post: pre + "".join(parts) + post,
    st.sampled_from(["", "", "/", "!", "**/", "!/", "\\#"]),
    st.lists(
        st.builds(lambda a, s: a + s, st.sampled_from(ATOMS), st.sampled_from(["", "/"])),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(["", "", "/", "/**", "/*"]),
)
PATHS = st.builds(
    lambda parts, folder: "/".join(parts) + folder,
    st.lists(
        st.sampled_from(["a", "b", "ab", "x.py", "y.py", "c", "*", "!", "#", " x", "ü", "д", "("]),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["", "", "/"]),
)


def _compiles(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except ValueError:  # pathspec's GitIgnorePatternError, e.g. "! " (a negation of nothing)
        return False
    return True


def _check(lines: list[str], paths: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "possible nested set" for "[["
        # a line pathspec cannot compile is dropped, as the walk drops it
        reference = GitIgnoreSpec.from_lines([line for line in lines if _compiles(line)])
        ours = IgnoreSpec(lines)
        for path in paths:
            assert ours.check(path) == reference.check_file(path).include, (lines, path)
            assert ours.match(path) == reference.match_file(path), (lines, path)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PATTERNS, min_size=1, max_size=8), st.lists(PATHS, min_size=1, max_size=20))
def test_screened_spec_answers_as_gitignorespec(lines: list[str], paths: list[str]) -> None:
    _check(lines, paths)


def test_screen_covers_every_kind_of_pattern() -> None:
    """Patterns in any folder (factored), rooted, floating (``*``, ``/**/``), negated, folder
    marks, deeper-wins and last-match-wins, Russian names: all decided as pathspec does."""
    lines = [
        "*.log", "!keep.log", "build/", "/rooted.txt", "docs/**/x", "a/**", "**/z/*.tmp",
        "журнал/", "*.черновик", "notes/*", "!notes/final.txt", "# comment", "", "\\#hash",
    ]  # fmt: skip
    paths = [
        "a.log", "keep.log", "sub/keep.log", "build/", "build", "x/build/", "rooted.txt",
        "sub/rooted.txt", "docs/x", "docs/p/q/x", "docs/x/", "a/b", "a/", "q/z/f.tmp", "z/f.tmp",
        "журнал/", "x/журнал/", "письмо.черновик", "notes/draft.txt", "notes/final.txt",
        "#hash", "hash", "readme.md",
    ]  # fmt: skip
    _check(lines, paths)
    _check(["*", "!*.py", "!*/"], ["a.py", "b.txt", "d/", "d/e.py"])  # ignore all, keep some
    _check(["/**/"], ["a/", "a", "a/b"])
    _check(["! ", "*.py"], ["a.py", "b", "! "])  # a negation of nothing: the line is dropped
    assert IgnoreSpec(["*.log"]).check("a.txt") is None
    assert IgnoreSpec(["*.log", "!keep.log"]).check("keep.log") is False


def test_ignore_files_are_compiled_once_per_content() -> None:
    first = ignore_spec(["*.pyc", "build/"])
    assert ignore_spec(("*.pyc", "build/")) is first
    assert ignore_spec(["*.pyc"]) is not first
    huge = [f"{'deep/' * 18}file{i}.txt" for i in range(800)]  # past the size kept in the cache
    assert sum(map(len, huge)) > _CACHED_SPEC_CHARS
    assert ignore_spec(huge) is not ignore_spec(huge)
    assert ignore_spec(huge).check(huge[-1]) is True


# ---------------------------------------------------------------------------- bad patterns


def test_a_pattern_pathspec_cannot_compile_does_not_fail_the_walk(tmp_path: Path) -> None:
    """``[z-a]`` (a reversed range) made ``re`` raise inside the walk; now that line alone is
    dropped and every other line still applies."""
    with pytest.raises(Exception):  # noqa: B017 - the reference itself cannot compile it
        GitIgnoreSpec.from_lines(["[z-a]"])
    (tmp_path / ".gitignore").write_text("[z-a]\n*.log\nподпапка/\n", encoding="utf-8")
    for rel in ("m.py", "b.log", "подпапка/x.py", "z.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n", encoding="utf-8")
    files, report = walk(tmp_path, IndexSettings())
    assert [f.path for f in files] == [".gitignore", "m.py", "z.txt"]
    assert report.skipped["gitignored"] == 2
    spec = IgnoreSpec(["[z-a]", "*.log"])
    assert spec.check("b.log") is True and spec.check("z") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_dropped_pattern_differs_from_git_only_on_its_own_first_character(tmp_path: Path) -> None:
    """Documents the one difference: git reads ``[z-a]`` as the letter ``z``."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, env=env, check=True)
    (tmp_path / ".gitignore").write_text("[z-a]\n", encoding="utf-8")
    for name in ("a", "m", "z"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    done = subprocess.run(
        ["git", "check-ignore", "a", "m", "z"], cwd=tmp_path, env=env, capture_output=True
    )
    assert done.stdout.decode().split() == ["z"]
    assert [f.path for f in walk(tmp_path, IndexSettings())[0]] == [".gitignore", "a", "m", "z"]


@pytest.mark.parametrize("key", ["exclude", "include"])
def test_bad_settings_glob_is_a_config_error(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match=f"settings {key}: bad pattern '\\[z-a\\]'"):
        Walker(tmp_path, IndexSettings.model_validate({key: ("*.py", "[z-a]")}))
    with pytest.raises(ValueError, match="bad pattern"):
        IgnoreSpec(["[z-a]"], strict=True)
