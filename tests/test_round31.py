"""Round thirty-one (issue 23): «значение по умолчанию» after a noun names the default value (as
"the default value" does), not a missing one («используется по умолчанию», "by default": when
nothing is given); the call right above a condition testing its result (`file, err :=
os.OpenFile(…)` above `if err != nil {`) says what the branch handles.

Тридцать первый раунд: «значение по умолчанию» после существительного называет само значение,
а не его отсутствие («используется по умолчанию» — когда ничего не задано); вызов прямо над
условием, которое проверяет его результат, говорит, что обрабатывает эта ветка."""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import code_hit, follow_up, indexed, method_row, plan
from ragstrata.answer.graphs.detail import answering_lines
from ragstrata.answer.graphs.worded import worded_twin
from ragstrata.answer.graphs.words import stem_groups
from ragstrata.query.facets import facets_of


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        # the default value itself: given, not missing
        (
            "А что будет, если поле помечено как обязательное и для него задано значение по умолчанию?",
            False,
        ),
        ("А если значение по умолчанию — это функция, её вызовут?", False),
        # used when nothing is given
        ("Какой предел используется по умолчанию, если пользователь его не задал?", True),
        ("Что выводится по умолчанию?", True),
        ("What limit is used by default?", True),
        ("And what if the default value is a function?", False),
    ],
)
def test_a_default_value_named_is_no_missing_value(question: str, missing: bool) -> None:
    assert ("missing" in facets_of(plan(question)).details) is missing


@pytest.mark.parametrize(
    "question",
    [
        'А по какому условию в строке появляется "from now" вместо "ago"?',
        "В каком случае кэш сбрасывается на диск?",
        "Under what condition does it print from now instead of ago?",
        "What condition makes a newly submitted task start immediately?",
        "In which cases is the header left out?",
    ],
)
def test_asking_for_the_condition_asks_a_detail(question: str) -> None:
    # "on what condition", «в каком случае»: the branch, as "what if" and «если» ask it
    assert "condition" in facets_of(plan(question)).details


CACHE_GET = """\
func (c *Cache) Get(key string) (Value, error) {
	entry, found := c.items[key]
	if !found {
		return nil, ErrNoValue
	}
	if entry.Expired() {
		c.remove(key)
		return nil, ErrExpired
	}
	return entry.value, nil
}"""


@pytest.mark.parametrize(
    "question",
    ["And what if the key has no entry in the cache?", "А если для ключа в кеше нет записи?"],
)
def test_the_assignment_above_a_condition_says_what_its_branch_tests(question: str) -> None:
    row = method_row("cache.Cache.Get", "cache.go", "go", CACHE_GET)
    span = answering_lines(row, facets_of(plan(question)))
    # `if !found {` under `entry, found := c.items[key]`, not the expired entry's branch that
    # names the key again
    assert span is not None and (span.start_line, span.end_line) == (3, 5)


MATCH = {
    "match.go": """
        package match

        // Match returns true if str matches pattern.
        func Match(str, pattern string) bool {
            if pattern == "*" {
                return true
            }
            return match(str, pattern)
        }

        func match(str, pat string) bool {
            for len(pat) > 0 {
                if pat[0] == '*' {
                    return matchTrimSuffix(str, pat[1:])
                }
                if len(str) == 0 || str[0] != pat[0] && pat[0] != '?' {
                    return false
                }
                str, pat = str[1:], pat[1:]
            }
            return len(str) == 0
        }

        // matchTrimSuffix compares the literal characters after a star with the end of str.
        func matchTrimSuffix(str, pat string) bool {
            for len(pat) > 0 && len(str) > 0 {
                if pat[len(pat)-1] == '*' || pat[len(pat)-1] == '?' {
                    return match(str, pat)
                }
                if str[len(str)-1] != pat[len(pat)-1] {
                    return false
                }
                str, pat = str[:len(str)-1], pat[:len(pat)-1]
            }
            return len(pat) == 0 || pat == "*"
        }

        // IsPattern returns true if the string is a pattern.
        func IsPattern(str string) bool {
            for i := 0; i < len(str); i++ {
                if str[i] == '*' || str[i] == '?' {
                    return true
                }
            }
            return false
        }
        """,
}


@pytest.mark.parametrize(
    "question",
    [
        "How can it tell whether a given string is a wildcard pattern at all rather than a plain literal?",
        "Как библиотека определяет, является ли строка шаблоном с подстановочными знаками, а не обычным текстом?",
    ],
)
def test_an_exported_go_predicate_answers_whether(tmp_path: Path, question: str) -> None:
    with indexed(tmp_path / "match", MATCH) as repo:
        answer = repo.ask(question).answer
    # Go's exported `IsPattern` is a predicate as `is_pattern` and `isPattern` are
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("match.go", 39), answer.text


