"""The repositories one MCP server serves, addressed by name.

Each name maps to one :class:`~ragstrata.facade.Ragstrata`; calls into a facade are serialized
by a per-repository lock because tool calls may run on several worker threads at once and an
index run must not interleave with a search of the same store.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from ragstrata.errors import ConfigError, IndexMissingError, UserError
from ragstrata.facade import Ragstrata

__all__ = ["RepoSet"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class RepoSet:
    """Named facades; with one repository the name may be omitted."""

    facades: Mapping[str, Ragstrata]
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.facades:
            raise ConfigError("the MCP server needs at least one repository (--repo PATH)")
        for name in self.facades:
            if not _NAME.match(name):
                raise ConfigError(
                    f"invalid repository name {name!r}; use letters, digits, '_', '.', '-'"
                )
            self._locks[name] = threading.Lock()

    @property
    def names(self) -> tuple[str, ...]:
        """The served repository names, in the order given."""
        return tuple(self.facades)

    def resolve(self, repo: str | None) -> str:
        """The name to use for ``repo`` (``None`` is allowed only with one repository)."""
        if repo is None or not repo.strip():
            if len(self.facades) == 1:
                return next(iter(self.facades))
            raise UserError(
                f"several repositories are served; pass repo, one of: {', '.join(self.names)}"
            )
        if repo not in self.facades:
            raise UserError(f"unknown repo {repo!r}; served: {', '.join(self.names)}")
        return repo

    @contextmanager
    def use(self, repo: str | None, *, indexed: bool = True) -> Iterator[tuple[str, Ragstrata]]:
        """Hold ``repo``'s lock and yield ``(name, facade)``; ``indexed`` requires an index."""
        name = self.resolve(repo)
        rs = self.facades[name]
        with self._locks[name]:
            if indexed and not rs.has_index():
                raise IndexMissingError(
                    f"repository {name!r} has no index yet at {rs.index_dir}; "
                    "call the reindex tool (or run `ragstrata index`) first"
                )
            yield name, rs

    def close(self) -> None:
        """Close every facade's store."""
        for rs in self.facades.values():
            rs.close()
