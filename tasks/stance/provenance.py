"""Where a model came from: a fingerprint of its training data and the version of the code."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from tasks.stance.examples import StanceExample

_REPO = Path(__file__).resolve().parents[2]


def data_fingerprint(examples: Iterable[StanceExample]) -> str:
    """SHA-256 over every pair's ids, texts and label, independent of their order."""
    digests = sorted(
        hashlib.sha256("\x1f".join(str(x) for x in (e.claim_id, e.article_id, e.claim, e.article, e.label)).encode()).hexdigest()
        for e in examples
    )
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()


def code_version() -> str:
    """``git describe`` of the checkout when there is one, else the installed package version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"], cwd=_REPO, capture_output=True, text=True, timeout=10
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return metadata.version("arastance-pipeline")
    except metadata.PackageNotFoundError:
        return "unknown"


def library_versions(names: Iterable[str]) -> dict[str, str]:
    """Installed versions of the libraries a saved model depends on."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions
