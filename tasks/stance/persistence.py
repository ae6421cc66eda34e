"""Saved models: a directory with the model file and a manifest of what is needed to load it.

A pickled scikit-learn model is only safe to load with the library versions that wrote it, so the
manifest records the format version and those versions, and loading refuses a mismatch with a
message saying what differs, instead of failing later with an obscure unpickling error.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tasks.stance.provenance import library_versions

FORMAT_VERSION = 1
MANIFEST = "manifest.json"


class ModelFormatError(ValueError):
    """A saved model that this installation cannot load; the message names the mismatch."""


def load_pickled(path: Path) -> Any:
    """The object pickled in ``path``, or a :class:`ModelFormatError` naming it when it is missing or damaged.

    A file cut short by a full disk or an interrupted copy makes unpickling fail with almost any
    exception (EOFError, UnpicklingError, KeyError, ValueError...), so all of them mean the same here.
    """
    import joblib  # only loading a model needs it

    if not path.is_file():
        raise ModelFormatError(f"{path}: missing, so the model directory is incomplete; copy it again or retrain")
    try:
        return joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        raise ModelFormatError(f"{path}: damaged, cannot be unpickled ({type(exc).__name__}: {exc}); "
                               "copy it again or retrain") from None


def write_manifest(directory: Path, *, kind: str, libraries: dict[str, str], **fields: Any) -> Path:
    """Write ``manifest.json`` into ``directory`` (created if needed)."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "libraries": libraries,
        "saved_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **fields,
    }
    path = directory / MANIFEST
    # Written last and atomically: a directory whose manifest is complete holds a complete model.
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_manifest(directory: Path, *, kind: str | None = None, exact: tuple[str, ...] = ()) -> dict[str, Any]:
    """Read and check a manifest: format version, kind, and the versions of the ``exact`` libraries."""
    path = Path(directory) / MANIFEST
    if not path.is_file():
        raise ModelFormatError(f"{directory}: not a saved stance model (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"{path}, line {exc.lineno}: manifest is not valid JSON ({exc.msg})") from None
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {manifest.get('format_version')!r}, this code reads version {FORMAT_VERSION}; retrain the model"
        )
    if kind is not None and manifest.get("kind") != kind:
        raise ModelFormatError(f"{path}: a {manifest.get('kind')!r} model, expected {kind!r}")
    saved = manifest.get("libraries", {})
    installed = library_versions(exact)
    wrong = [f"{name} saved with {saved.get(name)!r}, installed {installed[name]!r}"
             for name in exact if saved.get(name) != installed[name]]
    if wrong:
        raise ModelFormatError(f"{path}: library versions differ ({'; '.join(wrong)}); retrain the model or install those versions")
    return manifest
