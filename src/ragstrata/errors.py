"""The one exception tree of ragstrata.

::

    RagstrataError                     root: anything ragstrata raises on purpose
    ├── UserError                      the caller asked for something wrong (CLI exit 2, HTTP 4xx)
    │   ├── InvalidQueryError          empty / whitespace-only question (also a ValueError)
    │   ├── InvalidStateError          malformed conversation_state / repo_context (ValueError)
    │   ├── ConfigError                bad settings file, env value or flag (ValueError)
    │   ├── RepositoryNotFoundError    the repository path does not exist or is not a folder
    │   ├── UnknownRepositoryError     no served repository has that name (HTTP 404)
    │   ├── RepositoryRequiredError    several repositories are served and none was named
    │   ├── IndexMissingError          no index yet at that path (run `ragstrata index`)
    │   ├── IndexMismatchError         index built by another schema / embedder (use --rebuild)
    │   └── IndexBusyError             an index run of that repository is under way (HTTP 409)
    └── SystemFailure                  something outside the caller's control failed (exit 3, HTTP 5xx)
        ├── ProviderError              an LLM / embedding provider failed (after retries)
        │   └── ProviderAuthError      401/403/404: bad key or unknown model
        ├── StoreError                 the index store failed (I/O, unreachable server)
        │   └── IndexCorruptError      the index file is damaged (fix: `ragstrata index --rebuild`)
        └── DecomposerError            an LLM decomposer's transport failed

Every message is one line that names the bad value and, where there is one, the valid set.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DecomposerError",
    "IndexBusyError",
    "IndexCorruptError",
    "IndexMismatchError",
    "IndexMissingError",
    "InvalidQueryError",
    "InvalidStateError",
    "ProviderAuthError",
    "ProviderError",
    "RagstrataError",
    "RepositoryNotFoundError",
    "RepositoryRequiredError",
    "StoreError",
    "SystemFailure",
    "UnknownRepositoryError",
    "UserError",
    "one_line",
]


def one_line(exc: BaseException | str) -> str:
    """The message of ``exc`` on one line (white space folded); the type name when empty."""
    text = " ".join(str(exc).split())
    return text or (type(exc).__name__ if isinstance(exc, BaseException) else "")


class RagstrataError(Exception):
    """Root of every error ragstrata raises on purpose."""

    exit_code: int = 2
    code: str = "error"


class UserError(RagstrataError):
    """The request was wrong; repeating it unchanged will fail again."""

    exit_code = 2
    code = "bad_request"


class InvalidQueryError(UserError, ValueError):
    """The question is empty or whitespace-only."""

    code = "invalid_query"


class InvalidStateError(UserError, ValueError):
    """A conversation_state or repo_context that is not of the documented shape."""

    code = "invalid_state"


class ConfigError(UserError, ValueError):
    """A settings file, environment variable or flag with a bad value."""

    code = "invalid_config"


class RepositoryNotFoundError(UserError):
    """The repository path does not exist or is not a directory."""

    code = "repo_not_found"


class UnknownRepositoryError(UserError):
    """No served repository has the name given (see ``ragstrata.app.registry``)."""

    code = "unknown_repo"


class RepositoryRequiredError(UserError):
    """Several repositories are served and the request named none of them."""

    code = "repo_required"


class IndexMissingError(UserError):
    """No index exists yet for the repository."""

    code = "index_missing"


class IndexMismatchError(UserError):
    """The index was built with another schema version or embedder."""

    code = "index_mismatch"


class IndexBusyError(UserError):
    """An index run of the repository is under way: a second one (or a read during a
    rebuild) must wait for it."""

    code = "index_busy"


class SystemFailure(RagstrataError):
    """Something outside the caller's control failed; retrying later may work."""

    exit_code = 3
    code = "system_failure"


class ProviderError(SystemFailure):
    """An LLM or embedding provider failed after retries."""

    code = "provider_error"


class ProviderAuthError(ProviderError):
    """The provider rejected the key, or does not know the model."""

    code = "provider_auth"


class StoreError(SystemFailure):
    """The index store failed."""

    code = "store_error"


class IndexCorruptError(StoreError):
    """The index is damaged (not a database, truncated, tables missing, unreadable rows);
    ``ragstrata index --rebuild`` builds a new one beside it and swaps it in."""

    code = "index_corrupt"


class DecomposerError(SystemFailure):
    """An LLM query decomposer could not reach its model."""

    code = "decomposer_error"
