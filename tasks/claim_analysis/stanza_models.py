"""Stanza's Arabic models: where they live, whether they are installed, fetching and loading them.

The models cannot be bundled (they are downloaded from Stanza's model hub), so every caller
first asks :func:`missing_models`; ``analyze`` falls back to the rule-based analyzer when
something is missing, or cannot be loaded, and the settings allow it. Stanza (and torch behind
it) is imported only when a pipeline is really loaded or models are fetched.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arastance.config.nlp import NlpSettings
from arastance.logging import get_logger

if TYPE_CHECKING:
    from stanza import Pipeline

log = get_logger(__name__)

LANGUAGE = "ar"
# The method's analysis: tokens (with clitics split by MWT), parts of speech, lemmas, the
# dependency parse for the verb-phrase cut, and named entities.
PROCESSORS: tuple[str, ...] = ("tokenize", "mwt", "pos", "lemma", "depparse", "ner")


# What else to do when the models cannot be used, ending every StanzaModelsMissing message.
_REMEDY = "set nlp.stanza_dir (ARASTANCE_NLP__STANZA_DIR) to where they are, or use nlp.analyzer = 'rules'"


class StanzaModelsMissing(RuntimeError):
    """Stanza's Arabic models are not in the configured directory, or cannot be loaded from it."""


class StanzaDownloadError(RuntimeError):
    """``stanza.download`` could not fetch the Arabic models (e.g. no internet)."""


def models_dir(settings: NlpSettings) -> Path:
    """The configured directory, else Stanza's own default (``$STANZA_RESOURCES_DIR`` or its cache)."""
    if settings.stanza_dir is not None:
        return Path(settings.stanza_dir)
    if os.environ.get("STANZA_RESOURCES_DIR"):
        return Path(os.environ["STANZA_RESOURCES_DIR"])
    from stanza.resources.common import DEFAULT_MODEL_DIR

    return Path(DEFAULT_MODEL_DIR)


def missing_models(model_dir: Path) -> list[str]:
    """What the Arabic pipeline needs and ``model_dir`` lacks; empty when everything is there.

    Stanza keeps ``resources.json`` at the top and one directory of ``.pt`` files per model
    type under ``ar/``. Where resources.json lists Arabic, the files the pipeline loads are the
    ones it names: each processor's default package and that package's dependencies (word
    vectors, character language models), which ``stanza.download`` fetches last, so an
    interrupted download leaves the processors without them. Otherwise a processor directory
    without a model file counts as missing.
    """
    resources_file = model_dir / "resources.json"
    if not resources_file.is_file():
        return ["resources.json", *(f"{LANGUAGE}/{p}" for p in PROCESSORS)]
    try:
        resources = json.loads(resources_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [f"resources.json (unreadable: {exc})"]
    listed = resources.get(LANGUAGE) if isinstance(resources, dict) else None
    if not isinstance(listed, dict):
        return [f"{LANGUAGE}/{p}" for p in PROCESSORS if not any((model_dir / LANGUAGE / p).glob("*.pt"))]
    return [path for path in _listed_model_files(listed) if not (model_dir / path).is_file()]


def _listed_model_files(listed: dict[str, Any]) -> list[str]:
    """The model files, relative to the models directory, that resources.json's Arabic entry
    has the pipeline load, as Stanza resolves them: the processor's ``default`` package, else
    the one ``packages.default`` names, then the dependencies that package lists."""
    default_packages = listed.get("packages", {}).get("default", {})
    files: list[str] = []
    for processor in PROCESSORS:
        packages = listed.get(processor, {})
        package = "default" if "default" in packages else default_packages.get(processor)
        if package is None:
            files.append(f"{LANGUAGE}/{processor}")
            continue
        files.append(f"{LANGUAGE}/{processor}/{package}.pt")
        for dependency in packages.get(package, {}).get("dependencies", []):
            files.append(f"{LANGUAGE}/{dependency['model']}/{dependency['package']}.pt")
    return list(dict.fromkeys(files))


def require_models(model_dir: Path) -> None:
    """Raise :class:`StanzaModelsMissing` naming the directory and what is missing in it."""
    missing = missing_models(model_dir)
    if missing:
        raise StanzaModelsMissing(
            f"Stanza's Arabic models are not installed in {model_dir} (missing: {', '.join(missing)}); "
            f"run `arastance nlp download` with internet access, {_REMEDY}"
        )


@lru_cache(maxsize=2)
def load_pipeline(model_dir: Path, use_gpu: bool = False) -> Pipeline:
    """The Arabic pipeline from ``model_dir``, loaded once per process; never downloads.

    Model files that are all there but cannot be loaded (truncated by an interrupted copy,
    another Stanza version's) raise :class:`StanzaModelsMissing` naming the directory, as
    missing ones do, instead of torch's unpickling error.
    """
    require_models(model_dir)
    import stanza

    log.info("loading Stanza pipeline", extra={"model_dir": str(model_dir), "processors": ",".join(PROCESSORS)})
    try:
        return stanza.Pipeline(
            lang=LANGUAGE,
            dir=str(model_dir),
            processors=",".join(PROCESSORS),
            download_method=None,
            use_gpu=use_gpu,
            logging_level="WARN",
        )
    except Exception as exc:  # torch, pickle, file and Stanza's own errors all mean the same here
        raise StanzaModelsMissing(
            f"Stanza's Arabic models in {model_dir} cannot be loaded ({type(exc).__name__}: {exc}); "
            f"run `arastance nlp download` again, {_REMEDY}"
        ) from exc


def download_models(model_dir: Path, resources_url: str) -> Path:
    """Fetch the Arabic models into ``model_dir`` with ``stanza.download``; return the directory.

    Without internet (or with a wrong ``resources_url``) this raises
    :class:`StanzaDownloadError` saying where it tried to download from and to.
    """
    import stanza

    model_dir.mkdir(parents=True, exist_ok=True)
    try:
        stanza.download(
            LANGUAGE,
            model_dir=str(model_dir),
            processors=",".join(PROCESSORS),
            resources_url=resources_url.rstrip("/"),
            logging_level="WARN",
        )
    except Exception as exc:  # requests, huggingface_hub and file errors all end the same way
        raise StanzaDownloadError(
            f"cannot download Stanza's Arabic models from {resources_url} into {model_dir}: "
            f"{type(exc).__name__}: {exc}. Without internet the rule-based analyzer is used "
            "(nlp.analyzer = 'auto' or 'rules')"
        ) from exc
    missing = missing_models(model_dir)
    if missing:
        raise StanzaDownloadError(f"stanza.download finished but {model_dir} still lacks {', '.join(missing)}")
    log.info("downloaded Stanza models", extra={"model_dir": str(model_dir)})
    return model_dir
