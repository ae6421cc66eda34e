"""A hostile-input corpus: every file format the product reads, malformed, truncated, wrongly
encoded, oversized and duplicated. Each variant must end in a clear error that names the file
(and the line where there is one) on one line, and leave the warehouse exactly as it was.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_annotation import add_claims, add_round, ls_annotation, ls_task, write_json
from helpers_crawl_load import StagedPost, write_run
from helpers_stance import arastance_records, khouja_rows, tiny_examples, write_arastance, write_baly, write_khouja

import arastance.base.text_files as text_files
from arastance.base.staging import StagingError
from arastance.config import SettingsError, load_settings
from tasks.annotation.records import AnnotationFileError
from tasks.annotation.workflow import import_annotations
from tasks.articles import FetchFileError, read_fetched
from tasks.claim_load.load import load_crawl_run
from tasks.search.local import CorpusError, read_corpus
from tasks.stance.datasets import DatasetError, load_split
from warehouse import Warehouse

VARIANTS = ("malformed", "truncated", "wrong_encoding", "oversized", "duplicated")


def _cut_mid_character(data: bytes) -> bytes:
    """The file cut inside its last Arabic letter (a copy or download that stopped)."""
    last = max(data.rfind("ا".encode()), data.rfind("ة".encode()))
    return data[: last + 1]


def _to_cp1256(data: bytes) -> bytes:
    return data.decode("utf-8").encode("cp1256", errors="replace")


def _oversized(data: bytes) -> bytes:
    return data + b'{"x": "' + b"a" * 5000 + b'"}\n'  # over the (lowered) one-record limit


def _damage(path: Path, variant: str, malformed: bytes, duplicate: Callable[[bytes], bytes]) -> None:
    data = path.read_bytes()
    if variant not in VARIANTS:
        return
    path.write_bytes({
        "malformed": lambda: malformed,
        "truncated": lambda: _cut_mid_character(data),
        "wrong_encoding": lambda: _to_cp1256(data),
        "oversized": lambda: _oversized(data),
        "duplicated": lambda: duplicate(data),
    }[variant]())


def _twice(data: bytes) -> bytes:
    return data + data


# -- one reader per format: (prepare good input, path to damage, malformed bytes, duplicate, read) ------


def staging(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    run = write_run(work / "araanews-1", "araanews", [StagedPost(f"/p/{i}/", f"شائعة رقم {i} عن المدارس", "عنوان")
                                                       for i in range(3)])
    target = run / ("run.json" if variant == "malformed" else "claims.jsonl")
    _damage(target, variant, b'{"run_id": "araanews-1", "pages": -1', _twice)
    return StagingError, target, lambda: load_crawl_run(wh, run)


def label_studio(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    pairs = add_claims(wh, 1, 2)
    add_round(wh, "prod-1", "production")
    path = write_json(work / "export.json", [ls_task(p, "prod-1", [ls_annotation("ann-1", "agree")], i)
                                             for i, p in enumerate(pairs)])
    text = path.read_text(encoding="utf-8")
    conflict = json.loads(text) + [ls_task(pairs[0], "prod-1", [ls_annotation("ann-1", "disagree")], 9)]
    _damage(path, variant, b'[{"data": {"pair_id": ', lambda b: json.dumps(conflict, ensure_ascii=False).encode())
    return AnnotationFileError, path, lambda: import_annotations(wh, path)


def label_csv(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    pairs = add_claims(wh, 1, 2)
    add_round(wh, "pilot-1", "pilot")
    path = work / "ann-1.csv"
    path.write_text("pair_id,round,annotator_id,label,claim\n"
                    + "".join(f"{p},pilot-1,ann-1,agree,ادعاء مدرسة\n" for p in pairs), encoding="utf-8")
    _damage(path, variant, b'pair_id,round,annotator_id,label\np,pilot-1,ann-1,agree,extra\n',
            lambda b: b + f"{pairs[0]},pilot-1,ann-1,discuss,ادعاء مدرسة\n".encode())
    return AnnotationFileError, path, lambda: import_annotations(wh, path)


def arastance_jsonl(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    path = write_arastance(work / "arastance", "train", arastance_records(tiny_examples()))
    _damage(path, variant, b'{"id": "c1", "claim": "\xd8\xa7", "article": [1]\n', _twice)
    return DatasetError, path, lambda: load_split("arastance", work / "arastance", "train")


def khouja_csv(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    path = write_khouja(work / "khouja", "train", khouja_rows(tiny_examples("3way")))
    _damage(path, variant, b"s1,s2\nonly,two\n", lambda b: b + b.splitlines(keepends=True)[1].replace(b",", b",,", 1))
    return DatasetError, path, lambda: load_split("khouja", work / "khouja", "train")


def baly_json(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    claims = {r["id"]: {"Claim": r["claim"], "Article": r["article"], "Stance": r["stance"]}
              for r in arastance_records(tiny_examples())}
    root = write_baly(work / "baly", {1: ["c1", "c2"], 2: ["c3"], 3: ["c4"], 4: []}, claims)
    path = root / "dataset" / "c1.json"
    if variant == "duplicated":  # a fold listed twice in the fold file
        path = root / "train_test_splits.txt"
    _damage(path, variant, b'{"Claim": ', _twice)
    return DatasetError, path, lambda: load_split("baly", root, "train")


def search_corpus(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    path = work / "corpus.jsonl"
    path.write_text("".join(json.dumps({"url": f"https://news.example/{i}", "title": "عنوان الخبر",
                                        "text": "نص الخبر عن سد النهضة"}, ensure_ascii=False) + "\n"
                            for i in range(3)), encoding="utf-8")
    _damage(path, variant, b'{"url": 42}\n', _twice)
    return CorpusError, path, lambda: list(read_corpus(path))


def fetched_articles(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    path = work / "fetched.jsonl.gz"
    lines = "".join(json.dumps({"url": f"https://news.example/{i}", "fetched_at": "2021-01-01T00:00:00",
                                "text": "نص المقال"}, ensure_ascii=False) + "\n" for i in range(3)).encode()
    raw = work / "raw"
    raw.write_bytes(lines)
    _damage(raw, variant, b'{"url": "https://news.example/1"}\n', _twice)
    data = gzip.compress(raw.read_bytes())
    path.write_bytes(data[: len(data) // 2] if variant == "truncated" else data)
    return FetchFileError, path, lambda: list(read_fetched(path))


def settings_toml(work: Path, wh: Warehouse, variant: str) -> tuple[type[Exception], Path, Callable[[], object]]:
    path = work / "arastance.toml"
    path.write_text('log_level = "INFO"\n[selection]\ntop_k = 3\n# ملاحظة عن الإعدادات\n', encoding="utf-8")
    _damage(path, variant, b"[selection\ntop_k = 3\n", _twice)
    return SettingsError, path, lambda: load_settings()


FORMATS: dict[str, Callable[[Path, Warehouse, str], tuple[type[Exception], Path, Callable[[], object]]]] = {
    "staging": staging, "label_studio_json": label_studio, "annotation_csv": label_csv,
    "arastance_jsonl": arastance_jsonl, "khouja_csv": khouja_csv, "baly_json": baly_json,
    "search_corpus_jsonl": search_corpus, "fetched_articles_jsonl_gz": fetched_articles, "settings_toml": settings_toml,
}
# Whole-document formats have no size limit of their own: an oversized one is just a bigger
# document; the one-record limit concerns line-based formats.
LINE_FORMATS = {"staging", "arastance_jsonl", "search_corpus_jsonl", "fetched_articles_jsonl_gz"}
# Formats whose readers merge duplicates by design (first URL wins): checked by the test below.
MERGING_FORMATS = {"search_corpus_jsonl", "fetched_articles_jsonl_gz"}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_hostile_input_is_a_clear_error_and_changes_nothing(
    fmt: str, variant: str, warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if variant == "oversized" and fmt not in LINE_FORMATS:
        pytest.skip("a whole-document format has no record size limit")
    if variant == "duplicated" and fmt in MERGING_FORMATS:
        pytest.skip("duplicates are merged, not refused: test_duplicated_records_are_kept_once")
    monkeypatch.setattr(text_files, "MAX_LINE_BYTES", 4096)
    work = tmp_path / "in"
    work.mkdir()
    monkeypatch.setenv("ARASTANCE_CONFIG", str(work / "arastance.toml"))
    if fmt != "settings_toml":
        (work / "arastance.toml").write_text("", encoding="utf-8")
    error, path, read = FORMATS[fmt](work, warehouse, variant)
    before = warehouse.table_counts()
    with pytest.raises(error) as err:
        read()
    message = str(err.value)
    assert str(path) in message, message
    assert "\n" not in message, message
    if variant in ("truncated", "wrong_encoding", "oversized") and fmt != "baly_json":
        assert "line" in message, message
    assert warehouse.table_counts() == before


def test_duplicated_records_are_kept_once(warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.articles import article_rows
    from tasks.search.local import LocalIndex

    for fmt, read in (("search_corpus_jsonl", lambda p: len(LocalIndex.build(read_corpus(p)).urls)),
                      ("fetched_articles_jsonl_gz", lambda p: len(article_rows(read_fetched(p), min_arabic_ratio=0,
                                                                               min_text_chars=0)[1]))):
        once, twice = tmp_path / fmt / "once", tmp_path / fmt / "twice"
        once.mkdir(parents=True), twice.mkdir(parents=True)
        _, one_path, _ = FORMATS[fmt](once, warehouse, "none")
        _, two_path, _ = FORMATS[fmt](twice, warehouse, "duplicated")
        assert read(one_path) == read(two_path) == 3, fmt
