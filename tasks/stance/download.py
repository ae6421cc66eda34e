"""Fetching the official AraStance release and proving it is the file the authors published.

The files are verified by their git blob SHA-1 (what GitHub shows for a file), so a truncated
download, a changed upstream file or a proxy error page is refused instead of trained on.
"""

from __future__ import annotations

import hashlib
import http.client
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from arastance.logging import get_logger

log = get_logger(__name__)

# git blob SHA-1 of each official file (github.com/Tariq60/arastance, data/).
ARASTANCE_FILES: dict[str, str] = {
    "train.jsonl": "1f69d4d56f8bfef95b1b76fe1c11bed935b73423",
    "dev.jsonl": "012dbd9adf79d1545920672851ed812007c9093f",
    "test.jsonl": "8ab70b8e2b9595b4d4d3867b4d1b8c0424acbd48",
}


class DownloadError(RuntimeError):
    """A file that could not be fetched or did not match its published checksum."""


def git_blob_sha1(data: bytes) -> str:
    """The id git gives a file's content: sha1(b"blob <size>\\0" + data)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def download_arastance(
    dest: Path, base_url: str, *, files: Mapping[str, str] = ARASTANCE_FILES, timeout: float = 60.0
) -> list[Path]:
    """Fetch each file of ``files`` (name -> blob SHA-1) from ``base_url`` into ``dest``.

    A file already present with the right checksum is kept; a wrong one is never written (the
    download goes to a temporary name and is renamed only after verification).
    """
    dest.mkdir(parents=True, exist_ok=True)
    base = base_url if base_url.endswith("/") else base_url + "/"
    written = []
    for name, expected in files.items():
        target = dest / name
        if target.is_file() and git_blob_sha1(target.read_bytes()) == expected:
            log.info("already downloaded and verified", extra={"file": str(target)})
            written.append(target)
            continue
        url = base + name
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (fixed https URL)
                data = response.read()
        except urllib.error.HTTPError as exc:
            raise DownloadError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DownloadError(
                f"cannot reach {url} ({reason}); downloading AraStance needs internet access. "
                f"Offline, copy train.jsonl, dev.jsonl and test.jsonl into {dest} yourself."
            ) from None
        except http.client.HTTPException as exc:  # no OSError: a body cut short (IncompleteRead), an answer not HTTP
            raise DownloadError(f"{url}: broken answer from the server ({exc!r}); file not saved") from None
        actual = git_blob_sha1(data)
        if actual != expected:
            raise DownloadError(
                f"{url}: git blob SHA-1 {actual} does not match the published {expected} ({len(data)} bytes); file not saved"
            )
        partial = target.with_suffix(target.suffix + ".part")
        partial.write_bytes(data)
        partial.replace(target)
        log.info("downloaded and verified", extra={"file": str(target), "bytes": len(data)})
        written.append(target)
    return written
