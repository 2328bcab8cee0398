"""The repositories a server serves, by name: the one registry HTTP and MCP both ask.

It decides, for every interface alike:

- **names**: 1-64 letters, digits, ``.``, ``_``, ``-``, starting with a letter or digit
  (:data:`REPO_NAME`); a ``--repo`` value is ``NAME=PATH`` or ``PATH`` (named by its folder,
  :func:`parse_repo_spec`); a name given twice is an error;
- **which repository** a request means (:meth:`Registry.resolve`): the one named; when none is
  named, the only one served, else :class:`~ragstrata.errors.RepositoryRequiredError` listing
  the names (a router plan, which reads no index, may fall back to the first);
- **is there an index** (:meth:`Registry.reading` with ``indexed``), through the facade;
- **locking** between index runs and readers, per repository:

  ====================  ===========================================================
  index run             one at a time; a second one fails at once with
                        :class:`~ragstrata.errors.IndexBusyError` (``index_busy``), or
                        waits its turn when the caller asks to (``wait``)
  read (search, ask…)   runs beside an incremental index run (the stores read
                        consistent snapshots: SQLite WAL, PostgreSQL MVCC) and beside a
                        rebuild of the SQLite file (built beside it, swapped in at the
                        end); refused with ``index_busy`` while a rebuild in place
                        (PostgreSQL) has emptied the index
  first use             the facade's lazy store and embedder are opened by one thread,
                        once, before the first reads or index run of a repository go on
  ====================  ===========================================================

::

    registry = Registry(open_facades(["pay=../payments", "."], settings_for))
    with registry.reading("pay") as (name, rs):
        rs.search("charge")
    with registry.claim_index("pay", owner="job 42"):
        ...
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragstrata.errors import (
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    RepositoryRequiredError,
    UnknownRepositoryError,
    UserError,
)

if TYPE_CHECKING:
    from ragstrata.app.facade import Ragstrata
    from ragstrata.settings import Settings

__all__ = [
    "REPO_NAME",
    "IndexClaim",
    "Registry",
    "check_name",
    "open_facades",
    "parse_repo_spec",
]

REPO_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""A served repository's name (also the pattern of every ``repo`` field of the HTTP API)."""
_NAME_RE = re.compile(REPO_NAME)
_NAME_RULE = "1-64 letters, digits, '.', '_', '-', starting with a letter or digit"


def check_name(name: str) -> str:
    """``name`` when it is a valid repository name, else a ``ConfigError`` naming the rule."""
    if not _NAME_RE.match(name):
        raise ConfigError(f"invalid repository name {name!r}: use {_NAME_RULE}")
    return name


def parse_repo_spec(value: str) -> tuple[str, Path]:
    """A ``--repo`` value, ``NAME=PATH`` or ``PATH`` (named by its folder) -> ``(name, path)``.

    ``NAME=PATH`` is recognised only when NAME is a plain name and the whole value is not itself
    an existing path, so folders whose names contain ``=`` still work.
    """
    text = value.strip()
    if not text:
        raise ConfigError("empty --repo value; give PATH or NAME=PATH")
    name, sep, rest = text.partition("=")
    if sep and rest and _NAME_RE.match(name) and not Path(text).expanduser().exists():
        return name, Path(rest).expanduser()
    path = Path(text).expanduser()
    name = path.resolve().name
    if not _NAME_RE.match(name):
        raise UserError(
            f"cannot name repository {value!r} ({name!r}); give it a name as NAME=PATH "
            f"({_NAME_RULE})"
        )
    return name, path


def open_facades(
    specs: Sequence[str], settings_for: Callable[[Path | None], Settings]
) -> dict[str, Ragstrata]:
    """One facade per ``--repo`` value (``NAME=PATH`` or ``PATH``), by name, in the order given.

    ``settings_for(folder)`` builds each repository's settings (the CLI's edge settings).
    """
    from ragstrata.app.facade import Ragstrata

    facades: dict[str, Ragstrata] = {}
    for spec in specs:
        name, path = parse_repo_spec(spec)
        if name in facades:
            raise ConfigError(
                f"two repositories are named {name!r}; name them with --repo NAME=PATH"
            )
        facades[name] = Ragstrata(path, settings_for(path if path.is_dir() else None))
    return facades


@dataclass(eq=False)
class _Slot:
    """One served repository and its locking state (fields guarded by ``lock``)."""

    rs: Ragstrata
    lock: threading.Condition = field(default_factory=threading.Condition)  # notified on release
    first_use: threading.Lock = field(default_factory=threading.Lock)
    warmed: bool = False
    indexer: str | None = None  # who runs the index now
    rebuild: bool = False


