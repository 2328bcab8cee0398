"""The HTTP layer every remote provider (chat and embeddings) shares, over ``httpx`` (sync).

One ``HttpTransport`` is one endpoint + model. ``post_json`` sends a JSON body and returns the
decoded JSON object, and owns everything that is not the wire format:

- a timeout per request (``timeout_s``: connect, read, write and pool each);
- retries of 408 / 409 / 429 / 5xx, connection errors, dropped connections and timeouts, with
  exponential backoff and full jitter (``uniform(0, min(max_delay, base * 2**attempt))``), or
  the server's ``Retry-After`` / ``retry-after-ms`` when it sends one (capped);
- a client-side rate limit (a token bucket of ``requests_per_s``) so a big index run does not
  trip the provider's own limit;
- one-line errors that name the provider and model: 401/403 -> ``ProviderAuthError`` (key
  rejected or missing), 404 -> ``ProviderAuthError`` (unknown model, or a wrong path/base_url),
  other 4xx -> ``ProviderError`` with the server's message, malformed JSON -> ``ProviderError``,
  and after the last retry ``ProviderError`` with the last status or failure.

The API key is sent as ``Authorization: Bearer``; it never appears in an exception, a log line
or a repr (server messages are masked before they are quoted). ``sleep``, ``clock`` and
``rand`` are injectable so tests exercise backoff without waiting.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import httpx
from pydantic import SecretStr

from ragstrata.errors import ConfigError, ProviderAuthError, ProviderError

if TYPE_CHECKING:
    from ragstrata.settings import EmbedderSettings, LLMSettings

__all__ = [
    "HttpResponse",
    "HttpTransport",
    "RateLimiter",
    "RetryPolicy",
    "credential_forms",
    "mask_secret",
    "parse_retry_after",
    "redact_url",
    "scrub",
]

log = logging.getLogger(__name__)

_RETRY_STATUSES = frozenset({408, 409, 429})
_MAX_QUOTE = 300  # characters of a server message quoted in an error
_KEYLIKE = re.compile(r"(?i)\b(sk-|bearer\s+)[A-Za-z0-9_\-*.]{4,}")


_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<info>[^@/?#\s]*)@")
_SECRET_QUERY = re.compile(
    r"(?i)(?P<name>[?&](?:api[_-]?key|key|token|access[_-]?token|password|secret)=)[^&#\s]*"
)


def redact_url(text: str) -> str:
    """``text`` with credentials in URLs hidden: ``user:key@`` -> ``user:***@``, a lone
    ``key@`` -> ``***@``, and ``?key=...`` / ``token=`` / ``password=`` query values."""

    def userinfo(m: re.Match[str]) -> str:
        user, sep, _ = m.group("info").partition(":")
        return f"{m.group('scheme')}{user}:***@" if sep else f"{m.group('scheme')}***@"

    return _SECRET_QUERY.sub(r"\g<name>***", _USERINFO.sub(userinfo, text))


def mask_secret(text: str, secret: str | None) -> str:
    """``text`` with ``secret``, URL credentials (:func:`redact_url`) and anything that looks
    like a bearer/``sk-`` key replaced."""
    if secret:
        text = text.replace(secret, "***")
    return _KEYLIKE.sub(lambda m: m.group(1) + "***", redact_url(text))


def credential_forms(key: str | None, base_url: str) -> tuple[str, ...]:
    """Every form in which a provider could echo the credentials it was sent: the API key, the
    ``user:password`` of ``base_url``, and the base64 of the key, of ``user:password`` and of
    ``user:key`` (a Basic ``Authorization`` header) with and without padding; longest first,
    forms shorter than 4 characters left out."""
    forms: set[str] = set()
    pairs: list[str] = []
    if key:
        forms.add(key)
        pairs.append(key)
    try:
        parts = urlsplit(base_url)
        user, password = unquote(parts.username or ""), unquote(parts.password or "")
    except ValueError:
        user = password = ""
    if password:
        forms |= {password, f"{user}:{password}"}
        pairs.append(f"{user}:{password}")
    if key and user:
        pairs.append(f"{user}:{key}")
    for pair in pairs:
        raw = pair.encode("utf-8")
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            text = encoded.decode("ascii")
            forms |= {text, text.rstrip("=")}
    return tuple(sorted((f for f in forms if len(f) >= 4), key=len, reverse=True))


def scrub(text: str, forms: tuple[str, ...]) -> str:
    """``text`` with every credential form (:func:`credential_forms`) replaced by ``***``,
    then URL credentials and key-like tokens (:func:`mask_secret`)."""
    for form in forms:
        if form in text:
            text = text.replace(form, "***")
    return mask_secret(text, None)


def _scrub_json(value: Any, forms: tuple[str, ...]) -> Any:
    """A decoded JSON reply with the credential forms removed from every string in it."""
    if isinstance(value, str):
        return scrub(value, forms) if any(f in value for f in forms) else value
    if isinstance(value, list):
        return [_scrub_json(v, forms) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_json(v, forms) for k, v in value.items()}
    return value


def parse_retry_after(value: str | None, now: float, cap: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date), capped.

    ``now`` is the wall-clock time (``time.time()``) an HTTP date is measured against. Returns
    ``None`` when the value is missing or unreadable.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - now
        except (TypeError, ValueError, IndexError):
            return None
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), cap)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to retry; ``max_retries`` retries after the first attempt."""

    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    max_retry_after_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.base_delay_s < 0 or self.max_delay_s < 0 or self.max_retry_after_s < 0:
            raise ConfigError("retry delays must be >= 0")

    def backoff(self, attempt: int, rand: Callable[[], float]) -> float:
        """Full-jitter delay before retry number ``attempt`` (0-based)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        return ceiling * rand()


class RateLimiter:
    """A thread-safe token bucket: at most ``rate`` requests per second, bursts of ``burst``."""

    def __init__(
        self,
        rate: float,
        burst: int = 1,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0:
            raise ConfigError(f"requests_per_s must be > 0, got {rate}")
        if burst < 1:
            raise ConfigError(f"rate-limit burst must be >= 1, got {burst}")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Take one token, sleeping until one is available; returns the seconds waited."""
        with self._lock:  # held while sleeping: callers queue in order
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            wait = 0.0
            if self._tokens < 1.0:
                wait = (1.0 - self._tokens) / self.rate
                self._sleep(wait)
                now = self._clock()
                self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
                self._last = now
                self._tokens = max(self._tokens, 1.0)  # a fake clock may not advance
            self._tokens -= 1.0
            return wait


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A decoded JSON reply, with how long the successful request took and how many tries."""

    data: dict[str, Any]
    duration_api_s: float
    attempts: int


class _Retryable(Exception):
    """One failed attempt that may succeed on retry."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class HttpTransport:
    """JSON over HTTP to one provider endpoint for one model (see the module docstring).

    Cheap to construct: the ``httpx.Client`` is created on the first request. ``client`` may be
    passed in (tests, custom TLS); it is then not closed by ``close()``.
    """

    def __init__(
        self,
        provider: str,
        base_url: str,
        model: str,
        *,
        api_key: SecretStr | str | None = None,
        api_key_env: str | None = None,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        requests_per_s: float | None = None,
        headers: Mapping[str, str] | None = None,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rand: Callable[[], float] = random.random,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"{provider} base_url must start with http:// or https://, "
                f"got {redact_url(base_url)!r}"
            )
        if timeout_s <= 0:
            raise ConfigError(f"{provider} timeout_s must be > 0, got {timeout_s}")
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.shown_url = redact_url(self.base_url)  # for messages and logs: no credentials
        self.model = model
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._key = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        self._forms = credential_forms(self._key, self.base_url)  # what a reply must not echo
        self._key_env = api_key_env
        self._extra_headers = dict(headers or {})
        self._client = client
        self._own_client = client is None
        self._sleep = sleep
        self._clock = clock
        self._rand = rand
        self._wall = wall_clock
        self._limiter = (
            RateLimiter(requests_per_s, clock=clock, sleep=sleep) if requests_per_s else None
        )
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        key = "***" if self._key else None
        return (
            f"HttpTransport(provider={self.provider!r}, base_url={self.shown_url!r}, "
            f"model={self.model!r}, api_key={key!r})"
        )

    @property
    def has_key(self) -> bool:
        """Whether an API key is configured (the key itself is never exposed)."""
        return bool(self._key)

    def close(self) -> None:
        """Close the HTTP client if this transport created it."""
        with self._lock:
            if self._client is not None and self._own_client:
                self._client.close()
                self._client = None

    def post_json(self, path: str, body: Mapping[str, Any]) -> HttpResponse:
        """POST ``body`` as JSON to ``base_url + path``; the decoded JSON object of the reply.

        Raises ``ProviderAuthError`` (401/403/404), ``ProviderError`` (other 4xx, malformed
        JSON, or still failing after ``retry.max_retries`` retries).
        """
        url = self.base_url + path
        shown = self.shown_url + path  # what messages and logs may print
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            if self._limiter is not None:
                self._limiter.acquire()
            started = self._clock()
            try:
                response = self._send(url, payload)
                data = self._accept(shown, response)
                return HttpResponse(data, self._clock() - started, attempt + 1)
            except _Retryable as failure:
                if attempt >= self.retry.max_retries:
                    raise ProviderError(
                        f"{self.provider}: POST {shown} for model {self.model!r} failed after "
                        f"{attempt + 1} attempt(s): {failure.reason}"
                    ) from None
                if failure.retry_after is not None:
                    delay = failure.retry_after
                else:
                    delay = self.retry.backoff(attempt, self._rand)
                log.warning(
                    "%s: %s (model %s); retry %d/%d in %.2fs",
                    self.provider,
                    failure.reason,
                    self.model,
                    attempt + 1,
                    self.retry.max_retries,
                    delay,
                )
                self._sleep(delay)
                attempt += 1

    # -- one attempt -----------------------------------------------------------------------

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout_s))
            return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        headers.update(self._extra_headers)
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _send(self, url: str, payload: bytes) -> httpx.Response:
        try:
            return self._http().post(url, content=payload, headers=self._headers())
        except httpx.TimeoutException:
            raise _Retryable(f"timed out after {self.timeout_s:g}s") from None
        except httpx.TransportError as exc:
            kind = type(exc).__name__
            detail = scrub(str(exc), self._forms)[:_MAX_QUOTE]
            raise _Retryable(f"connection failed ({kind}: {detail})") from None

    def _accept(self, url: str, response: httpx.Response) -> dict[str, Any]:
        status = response.status_code
        if status < 300:
            return self._decode(url, response)
        message = self._server_message(response)
        if status in (401, 403):
            raise ProviderAuthError(self._auth_message(status, message))
        if status == 404:
            raise ProviderAuthError(self._not_found_message(url, message))
        if status in _RETRY_STATUSES or status >= 500:
            retry_after = self._retry_after(response)
            raise _Retryable(f"last status {status}{_quote(message)}", retry_after)
        raise ProviderError(
            f"{self.provider}: POST {url} for model {self.model!r} was refused with "
            f"status {status}{_quote(message)}"
        )

    def _decode(self, url: str, response: httpx.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ProviderError(
                f"{self.provider}: malformed JSON from {url} for model {self.model!r}: {exc}"
            ) from None
        if not isinstance(data, dict):
            raise ProviderError(
                f"{self.provider}: expected a JSON object from {url} for model "
                f"{self.model!r}, got {type(data).__name__}"
            )
        # A model (or a proxy) may echo the key it was sent: never let it reach an answer.
        return _scrub_json(data, self._forms) if self._forms else data

    def _server_message(self, response: httpx.Response) -> str:
        """The provider's error text: OpenAI ``{"error": {"message"}}``, Ollama ``{"error"}``."""
        text = response.text
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            err = data.get("error", data.get("message"))
            if isinstance(err, dict):
                err = err.get("message", err)
            if err is not None:
                text = str(err)
        return scrub(" ".join(text.split()), self._forms)[:_MAX_QUOTE]

    def _auth_message(self, status: int, message: str) -> str:
        where = f"for model {self.model!r} at {self.shown_url}"
        if not self._key:
            hint = f"set {self._key_env}" if self._key_env else "configure an API key"
            return f"{self.provider}: no API key was sent and the server refused ({status}) {where}; {hint}"
        verb = "rejected" if status == 401 else "not allowed"
        return f"{self.provider}: the API key was {verb} ({status}) {where}{_quote(message)}"

    def _not_found_message(self, url: str, message: str) -> str:
        if "model" in message.lower():
            return (
                f"{self.provider}: unknown model {self.model!r} at {self.shown_url} "
                f"(404){_quote(message)}"
            )
        return (
            f"{self.provider}: POST {url} returned 404 (unknown model {self.model!r} or wrong "
            f"path: check base_url){_quote(message)}"
        )

    def _retry_after(self, response: httpx.Response) -> float | None:
        cap = self.retry.max_retry_after_s
        millis = response.headers.get("retry-after-ms")
        if millis:
            try:
                return min(max(float(millis) / 1000.0, 0.0), cap)
            except ValueError:
                pass
        return parse_retry_after(response.headers.get("retry-after"), self._wall(), cap)


def _quote(message: str) -> str:
    return f": {message}" if message else ""


_EXAMPLE_URL = {"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}


def require(section: str, provider: str, name: str, value: str | None) -> str:
    """``value``, or a ``ConfigError`` naming the setting and its environment variable."""
    if value:
        return value
    example = f", e.g. {_EXAMPLE_URL[provider]}" if name == "base_url" else ""
    raise ConfigError(
        f"{section}.{name} is not set for provider {provider!r}: set {name} in the [{section}] "
        f"section of your config file (~/.config/ragstrata/config.toml) or "
        f"RAGSTRATA_{section.upper()}_{name.upper()}{example}"
    )


def http_transport(
    settings: LLMSettings | EmbedderSettings,
    base_url: str,
    model: str,
    *,
    requests_per_s: float | None,
) -> HttpTransport:
    """The HTTP transport of a chat runner or remote embedder configured by ``settings``."""
    return HttpTransport(
        settings.provider,
        base_url,
        model,
        api_key=settings.api_key,
        api_key_env=settings.api_key_env,
        timeout_s=settings.timeout_s,
        retry=RetryPolicy(max_retries=settings.max_retries),
        requests_per_s=requests_per_s,
    )