LITE = """\
export function dequal(foo, bar) {
    var ctor, len;
    if (foo === bar) return true;
    if (foo && bar && (ctor = foo.constructor) === bar.constructor) {
        if (ctor === Date) return foo.getTime() === bar.getTime();
        if (!ctor || typeof foo === 'object') {
            len = 0;
            for (ctor in foo) {
                if (!(++len && dequal(foo[ctor], bar[ctor]))) return false;
            }
            return Object.keys(bar).length === len;
        }
    }
    return foo !== foo && bar !== bar;
}"""

FULL = """\
export function dequal(foo, bar) {
    var ctor, len, key;
    if (foo === bar) return true;
    if (foo && bar && (ctor = foo.constructor) === bar.constructor) {
        if (ctor === Map) {
            if (foo.size !== bar.size) return false;
            for (len of foo) {
                key = len[0];
                if (key && typeof key === 'object') {
                    key = find(bar, key);
                    if (!key) return false;
                }
                if (!dequal(len[1], bar.get(key))) return false;
            }
            return true;
        }
    }
    return foo !== foo && bar !== bar;
}"""


@pytest.mark.parametrize(
    "question",
    [
        "How does it compare two Maps whose keys are objects?",
        "Как сравниваются два Map, у которых ключи — объекты?",
    ],
)
def test_the_namesake_saying_more_of_the_question_leads(question: str) -> None:
    lite = code_hit("src/lite.dequal", "src/lite.js", LITE)
    full = code_hit("src/index.dequal", "src/index.js", FULL)
    groups = stem_groups(facets_of(plan(question)).concepts, set())
    # the build handling Maps, not the lighter one retrieval ranked first
    assert worded_twin([lite, full], groups, lambda hit: 0)[0] is full
    # ... unless the lead stands better (the platform asked)
    assert worded_twin([lite, full], groups, lambda hit: hit is full)[0] is lite


ADLER = {
    "src/lib.rs": """
        use std::io::{self, BufRead};

        /// Calculates the Adler-32 checksum of a `BufRead`'s contents.
        pub fn adler32<R: BufRead>(mut reader: R) -> io::Result<u32> {
            let mut h = Adler32::new();
            loop {
                let len = {
                    let buf = reader.fill_buf()?;
                    if buf.is_empty() {
                        return Ok(h.checksum());
                    }
                    h.write_slice(buf);
                    buf.len()
                };
                reader.consume(len);
            }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn bufread() {
                let data = [1u8, 2, 3];
                let mut buf = io::BufReader::new(&data[..]);
                assert_eq!(adler32(&mut buf).unwrap(), 0x000c0007);
            }
        }
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does it compute the checksum of everything a BufRead reader holds?",
            "What happens when the reader returns an empty buffer, so the data has run out?",
        ),
        (
            "Как считается контрольная сумма всего содержимого читателя (BufRead)?",
            "Что происходит, когда читатель возвращает пустой буфер, то есть данные закончились?",
        ),
    ],
)
def test_a_name_only_an_inline_test_carries_is_no_topic(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "adler", ADLER, first, question)
    # `BufRead` of the first question is no definition of the project (the unit test
    # `tests::bufread` is none): the answer's `adler32` stays the topic
    lead = answer.citations[0]
    assert (lead.path, lead.start_line) == ("src/lib.rs", 9), answer.text


JWT = {
    "jwt/validator.go": """
        package jwt

        // Validate checks the registered claims of a token.
        func (v *Validator) Validate(claims Claims) error {
            now := v.now()
            if err := v.verifyExpiresAt(claims, now); err != nil {
                return err
            }
            return v.verifyIssuer(claims)
        }

        // verifyExpiresAt reports an error if the token has expired.
        func (v *Validator) verifyExpiresAt(claims Claims, cmp time.Time) error {
            exp, err := claims.GetExpirationTime()
            if err != nil {
                return err
            }
            if exp == nil {
                return nil
            }
            // the leeway allows for clock skew between servers
            return errorIfFalse(cmp.Before(exp.Time.Add(+v.leeway)), ErrTokenExpired)
        }

        func (v *Validator) verifyIssuer(claims Claims) error {
            iss, err := claims.GetIssuer()
            if err != nil {
                return err
            }
            return errorIfFalse(iss == v.expectedIss, ErrTokenInvalidIssuer)
        }
        """,
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does it validate the registered claims of a token?",
            "And how is the leeway for clock skew between servers taken into account?",
        ),
        (
            "Как проверяются зарегистрированные claims токена?",
            "А как при этом учитывается leeway на clock skew между серверами?",
        ),
    ],
)
def test_a_how_question_going_on_with_the_conversation_leads_with_lines(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path / "jwt", JWT, first, question)
    # «А как …», "And how …" after an answer: the line of `verifyExpiresAt` adding the
    # leeway, not its card, though the answer before led with `Validate`
    lead = answer.citations[0]
    assert (lead.path, lead.start_line, lead.end_line) == ("jwt/validator.go", 22, 22), answer.text