class IndexClaim:
    """The right to index one repository; :meth:`release` (or leaving the ``with``) gives it up.

    May be released from another thread than the one that claimed it (an HTTP job thread)."""

    def __init__(self, slot: _Slot, name: str, owner: str) -> None:
        self._slot = slot
        self.name = name
        self.owner = owner
        self._released = False

    def release(self) -> None:
        """Give the repository back (safe to call twice)."""
        with self._slot.lock:
            if not self._released and self._slot.indexer == self.owner:
                self._slot.indexer = None
                self._slot.rebuild = False
                self._slot.lock.notify_all()
            self._released = True

    def __enter__(self) -> IndexClaim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Registry:
    """Named facades served by one process (HTTP or MCP); see the module docstring.

    ``repos``: a mapping name -> facade, or facades named by their folder. ``index_hint``: what
    the caller should do when a repository has no index yet (it ends that error message).
    """

    def __init__(
        self,
        repos: Mapping[str, Ragstrata] | Iterable[Ragstrata],
        *,
        index_hint: str = "run `ragstrata index` first",
    ) -> None:
        items = (
            list(repos.items())
            if isinstance(repos, Mapping)
            else [(rs.repo.name, rs) for rs in repos]
        )
        if not items:
            raise ConfigError("serve at least one repository (--repo PATH)")
        self._slots: dict[str, _Slot] = {}
        for name, rs in items:
            if check_name(name) in self._slots:
                raise ConfigError(
                    f"two repositories are named {name!r}; name them with --repo NAME=PATH"
                )
            self._slots[name] = _Slot(rs)
        self.index_hint = index_hint
        from ragstrata.indexer.watch import WatchStates

        self.watchers = WatchStates()
        """The background watchers' states (``serve --watch``, ``mcp --watch``)."""

    # ------------------------------------------------------------------ names
    @property
    def names(self) -> tuple[str, ...]:
        """The served names in the order given (every listing and error message uses it; the
        web page opens the first)."""
        return tuple(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, name: object) -> bool:
        return name in self._slots

    def resolve(self, name: str | None, *, first_when_omitted: bool = False) -> str:
        """The served name ``name`` means. Omitted (``None`` or blank): the only repository;
        with several, the first one given when ``first_when_omitted`` (a router plan reads no
        index), else ``RepositoryRequiredError``. Unknown: ``UnknownRepositoryError``."""
        listed = ", ".join(self.names)
        if name is None or not name.strip():
            if len(self._slots) == 1 or first_when_omitted:
                return next(iter(self._slots))
            raise RepositoryRequiredError(
                f"several repositories are served; name one with repo, one of: {listed}"
            )
        if name not in self._slots:
            raise UnknownRepositoryError(f"unknown repository {name!r}; served: {listed}")
        return name

    def get(self, name: str) -> Ragstrata:
        """The facade served as ``name`` (``UnknownRepositoryError`` when none)."""
        return self._slots[self.resolve(name)].rs

    # ------------------------------------------------------------------ state
    def has_index(self, name: str) -> bool:
        """True when the repository ``name`` has an index to read (``Ragstrata.has_index``)."""
        return self.get(name).has_index()

    def indexer(self, name: str) -> str | None:
        """Who is indexing ``name`` now (the owner given to :meth:`claim_index`), if anyone."""
        slot = self._slots[self.resolve(name)]
        with slot.lock:
            return slot.indexer

    # ------------------------------------------------------------------ locking
    @contextmanager
    def reading(
        self,
        name: str | None,
        *,
        indexed: bool = True,
        during_rebuild: bool = False,
        first_when_omitted: bool = False,
    ) -> Iterator[tuple[str, Ragstrata]]:
        """``(name, facade)`` for one read. ``indexed``: the repository must have an index
        (``IndexMissingError``) that no rebuild is replacing now (``IndexBusyError``, unless
        ``during_rebuild``: a status report may watch the rebuild)."""
        from ragstrata.store.protocols import Rebuildable

        key = self.resolve(name, first_when_omitted=first_when_omitted)
        slot = self._slots[key]
        self._open_once(slot)
        # A store that rebuilds beside itself (the SQLite file) keeps answering from the old
        # index until the swap; only a rebuild in place (PostgreSQL) empties it meanwhile.
        if indexed and not during_rebuild and not isinstance(slot.rs.store, Rebuildable):
            with slot.lock:
                if slot.indexer is not None and slot.rebuild:
                    raise IndexBusyError(
                        f"repository {key!r} is being rebuilt ({slot.indexer}); "
                        "try again when it finishes"
                    )
        if indexed and not self.has_index(key):
            raise IndexMissingError(f"repository {key!r} has no index yet; {self.index_hint}")
        yield key, slot.rs

    @staticmethod
    def _open_once(slot: _Slot) -> None:
        """Open the facade's lazy store and embedder in one thread, once: threads that use a
        repository for the first time at once would otherwise each open (and leak) their own."""
        if slot.warmed:
            return
        with slot.first_use:
            if not slot.warmed:
                _ = (slot.rs.store, slot.rs.embedder)  # properties: the first access opens
                slot.warmed = True

    def claim_index(
        self, name: str | None, *, owner: str, rebuild: bool = False, wait: bool = False
    ) -> IndexClaim:
        """The right to index ``name``, held by ``owner`` (named in the busy message). When an
        index run of it is under way: ``IndexBusyError`` at once, or with ``wait`` (a caller
        that blocks anyway, like an MCP tool call) the claim after that run ends."""
        key = self.resolve(name)
        slot = self._slots[key]
        with slot.lock:
            while wait and slot.indexer is not None:
                slot.lock.wait()
            if slot.indexer is not None:
                raise IndexBusyError(
                    f"repository {key!r} is already being indexed ({slot.indexer}); "
                    "wait for it to finish"
                )
            slot.indexer, slot.rebuild = owner, rebuild
        claim = IndexClaim(slot, key, owner)
        try:
            self._open_once(slot)
        except BaseException:
            claim.release()
            raise
        return claim

    def close(self) -> None:
        """Close every facade's store."""
        for slot in self._slots.values():
            slot.rs.close()
