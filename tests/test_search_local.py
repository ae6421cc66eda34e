"""The local BM25 index: Arabic matching, date windows, persistence and corpus errors."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from helpers_disk import small_disk

from tasks.search.base import DateWindow, SearchError
from tasks.search.local import CorpusError, LocalIndex, build_dir, read_corpus, records_from_dicts

DOCS = [
    {"url": "https://a.example/1", "title": "وزارة الصحة تنفي انتشار الكوليرا", "domain": "a.example",
     "text": "نفت وزارة الصحة المصرية ما تردد عن انتشار وباء الكوليرا في محافظة أسيوط.", "published_date": "2016-05-02"},
    {"url": "https://b.example/2", "title": "المنتخب يفوز", "domain": "b.example",
     "text": "فاز المنتخب الوطني لكرة القدم في المباراة الودية.", "published_date": "2016-05-03"},
    {"url": "https://c.example/3", "title": "الكوليرا في اليمن", "domain": "c.example",
     "text": "منظمة الصحة العالمية تحذر من الكوليرا.", "published_date": "2018-01-10"},
    {"url": "https://d.example/4", "title": "بلا تاريخ", "domain": "d.example",
     "text": "خبر عن الكوليرا بلا تاريخ نشر.", "published_date": None},
]


def _files(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` (its builds' too) with its content; a link, with its target."""
    return {str(p.relative_to(directory)): str(p.readlink()).encode() if p.is_symlink() else p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_symlink() or p.is_file()}


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_search_ranks_matching_documents_and_folds_arabic_spelling(tmp_path: Path) -> None:
    index = LocalIndex.build(read_corpus(_write(tmp_path / "c.jsonl", DOCS)), tmp_path / "ix")
    # 'الصحه' (taa marbuta folded) and 'أسيوط' -> 'اسيوط' still match
    results = LocalIndex.load(tmp_path / "ix").search("الصحه انتشار الكوليرا اسيوط", None, 10)
    assert results[0].url == "https://a.example/1"
    assert {r.url for r in results} == {"https://a.example/1", "https://c.example/3", "https://d.example/4"}
    assert [r.rank for r in results] == [1, 2, 3]
    assert results[0].published_date == date(2016, 5, 2) and results[0].title.startswith("وزارة")
    assert len(index) == 4


def test_date_window_keeps_only_documents_published_inside(tmp_path: Path) -> None:
    index = LocalIndex.build(records_from_dicts(DOCS))
    results = index.search("الكوليرا", DateWindow(date(2016, 4, 1), date(2016, 6, 30)), 10)
    assert [r.url for r in results] == ["https://a.example/1"]


def test_unknown_words_and_empty_queries_give_no_results() -> None:
    index = LocalIndex.build(records_from_dicts(DOCS))
    assert index.search("زلزال", None, 10) == []
    assert index.search("  ...  ", None, 10) == []


def test_num_limits_the_results_and_duplicate_urls_are_indexed_once() -> None:
    index = LocalIndex.build(records_from_dicts(DOCS + [DOCS[0]]))
    assert len(index) == 4
    assert len(index.search("الكوليرا", None, 2)) == 2


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "line 2: not valid JSON"),
    (json.dumps({"title": "x"}), "line 2: field 'url' is missing"),
    (json.dumps({"url": "u", "published_date": "02/05/2016"}), "line 2: field 'published_date' is not YYYY-MM-DD"),
    (json.dumps({"url": "u", "text": 5}), "line 2: field 'text' must be a string"),
])
def test_bad_corpus_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(DOCS[0], ensure_ascii=False) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=message) as err:
        list(read_corpus(path))
    assert str(path) in str(err.value)


def test_missing_index_and_empty_corpus_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="arastance index build"):
        LocalIndex.load(tmp_path / "nowhere")
    with pytest.raises(CorpusError, match="no documents"):
        LocalIndex.build([])



@pytest.mark.parametrize("damaged", ["params.index.json", "docs.parquet"])
def test_a_damaged_index_file_is_named_with_how_to_rebuild(tmp_path: Path, damaged: str) -> None:
    LocalIndex.build(read_corpus(_write(tmp_path / "c.jsonl", DOCS)), tmp_path / "ix")
    (build_dir(tmp_path / "ix") / damaged).write_text("{cut sho", encoding="utf-8")
    with pytest.raises(SearchError, match=f"index in {tmp_path / 'ix'} is damaged .*arastance index build"):
        LocalIndex.load(tmp_path / "ix")


def test_a_build_that_finds_the_disk_full_keeps_the_earlier_index(tmp_path: Path) -> None:
    many = [{"url": f"https://n.example/{i}", "title": f"خبر {i}", "domain": "n.example",
             "text": " ".join(f"كلمة{(i * 31 + j) % 5000}" for j in range(60)), "published_date": "2016-05-02"}
            for i in range(3000)]
    with small_disk(tmp_path, 4) as disk:
        index_dir = disk.root / "ix"
        LocalIndex.build(records_from_dicts(DOCS), index_dir)
        before = _files(index_dir)
        disk.fill(leave=64 << 10)
        # it was: the index directory left with a new data file, a cut one and the old documents
        with pytest.raises((OSError, SearchError), match="No space left on device|a short write, as on a full disk"):
            LocalIndex.build(records_from_dicts(many), index_dir)
        assert _files(index_dir) == before
        assert LocalIndex.load(index_dir).search("الكوليرا اسيوط", None, 1)[0].url == "https://a.example/1"


def test_index_build_and_search_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app

    monkeypatch.setenv("COLUMNS", "200")  # URLs on one line of the table
    runner = CliRunner()
    corpus = _write(tmp_path / "corpus.jsonl", DOCS)
    built = runner.invoke(app, ["index", "build", "--corpus", str(corpus)])
    assert built.exit_code == 0, built.output
    assert "indexed 4 document(s)" in built.output
    found = runner.invoke(app, ["index", "search", "الكوليرا", "--start", "2016-01-01", "--end", "2016-12-31"])
    assert found.exit_code == 0, found.output
    assert "https://a.example/1" in found.output and "https://c.example/3" not in found.output
    again = runner.invoke(app, ["index", "search", "الكوليرا", "--start", "2016-01-01", "--end", "2016-12-31"])
    assert "local (cached)" in again.output

    bad = _write(tmp_path / "bad.jsonl", [DOCS[0], {"title": "بلا رابط"}])
    failed = runner.invoke(app, ["index", "build", "--corpus", str(bad)])
    assert failed.exit_code == 2 and "line 2: field 'url' is missing" in failed.output
    assert runner.invoke(app, ["index", "build"]).exit_code == 2


def test_index_search_refuses_one_window_bound_alone(tmp_path: Path) -> None:
    # it was: --start (or --end) alone dropped without a word, and every date searched
    from typer.testing import CliRunner

    from arastance.cli import app

    runner = CliRunner()
    assert runner.invoke(app, ["index", "build", "--corpus", str(_write(tmp_path / "c.jsonl", DOCS))]).exit_code == 0
    for option in ("--start", "--end"):
        alone = runner.invoke(app, ["index", "search", "الكوليرا", option, "2030-01-01"])
        assert alone.exit_code == 2, alone.output
        assert f"{option} alone is no date window: give both --start and --end" in " ".join(alone.output.split())
    bad_day = runner.invoke(app, ["index", "search", "الكوليرا", "--start", "2016-13-01", "--end", "2016-12-31"])
    assert bad_day.exit_code == 2 and "invalid --start '2016-13-01': expected YYYY-MM-DD" in bad_day.output


def test_streamed_bm25_scores_equal_bm25s_own_index() -> None:
    import bm25s
    import numpy as np

    from tasks.search.bm25_build import Bm25Builder, document_tokens, tokenised

    docs = [("سد النهضة", "انهيار سد النهضة بعد الأمطار"), ("الإنفلونزا", "إغلاق المدارس بسبب الإنفلونزا في القاهرة"),
            ("", "سد سد سد النهضة الأمطار الغزيرة"), ("أخبار", "لا شيء مشترك هنا إطلاقا مع غيره")]
    builder = Bm25Builder()
    for tokens in tokenised(docs, workers=2):  # tokenised in two processes, in order
        builder.add(tokens)
    ours = builder.finish()
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index([document_tokens(t, x) for t, x in docs], show_progress=False)
    for query in (["سد", "النهضه"], ["الانفلونزا", "المدارس"], ["الامطار"]):
        mine = ours.get_scores_from_ids(ours.get_tokens_ids(query))
        theirs = reference.get_scores_from_ids(reference.get_tokens_ids(query))
        assert np.allclose(mine, theirs, atol=1e-5) and mine.max() > 0
