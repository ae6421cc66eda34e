"""Saved models: a directory with the model file and a manifest of what is needed to load it.

A pickled scikit-learn model is only safe to load with the library versions that wrote it, so the
manifest records the format version and those versions, and loading refuses a mismatch with a
message saying what differs, instead of failing later with an obscure unpickling error.

A model saved by a newer version of the product (a newer format, or settings this code does not
know) is refused with a message saying so: an older installation crashed with a ``TypeError`` on
the cascade models' new settings, so format 2 marks them, and earlier installations, which read
format 1 only, refuse it by name.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from arastance.base.input_paths import not_a_file
from arastance.base.jsonl import JsonValueError, parse_json
from arastance.base.text_files import read_utf8
from tasks.stance.provenance import library_versions

#: 2 (2026-12-04): the CPU model's cascade (``fast_model.joblib``, the ``cascade`` threshold and the
#: ``e5_mode``, ``e5_words`` and ``e5_engine`` settings). Format 1 models are read as before.
FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)
_NEWER = "the model was saved by a newer version of AraStance Pipeline; upgrade this installation or retrain"
T = TypeVar("T")
MANIFEST = "manifest.json"


class ModelFormatError(ValueError):
    """A saved model that this installation cannot load; the message names the mismatch."""


def load_pickled(path: Path, expected: type[T]) -> T:
    """The ``expected`` object pickled in ``path``, or a :class:`ModelFormatError` naming it when it is
    missing, damaged or holds something else (a bare classifier failed later with an ``AttributeError``).

    A file cut short by a full disk or an interrupted copy makes unpickling fail with almost any
    exception (EOFError, UnpicklingError, KeyError, ValueError...), so all of them mean the same here.
    """
    import joblib  # only loading a model needs it

    if not path.is_file():
        raise ModelFormatError(f"{path} {not_a_file(path)}, so the model directory is incomplete; copy it again or retrain")
    try:
        loaded = joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        raise ModelFormatError(f"{path}: damaged, cannot be unpickled ({type(exc).__name__}: {exc}); "
                               "copy it again or retrain") from None
    if not isinstance(loaded, expected):
        raise ModelFormatError(f"{path}: holds a {type(loaded).__name__}, not a {expected.__name__}; copy the model "
                               "again or retrain it")
    return loaded


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


def read_manifest(directory: Path, *, kind: str | None = None) -> dict[str, Any]:
    """Read and check a manifest: a model's (not another tool's), its format version, kind and the shape of
    its libraries (whose versions the model's own load checks with :func:`require_versions`)."""
    path = Path(directory) / MANIFEST
    if not path.is_file():
        raise ModelFormatError(f"{directory}: not a saved stance model ({MANIFEST} {not_a_file(path)})")
    manifest = _parsed(path)
    if "format_version" not in manifest and "kind" not in manifest:  # another tool's (a dataset export's)
        raise ModelFormatError(f"{directory}: not a saved stance model (its {MANIFEST} is not a model manifest)")
    version = manifest.get("format_version")
    if type(version) is not int or version not in READABLE_FORMATS:
        newer = type(version) is int and version > FORMAT_VERSION
        raise ModelFormatError(f"{path}: model format version {version!r}, this installation reads versions "
                               f"{READABLE_FORMATS[0]}-{FORMAT_VERSION}{': ' + _NEWER if newer else '; retrain the model'}")
    if not isinstance(manifest.get("kind"), str):  # a hand-edited one (a list was: TypeError, unhashable type)
        raise ModelFormatError(f"{path}: its kind is {_shown(manifest.get('kind'))}, not the name of a model kind; "
                               "copy the model again or retrain it")
    if kind is not None and manifest["kind"] != kind:
        raise ModelFormatError(f"{path}: a {manifest['kind']!r} model, expected {kind!r}")
    if not isinstance(manifest.get("libraries", {}), dict):
        raise ModelFormatError(f"{path}: its libraries are {_shown(manifest['libraries'])}, not an object of library "
                               "versions; copy the model again or retrain it")
    return manifest


def _parsed(path: Path) -> dict[str, Any]:
    """The JSON object in the manifest ``path``, or a :class:`ModelFormatError` naming it: not UTF-8, not
    JSON, nested deeper than the parser goes (it was an uncaught ``RecursionError``), holding a value
    :func:`parse_json` refuses, or not an object."""
    try:
        manifest = parse_json(read_utf8(path, ModelFormatError))
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"{path}, line {exc.lineno}: manifest is not valid JSON ({exc.msg})") from None
    except JsonValueError as exc:
        raise ModelFormatError(f"{path}: the manifest is {exc}; copy the model again or retrain it") from None
    except RecursionError:
        raise ModelFormatError(f"{path}: manifest is nested too deep to read; copy the model again or retrain it") from None
    if not isinstance(manifest, dict):  # valid JSON, but not what any save wrote (it was: AttributeError)
        raise ModelFormatError(f"{path}: the manifest is {_shown(manifest)}, not a JSON object; copy the model again "
                               "or retrain it")
    return manifest


def _shown(value: Any) -> str:
    """A manifest value as JSON, cut to fit in an error message."""
    return json.dumps(value, ensure_ascii=False)[:60]


def require_versions(manifest: dict[str, Any], directory: Path, names: tuple[str, ...]) -> None:
    """Refuse a model whose manifest records other versions of the libraries ``names`` than those installed,
    naming each recorded and installed version."""
    saved = manifest.get("libraries", {})
    installed = library_versions(names)
    wrong = [f"{name} saved with {saved.get(name)!r}, installed {installed[name]!r}"
             for name in names if saved.get(name) != installed[name]]
    if wrong:
        raise ModelFormatError(f"{Path(directory) / MANIFEST}: library versions differ ({'; '.join(wrong)}); retrain "
                               "the model or install those versions")


def saved_settings(cls: type[T], saved: Any, directory: Path, what: str = "config",
                   defaults: Mapping[str, Any] | None = None) -> T:
    """The dataclass ``cls`` of a manifest's ``what`` section (over ``defaults``: the values of
    settings older models were saved without), or a :class:`ModelFormatError`: one with settings
    this code does not know was saved by a newer version (it raised a bare ``TypeError`` here), one
    with a missing or invalid setting is damaged."""
    if not isinstance(saved, Mapping):
        raise ModelFormatError(f"{directory / MANIFEST}: its {what} is not an object; retrain the model")
    saved = {**(defaults or {}), **saved}
    unknown = sorted(set(saved) - {f.name for f in dataclasses.fields(cls)})  # type: ignore[arg-type]
    if unknown:
        raise ModelFormatError(f"{directory / MANIFEST}: its {what} holds {', '.join(map(repr, unknown))}, which this "
                               f"installation does not know: {_NEWER}")
    try:
        return cls(**saved)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{directory / MANIFEST}: its {what} cannot be read ({exc}); retrain the model, or "
                               "upgrade this installation if a newer version saved it") from None
