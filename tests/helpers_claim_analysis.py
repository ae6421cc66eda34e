"""Shared test helpers for claim analysis: CoNLL-U Documents and a Stanza-like models directory."""

from __future__ import annotations

from pathlib import Path

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
