"""A tiny hand-written Arabic stance corpus and writers for every dataset format.

The texts are ours: four invented claims, each with an agreeing report, a debunk, a neutral
discussion and an unrelated story, worded so that the label is visible to simple features.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tasks.stance.examples import StanceExample

CLAIMS: dict[str, str] = {
    "c1": "افتتاح جسر جديد فوق النهر في مدينة الواحة الأسبوع المقبل",
    "c2": "ارتفاع أسعار الخبز في أسواق العاصمة بنسبة عشرين بالمئة",
    "c3": "إغلاق المدارس الحكومية بسبب موجة الحر الشديدة",
    "c4": "اكتشاف نوع جديد من الطيور في محمية الجبل الأخضر",
}

_TEMPLATES: dict[str, str] = {
    "agree": "أكدت مصادر رسمية اليوم خبر {claim}. وقال المسؤولون إن {claim} أمر مؤكد وتم الإعلان عنه رسميا.",
    "disagree": "لا صحة لما يتم تداوله حول {claim}. ونفت الجهات المختصة هذه الشائعة وقالت إن الخبر مفبرك وغير صحيح.",
    "discuss": "تداول مستخدمون على مواقع التواصل أنباء عن {claim}. ولم يصدر أي تعليق رسمي حتى الآن بشأن هذه الأنباء.",
    "unrelated": "فاز فريق كرة القدم المحلي بالمباراة النهائية للبطولة. واحتفل المشجعون في الشوارع حتى ساعة متأخرة من الليل.",
}


def record_e5_inputs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The list that every text the real e5 (of any engine) is asked to embed from now on is appended to."""
    from tasks.stance import embeddings

    real_engine = embeddings.load_engine
    sent: list[str] = []

    class Recording:
        def __init__(self, real) -> None:
            self.real = real

        def query(self, texts):
            sent.extend(texts)
            return self.real.query(texts)

    monkeypatch.setattr(embeddings, "load_engine", lambda *args, **kwargs: Recording(real_engine(*args, **kwargs)))
    return sent


def forbid_e5(monkeypatch: pytest.MonkeyPatch, reason: str) -> None:
    """From now on, loading any e5 engine to embed a text fails the test with ``reason``."""
    from tasks.stance import embeddings

    def refuse(*args, **kwargs):
        raise AssertionError(reason)

    monkeypatch.setattr(embeddings, "load_engine", refuse)


def tiny_examples(scheme: str = "4way") -> list[StanceExample]:
    """16 labelled pairs (4 claims x 4 stances); 3-way folds discuss and unrelated into other."""
    out = []
    for cid, claim in CLAIMS.items():
        for label, template in _TEMPLATES.items():
            shown = label if scheme == "4way" or label in ("agree", "disagree") else "other"
            out.append(StanceExample(claim=claim, article=template.format(claim=claim), label=shown,
                                     claim_id=cid, article_id=f"{cid}-{label}"))
    return out


def write_arastance(directory: Path, split: str, records: list[dict]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{split}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def arastance_records(examples: list[StanceExample]) -> list[dict]:
    """Group pairs by claim into AraStance lines, with the release's capitalised labels."""
    grouped: dict[str, dict] = {}
    for ex in examples:
        rec = grouped.setdefault(ex.claim_id, {"id": ex.claim_id, "claim": ex.claim, "article": [], "stance": [],
                                               "article_title": [], "article_url": []})
        rec["article"].append(ex.article)
        rec["stance"].append((ex.label or "").capitalize())
        rec["article_title"].append(f"عنوان {ex.article_id}")
        rec["article_url"].append(f"https://news.example/{ex.article_id}")
    return list(grouped.values())


def write_baly(root: Path, folds: dict[int, list[str]], claims: dict[str, dict]) -> Path:
    """``claims`` maps a claim id to its JSON record (written as given, any key case)."""
    (root / "dataset").mkdir(parents=True, exist_ok=True)
    lines = [f"Fold_{n}: {' '.join(ids)}" for n, ids in sorted(folds.items())]
    (root / "train_test_splits.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for cid, record in claims.items():
        (root / "dataset" / f"{cid}.json").write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    return root


def write_khouja(directory: Path, split: str, rows: list[dict], header: tuple[str, ...] = ("s1", "s2", "stance")) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{split}.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(header), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def khouja_rows(examples: list[StanceExample]) -> list[dict]:
    return [{"s1": ex.article, "s2": ex.claim, "stance": ex.label} for ex in examples]
