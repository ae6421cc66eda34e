"""Shared test helpers for claim analysis: CoNLL-U Documents and a Stanza-like models directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stanza import Document
from stanza.utils.conll import CoNLL

from tasks.claim_analysis.stanza_models import PROCESSORS

CONLLU = Path(__file__).parent / "conllu"


def conllu_doc(name: str) -> Document:
    """A ``stanza.Document`` read from one of our CoNLL-U files (NER in the MISC column)."""
    return CoNLL.conll2doc(input_file=str(CONLLU / name))


def fake_models(root: Path, processors: tuple[str, ...] = PROCESSORS) -> Path:
    """A directory laid out like Stanza's (resources.json, ar/<processor>/*.pt); files are empty."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "resources.json").write_text("{}", encoding="utf-8")
    for p in processors:
        (root / "ar" / p).mkdir(parents=True, exist_ok=True)
        (root / "ar" / p / "padt.pt").write_bytes(b"")
    return root


# resources.json's Arabic entry as Stanza lists it: a package per processor and, for some, the
# word vectors and character language models they depend on.
_DEPENDENCIES = [{"model": "pretrain", "package": "conll17"}, {"model": "forward_charlm", "package": "ccwiki"},
                 {"model": "backward_charlm", "package": "ccwiki"}]
_PACKAGES = {"tokenize": "padt", "mwt": "padt", "pos": "padt_charlm", "lemma": "padt_nocharlm",
             "depparse": "padt_charlm", "ner": "aqmar_charlm"}


def listed_models(root: Path, *, dependencies: bool = True, content: bytes = b"\x80partial") -> Path:
    """A directory whose resources.json lists the Arabic models as Stanza's does, with every
    processor's file written (``content``: not a loadable model) and their dependencies' files
    only if ``dependencies`` (an interrupted ``stanza.download`` fetches those last)."""
    arabic: dict[str, Any] = {"lang_name": "Arabic", "packages": {"default": _PACKAGES}, "default_processors": _PACKAGES}
    for processor, package in _PACKAGES.items():
        arabic[processor] = {package: {"dependencies": _DEPENDENCIES} if package.endswith("_charlm") else {}}
        (root / "ar" / processor).mkdir(parents=True, exist_ok=True)
        (root / "ar" / processor / f"{package}.pt").write_bytes(content)
    for dependency in _DEPENDENCIES:
        arabic.setdefault(dependency["model"], {})[dependency["package"]] = {}
        if dependencies:
            (root / "ar" / dependency["model"]).mkdir(parents=True, exist_ok=True)
            (root / "ar" / dependency["model"] / f"{dependency['package']}.pt").write_bytes(content)
    (root / "resources.json").write_text(json.dumps({"ar": arabic}), encoding="utf-8")
    return root
