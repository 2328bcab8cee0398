"""Detail follow-ups from the seventeenth round's blind batch.

A follow-up naming a type ("what if the cgroup's period is zero?") is answered by the lines of
the type's own methods (`Cgroup::cpu_quota`'s `if period_us == 0`), not by the type's card:
a struct holds no line that answers.

"And if not a single core is found, what then?", «если не нашлось ни одного ядра» ask for
a missing value as "none" does: the `if count == 0` branch answers, not the early return on an
unreadable file.

«А если значение по умолчанию не передано?» after an answer asks a detail of its topic (the
`if s is None:` branch), not which setting holds the default: the settings card does not take
the lead of a follow-up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from answer_fixture import follow_up

CGROUP_FILES = {
    "Cargo.toml": '[package]\nname = "cpus"\nversion = "0.1.0"\n',
    "src/lib.rs": """\
pub fn get() -> usize {
    match cgroups_cpus() {
        Some(n) => n,
        None => logical_cpus(),
    }
}

fn logical_cpus() -> usize {
    let mut count = 0;
    for line in std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default().lines() {
        if line.starts_with("processor") {
            count += 1;
        }
    }
    count
}

fn cgroups_cpus() -> Option<usize> {
    let group = Cgroup::new(std::path::PathBuf::from("/sys/fs/cgroup/cpu"));
    group.cpu_quota()
}
""",
    "src/cgroup.rs": """\
pub struct Cgroup {
    base: std::path::PathBuf,
}

impl Cgroup {
    pub fn new(base: std::path::PathBuf) -> Cgroup {
        Cgroup { base }
    }

    pub fn cpu_quota(&self) -> Option<usize> {
        let quota_us = self.quota_us()?;
        let period_us = self.period_us()?;
        if period_us == 0 {
            return None;
        }
        let quotient = quota_us / period_us;
        let remainder = quota_us % period_us;
        if remainder == 0 { Some(quotient as usize) } else { Some(quotient as usize + 1) }
    }

    fn quota_us(&self) -> Option<u64> {
        self.param("cpu.cfs_quota_us")
    }

    fn period_us(&self) -> Option<u64> {
        self.param("cpu.cfs_period_us")
    }

    fn param(&self, name: &str) -> Option<u64> {
        std::fs::read_to_string(self.base.join(name)).ok()?.trim().parse().ok()
    }
}
""",
}


@pytest.mark.parametrize(
    ("first", "question"),
    [
        (
            "How does it count the CPUs it may use?",
            "And what happens if the `Cgroup` period is zero?",
        ),
        (
            "Как считается число доступных процессоров?",
            "А что произойдёт, если период в настройках cgroup окажется равен нулю?",
        ),
    ],
)
def test_a_follow_up_naming_a_type_is_answered_by_its_methods_lines(
    tmp_path: Path, first: str, question: str
) -> None:
    answer = follow_up(tmp_path, CGROUP_FILES, first, question)
    cited = answer.citations[0]
    # the `if period_us == 0` of `Cgroup::cpu_quota`, not the struct's card
    assert cited.path == "src/cgroup.rs", answer.lead
    assert cited.start_line >= 12 and cited.end_line <= 15, answer.lead


CORES_FILES = {
    "Cargo.toml": '[package]\nname = "cpus"\nversion = "0.1.0"\n',
    "src/cores.rs": """\
pub fn physical_cores() -> usize {
    let text = match std::fs::read_to_string("/proc/cpuinfo") {
        Ok(text) => text,
        Err(_) => return logical_cores(),
    };
    let mut count = 0;
    for line in text.lines() {
        if line.starts_with("cpu cores") {
            count += 1;
        }
    }
    if count == 0 {
        logical_cores()
    } else {
        count
    }
}

pub fn logical_cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}
""",
}


@pytest.mark.parametrize(
    "question",
    [
        "And if not a single core is found in the processor description, what then?",
        "А что он вернёт, если в описании процессоров не нашлось ни одного ядра?",
    ],
)
def test_none_found_asks_for_the_branch_of_an_empty_count(tmp_path: Path, question: str) -> None:
    answer = follow_up(tmp_path, CORES_FILES, "How does it count the physical cores?", question)
    cited = answer.citations[0]
    assert cited.path == "src/cores.rs", answer.lead
    assert cited.start_line >= 12 and cited.end_line <= 16, answer.lead


ENV_FILES = {
    "pyproject.toml": '[project]\nname = "dburl"\nversion = "0.1.0"\n',
    "dburl/__init__.py": '''\
import logging
import os

DEFAULT_ENV = "DATABASE_URL"
logger = logging.getLogger(__name__)


def config(env=DEFAULT_ENV, default=None, conn_max_age=0):
    """Returns configured DATABASE dictionary from DATABASE_URL."""
    s = os.environ.get(env, default)
    if s is None:
        logger.warning(
            "No %s environment variable set, and so no databases setup", env
        )
    if s:
        return parse(s, conn_max_age=conn_max_age)
    return {}


def parse(url, conn_max_age=0):
    """Parses a database URL into a settings dictionary."""
    scheme, _, rest = url.partition("://")
    return {"ENGINE": scheme, "NAME": rest, "CONN_MAX_AGE": conn_max_age}
''',
}


@pytest.mark.parametrize(
    "question",
    [
        "And if that environment variable is not set and no default value is passed either,"
        " is there an exception?",
        "А если такой переменной окружения вообще нет и значение по умолчанию не передано —"
        " будет исключение?",
    ],
)
def test_a_follow_up_about_a_default_not_given_reads_the_topic_not_the_setting(
    tmp_path: Path, question: str
) -> None:
    answer = follow_up(
        tmp_path,
        ENV_FILES,
        "How does it read the connection string from the environment variable?",
        question,
    )
    cited = answer.citations[0]
    # the `if s is None:` branch of `config`, not the card of the DEFAULT_ENV setting
    assert cited.path == "dburl/__init__.py", answer.lead
    assert cited.start_line >= 11 and cited.end_line <= 18, answer.lead
