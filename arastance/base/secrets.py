"""Secret values that no message may show: a registry and the log-record redaction.

The settings register the API keys they load and the passwords of the URLs they hold (and
:mod:`tasks.search.keys` the keys read from Prefect Secret blocks); from then on every log record's
message is redacted, whichever handler formats it (stderr, a log file, Prefect's API log handler,
which uses ``getMessage``), and :func:`redact_secrets` cleans any other text. It lives in the base
layer so that the settings, which load the keys, can register them without importing the logging setup.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

REDACTED = "****"
_secrets: set[str] = set()

#: ``scheme://user:password@`` anywhere in a text; the password runs to the netloc's last ``@``, as
#: URL parsers read it, and stops at a quote so that a quoted URL in a message ends where its quote does.
_URL_PASSWORD = re.compile(r"(?P<user>[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:'\"]*):(?P<password>[^/?#\s'\"]*)@")


def register_secrets(values: Iterable[str]) -> None:
    """Values that no log line may show (API keys from the settings); every record is redacted.

    The settings call this when they load, so a key reaches no handler: not stderr, not a
    log file, not Prefect's API log handler (which formats records with ``getMessage``).
    """
    _secrets.update(v for v in values if v and len(v) >= 4)
    # installed even with no value to register: every record's URL passwords are hidden too (a local
    # SearXNG behind basic authentication, with no API key, was the one secret, and reached every handler)
    if not isinstance(logging.getLogRecordFactory(), _RedactingFactory):
        logging.setLogRecordFactory(_RedactingFactory(logging.getLogRecordFactory()))


def redact_secrets(text: str) -> str:
    """``text`` with every registered secret, and the password of every URL in it, replaced by ``****``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return hide_url_passwords(text)


def hide_url_passwords(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``****`` (``https://user:****@host/``).

    A URL setting (a SearXNG instance, an archive or a mirror behind basic authentication) carries
    its password in the URL itself, unlike a key, which has a setting of its own that is masked whole.
    """
    return _URL_PASSWORD.sub(lambda m: f"{m['user']}:{REDACTED}@", text)


def split_url_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its ``user:password@``, and that user and password percent-decoded (None when it
    carries none).

    A configured URL's credentials are the operator's, not part of any address: a crawl that requested
    ``http://user:password@host/`` failed (Scrapy reads the userinfo as the host), stored the URL as the
    page's, and named it in its log; the crawlers send them as basic authentication instead.
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # urlsplit's message quotes the netloc, password and all (one NFKC would change)
        raise ValueError(f"not a valid URL: {REDACTED}@{url.rpartition('@')[2]}" if "@" in url
                         else f"not a valid URL: {url}") from None
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, None
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


def basic_auth_header(user: str, password: str) -> bytes:
    """The ``Authorization`` value of basic authentication as ``user`` with ``password``: their UTF-8 bytes
    (RFC 7617's ``charset="UTF-8"``, what curl and browsers send for a URL's percent-encoded credentials).

    Scrapy's own helper encoded them as latin-1: a password outside it (Arabic) failed the crawl with a
    UnicodeEncodeError whose text, the log's and the error's, held ``user:password``; one inside it
    (``pässwörd``) was sent as bytes that a server reading UTF-8 turned away (401). ``surrogatepass`` lets
    no text fail to encode, so that no exception here ever carries the credentials.
    """
    return b"Basic " + base64.b64encode(f"{user}:{password}".encode("utf-8", "surrogatepass"))


def url_passwords(text: str) -> list[str]:
    """The passwords of the URLs in ``text`` that no word could be, as written and percent-decoded (for
    :func:`register_secrets`, which replaces them wherever they stand). A password of letters only
    (``admin:searxng@``, usual for a local instance behind basic authentication) is left to
    :func:`hide_url_passwords`: registered, it blanked the word out of every log line (``backend=****``)."""
    found = [form for m in _URL_PASSWORD.finditer(text) for form in {m["password"], unquote(m["password"])}]
    return [password for password in found if not password.isalpha()]


class _RedactedRecord(logging.LogRecord):
    def getMessage(self) -> str:  # noqa: N802 - the logging API's name
        return redact_secrets(super().getMessage())


class _RedactingFactory:
    """Wraps the current record factory so that every record's message is redacted."""

    def __init__(self, inner: Callable[..., logging.LogRecord]) -> None:
        self.inner = inner

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        record.__class__ = _RedactedRecord if type(record) is logging.LogRecord else record.__class__
        return record


#: The environment variable in which :func:`tasks.scrapy_launcher.run_scrapy` hands its child the URL
#: arguments that hold ``user:password@``, as given (a JSON object, argument name -> URL): their command
#: line has them without it.
URL_ARGUMENTS_ENV = "ARASTANCE_URL_ARGUMENTS"


def url_argument(name: str, value: str) -> str:
    """The URL spider argument ``name`` (``-a name=value``) as its launcher was given it, credentials and all.

    Every user of the machine reads a process's command line (``ps``, ``/proc/<pid>/cmdline``), so the
    launcher puts a URL there without its ``user:password@`` and the whole URL in :data:`URL_ARGUMENTS_ENV`,
    which only the process's own user reads. That URL is taken only where the command line holds it without
    its credentials: a URL typed by hand (``scrapy crawl norumors -a archive_url=http://user:pw@host/``) is
    used as typed, and one inherited for another argument or URL is never sent anywhere.
    """
    try:
        given = json.loads(os.environ.get(URL_ARGUMENTS_ENV) or "{}").get(name)
    except (ValueError, AttributeError):
        raise ValueError(f"environment variable {URL_ARGUMENTS_ENV} must be a JSON object of URL spider arguments "
                         "(set by the crawl launcher); unset it to crawl with the arguments as given") from None
    return given if isinstance(given, str) and split_url_credentials(given)[0] == value else value
