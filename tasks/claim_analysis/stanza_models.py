"""Stanza's Arabic models: where they live, whether they are installed, fetching and loading them.

The models cannot be bundled (they are downloaded from Stanza's model hub), so every caller
first asks :func:`missing_models`; ``analyze`` falls back to the rule-based analyzer when
something is missing and the settings allow it. Stanza (and torch behind it) is imported only
when a pipeline is really loaded or models are fetched.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from arastance.config.nlp import NlpSettings
from arastance.logging import get_logger

if TYPE_CHECKING:
    from stanza import Pipeline

log = get_logger(__name__)

LANGUAGE = "ar"
# The method's analysis: tokens (with clitics split by MWT), parts of speech, lemmas, the
# dependency parse for the verb-phrase cut, and named entities.
PROCESSORS: tuple[str, ...] = ("tokenize", "mwt", "pos", "lemma", "depparse", "ner")


class StanzaModelsMissing(RuntimeError):
    """Stanza's Arabic models are not in the configured directory."""


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

    Stanza keeps ``resources.json`` at the top and one directory of ``.pt`` files per
    processor under ``ar/``; a processor directory without a model file counts as missing.
    """
    if not (model_dir / "resources.json").is_file():
        return ["resources.json", *(f"{LANGUAGE}/{p}" for p in PROCESSORS)]
    return [
        f"{LANGUAGE}/{p}" for p in PROCESSORS if not any((model_dir / LANGUAGE / p).glob("*.pt"))
    ]


def require_models(model_dir: Path) -> None:
    """Raise :class:`StanzaModelsMissing` naming the directory and what is missing in it."""
    missing = missing_models(model_dir)
    if missing:
        raise StanzaModelsMissing(
            f"Stanza's Arabic models are not installed in {model_dir} (missing: {', '.join(missing)}); "
            "run `arastance nlp download` with internet access, set nlp.stanza_dir "
            "(ARASTANCE_NLP__STANZA_DIR) to where they are, or use nlp.analyzer = 'rules'"
        )


@lru_cache(maxsize=2)
def load_pipeline(model_dir: Path, use_gpu: bool = False) -> Pipeline:
    """The Arabic pipeline from ``model_dir``, loaded once per process; never downloads."""
    require_models(model_dir)
    import stanza

    log.info("loading Stanza pipeline", extra={"model_dir": str(model_dir), "processors": ",".join(PROCESSORS)})
    return stanza.Pipeline(
        lang=LANGUAGE,
        dir=str(model_dir),
        processors=",".join(PROCESSORS),
        download_method=None,
        use_gpu=use_gpu,
        logging_level="WARN",
    )


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
