"""AraStance-format export: content, determinism, the round trip, and flags honoured everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers_disk import small_disk
from helpers_annotation import T0, add_claims, add_gold

from arastance.base.arabic import normalize
from arastance.base.ids import content_hash
from arastance.config import load_settings
from tasks.dataset.arastance_format import DatasetFileError, read_jsonl, read_parquet
from tasks.dataset.assemble import assign_claim_splits, dataset_statistics, flag_unrelated_claims
from tasks.dataset.export import EmptyExportError, export_dataset, read_dataset, write_dataset
from tasks.dataset.load_export import load_export
from tasks.stance.datasets import load_split
from warehouse.retrieval import retrieval_candidates
from warehouse import Warehouse, open_warehouse

LABELS = ("agree", "disagree", "discuss", "unrelated")


def _built(wh: Warehouse, n_claims: int = 12) -> dict[str, str]:
    pairs = add_claims(wh, n_claims, 3)
    labels = {p: ("unrelated" if i < 3 else LABELS[(i * 7) % 4]) for i, p in enumerate(pairs)}  # claim 0: all unrelated
    add_gold(wh, labels)
    flag_unrelated_claims(wh, now=T0)
    assign_claim_splits(wh, load_settings().annotation, now=T0)
    return labels


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_export_writes_the_public_format_per_split(warehouse: Warehouse, tmp_path: Path) -> None:
    labels = _built(warehouse)
    summary = export_dataset(warehouse, tmp_path / "ds")
    assert sorted(p.name for p in summary.files) == sorted(
        [f"{s}.{e}" for s in ("train", "dev", "test") for e in ("jsonl", "parquet")] + ["manifest.json"]
    )
    assert sum(summary.claims.values()) == 11 and sum(summary.pairs.values()) == 33  # the all-unrelated claim is left out
    lines = (tmp_path / "ds" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert list(first) == ["id", "claim", "article", "article_title", "article_url", "stance"]
    assert "الادعاء رقم" in lines[0]  # Arabic written as text, not \u escapes
    assert len(first["article"]) == len(first["stance"]) == 3
    assert first["article_url"] == sorted(first["article_url"], key=lambda u: u.split("/")[2])  # rank order: news0, news1, news2
    by_url = {r["article_url"]: r["stance"] for r in warehouse.query("SELECT a.url AS article_url, g.label AS stance FROM gold_labels g JOIN claim_article_pairs p USING (pair_id) JOIN articles a USING (article_id)")}
    assert first["stance"] == [by_url[u].capitalize() for u in first["article_url"]]  # as the release writes them
    split_of = {r["claim_id"]: r["split"] for r in warehouse.query("SELECT * FROM splits")}
    for split in ("train", "dev", "test"):
        for rec in read_jsonl(tmp_path / "ds" / f"{split}.jsonl"):
            assert split_of[rec.id] == split
    table = pq.read_table(tmp_path / "ds" / "train.parquet")
    assert table.column_names == ["id", "claim", "article", "article_title", "article_url", "stance"]
    assert read_parquet(tmp_path / "ds" / "train.parquet") == read_jsonl(tmp_path / "ds" / "train.jsonl")
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert manifest["splits"]["train"]["claims"] == summary.claims["train"]
    assert len(labels) == 36


def test_an_empty_warehouse_does_not_replace_an_exported_dataset(warehouse: Warehouse, tmp_path: Path) -> None:
    _built(warehouse)
    before = _files(export_dataset(warehouse, tmp_path / "release").directory)
    with open_warehouse(tmp_path / "new" / "warehouse.duckdb") as empty:
        with pytest.raises(EmptyExportError, match="no gold pairs in a split, so the dataset in .*release"):
            export_dataset(empty, tmp_path / "release")
        assert _files(tmp_path / "release") == before
        fresh = export_dataset(empty, tmp_path / "fresh")  # nothing to replace: empty splits are written
    assert sum(fresh.pairs.values()) == 0 and (tmp_path / "fresh" / "manifest.json").is_file()


def test_an_export_that_finds_the_disk_full_leaves_the_earlier_one_as_it_was(warehouse: Warehouse, tmp_path: Path) -> None:
    _built(warehouse, 40)
    with small_disk(tmp_path, 2) as disk:
        release = disk.root / "release"
        before = _files(export_dataset(warehouse, release).directory)
        disk.fill(leave=sum(map(len, before.values())) // 3)  # room for a third of a new export
        with pytest.raises(OSError, match="No space left on device"):
            export_dataset(warehouse, release)
        # it was: train.jsonl replaced by a cut one beside the old manifest
        assert _files(release) == before and not list(release.glob(".partial-*"))
        disk.free()
        assert _files(export_dataset(warehouse, release).directory) == before


def test_loading_an_export_refuses_files_its_manifest_does_not_vouch_for(warehouse: Warehouse, tmp_path: Path) -> None:
    _built(warehouse)
    release = export_dataset(warehouse, tmp_path / "release").directory
    train = (release / "train.jsonl").read_bytes()
    (release / "train.jsonl").write_bytes(train[: train.rindex(b"\n", 0, -1) + 1])  # cut at a line's end
    with open_warehouse(tmp_path / "fresh.duckdb") as fresh:
        with pytest.raises(DatasetFileError, match="train.jsonl does not match its checksum in .*manifest.json: "
                                                   "the export was cut short or changed"):
            load_export(fresh, release, source_id="arastance")  # it was: loaded, one claim short
        (release / "train.jsonl").write_bytes(train)
        (release / "extra.jsonl").write_text("{}\n")
        assert load_export(fresh, release, source_id="arastance", now=T0).claims == 11
        (release / "manifest.json").unlink()  # a dataset of one's own: nothing to check against
        (release / "train.jsonl").write_bytes(train[: train.rindex(b"\n", 0, -1) + 1])
        assert load_export(fresh, release, source_id="arastance").claims == 0


def test_export_import_export_gives_identical_files(warehouse: Warehouse, tmp_path: Path) -> None:
    _built(warehouse)
    export_dataset(warehouse, tmp_path / "a")
    assert _files(tmp_path / "a") == _files(export_dataset(warehouse, tmp_path / "a2").directory)  # deterministic
    # file level: what was read writes back byte for byte, from either format
    write_dataset(read_dataset(tmp_path / "a", "jsonl"), tmp_path / "b")
    write_dataset(read_dataset(tmp_path / "a", "parquet"), tmp_path / "c")
    assert _files(tmp_path / "a") == _files(tmp_path / "b") == _files(tmp_path / "c")
    # warehouse level: loading the export into a fresh warehouse and exporting again
    with open_warehouse(tmp_path / "fresh.duckdb") as fresh:
        loaded = load_export(fresh, tmp_path / "a", source_id="arastance", now=T0)
        assert (loaded.claims, loaded.pairs, loaded.gold_labels, loaded.splits) == (11, 33, 33, 11)
        assert fresh.scalar("SELECT count(*) FROM gold_labels WHERE stored_at IS NULL") == 0  # the trigger's clock
        export_dataset(fresh, tmp_path / "d")
        assert load_export(fresh, tmp_path / "a", source_id="arastance").pairs == 0  # loading twice adds nothing
        assert list(retrieval_candidates(fresh)) == []  # they came with their documents: nothing to search for
        ids = {r["claim_id"] for r in fresh.query("SELECT claim_id FROM claims")}
    assert ids == {r["claim_id"] for r in warehouse.query("SELECT claim_id FROM splits")}
    assert _files(tmp_path / "a") == _files(tmp_path / "d")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('{"id": "x", "article": [], "stance": []}', "line 2: missing field(s) ['claim']"),
        ('{"claim": "c", "article": ["a"]}', "line 2: missing field(s) ['stance']"),
        ('{"claim": "c", "article": ["a"], "article_url": "u", "stance": ["agree"]}', "'article_url' must be a list"),
        ('{"id": "x", "claim": "c", "article": ["a"], "article_title": ["t"], "article_url": ["u"], "stance": ["maybe"]}', "unknown stance"),
        ('{"id": "x", "claim": "c", "article": ["a", "b"], "article_title": ["t"], "article_url": ["u"], "stance": ["agree"]}', "differ in length"),
    ],
)
def test_bad_dataset_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    good = '{"id": "y", "claim": "c", "article": ["a"], "article_title": ["t"], "article_url": ["https://x.example/1"], "stance": ["agree"]}'
    path = tmp_path / "train.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DatasetFileError) as err:
        read_jsonl(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_dataset_load_takes_lines_with_only_the_required_keys(tmp_path: Path) -> None:
    """claim, article and stance are the format's required keys: the training loader reads such a
    line, and so does `arastance dataset load` (ids and article identities derived, as documented)."""
    from typer.testing import CliRunner

    from arastance.cli import app
    from tasks.stance.datasets.arastance_jsonl import AraStanceJsonl

    release = tmp_path / "release"
    release.mkdir()
    lines = [
        {"claim": "إغلاق المدارس في الرياض", "article": ["نص الخبر الأول", "نص الخبر الثاني"], "stance": ["Agree", "Unrelated"]},
        {"claim": "ارتفاع أسعار القمح", "article": ["نص الخبر الأول"], "stance": ["Discuss"]},
    ]
    (release / "train.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    result = CliRunner().invoke(app, ["dataset", "load", str(release)])
    assert result.exit_code == 0, result.output
    training = list(AraStanceJsonl(release).examples("train"))
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        pairs = wh.query("SELECT c.claim_id, c.cleaned_text, a.text, a.url, g.label FROM claim_article_pairs p "
                         "JOIN claims c USING (claim_id) JOIN articles a USING (article_id) JOIN gold_labels g USING (pair_id) "
                         "ORDER BY c.claim_id, p.rank")
        splits = wh.query("SELECT split, count(*) AS n FROM splits GROUP BY split")
    assert len(pairs) == 3 and splits == [{"split": "train", "n": 2}]
    # the same claim ids as the training loader gives these lines; one article text is one article
    assert {p["claim_id"] for p in pairs} == {e.claim_id for e in training}
    assert sorted(p["label"] for p in pairs) == ["agree", "discuss", "unrelated"]
    assert len({p["url"] for p in pairs}) == 2 and all(p["url"].startswith("arastance:article:") for p in pairs)
    again = CliRunner().invoke(app, ["dataset", "load", str(release)])  # loading again adds nothing
    assert again.exit_code == 0 and "New rows" in again.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.query("SELECT count(*) AS n FROM claim_article_pairs") == [{"n": 3}]


def test_release_style_lines_read_in_any_letter_case(tmp_path: Path) -> None:
    path = tmp_path / "test.jsonl"
    path.write_text(
        '{"id": "1", "claim": "ادعاء", "article": ["a", "b"], "article_title": ["t", "u"], '
        '"article_url": ["https://x.example/1", "https://x.example/2"], "stance": ["Disagree", "UNRELATED"]}\n',
        encoding="utf-8",
    )
    [record] = read_jsonl(path)
    assert record.stance == ("disagree", "unrelated")
    assert record.as_dict()["stance"] == ["Disagree", "Unrelated"]


def test_statistics_leave_flagged_claims_out_and_list_them(warehouse: Warehouse) -> None:
    _built(warehouse)
    stats = dataset_statistics(warehouse)
    total = stats["sources"][-1]
    assert total["source"] == "total" and (total["claims"], total["pairs"]) == (11, 33)
    assert stats["splits"][-1]["pairs"] == 33
    assert stats["left_out"] == [{"source": "araanews", "veracity": "false", "reason": "all_unrelated", "claims_left_out": 1,
                                  "pairs": 3}]
    by_source = {r["source"]: r for r in stats["sources"][:-1]}
    assert by_source["araanews"]["claims"] == 2 and by_source["dabegad"]["claims"] == 3
    assert sum(r[label] for r in stats["sources"][:-1] for label in LABELS) == 33


def test_dataset_load_refuses_a_directory_without_split_files(warehouse: Warehouse, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "train.jsonl").mkdir()
    for directory, message in ((tmp_path / "nowhere", "not a directory"), (a_file, "not a directory"),
                               (empty, "none of train.jsonl, dev.jsonl, test.jsonl to load"),
                               (tmp_path / "odd", "train.jsonl: not a file")):
        with pytest.raises(DatasetFileError, match=message):
            load_export(warehouse, directory, source_id="arastance")
    assert warehouse.scalar("SELECT count(*) FROM claims") == 0


def _release_line(claim: str, urls: list[str], stances: list[str]) -> str:
    return json.dumps({"claim": claim, "article": [f"نص {i}" for i in range(len(urls))], "article_url": urls,
                       "stance": stances}, ensure_ascii=False) + "\n"


def test_dataset_load_refuses_one_claim_in_two_split_files(warehouse: Warehouse, tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    claim = "وفاة الفنان عادل إمام"
    (release / "train.jsonl").write_text(_release_line(claim, ["https://a.example/1"], ["Agree"]), encoding="utf-8")
    (release / "test.jsonl").write_text("\n" + _release_line(claim, ["https://b.example/2"], ["Disagree"]), encoding="utf-8")
    # it was: loaded as one train claim with both pairs, the test record moved to train unseen
    with pytest.raises(DatasetFileError, match=r"train\.jsonl, line 1 and in .*test\.jsonl, line 2: a claim belongs to one split"):
        load_export(warehouse, release, source_id="arastance")
    assert warehouse.scalar("SELECT count(*) FROM claims") == 0


def test_dataset_load_refuses_a_line_listing_one_article_twice(warehouse: Warehouse, tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    line = _release_line("ادعاء", ["https://news.example/a?utm_source=fb", "https://news.example/b",
                                   "https://news.example/a"], ["Agree", "Unrelated", "Discuss"])
    (release / "train.jsonl").write_text(_release_line("ادعاء آخر", ["https://x.example/1"], ["Agree"]) + line,
                                         encoding="utf-8")
    # it was: one pair, labelled agree; the discuss of article 3 dropped unseen
    with pytest.raises(DatasetFileError, match=r"train\.jsonl, line 2 \(.*\): articles 1 and 3 are the same article"):
        load_export(warehouse, release, source_id="mine")
    assert warehouse.scalar("SELECT count(*) FROM gold_labels") == 0


def test_a_loaded_claim_that_repeats_a_split_one_is_clustered_and_kept_out_of_the_other_split(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    pairs = add_claims(warehouse, 10, 2, sources=("dabegad",))
    add_gold(warehouse, {p: "agree" for p in pairs})
    for row in warehouse.query("SELECT claim_id, cleaned_text FROM claims"):  # as a crawl stores them: matching form, hash
        normalized = normalize(row["cleaned_text"])
        warehouse.con.execute("UPDATE claims SET normalized_text = ?, content_hash = ? WHERE claim_id = ?",
                              [normalized, content_hash(normalized), row["claim_id"]])
    flag_unrelated_claims(warehouse, now=T0)
    assign_claim_splits(warehouse, load_settings().annotation, now=T0)
    ours = warehouse.query("SELECT c.claim_id, c.cleaned_text FROM claims c JOIN splits s USING (claim_id) "
                           "WHERE s.split = 'train' ORDER BY claim_id LIMIT 1")[0]
    release = tmp_path / "release"
    release.mkdir()
    (release / "test.jsonl").write_text(_release_line(ours["cleaned_text"], ["https://other.example/x"], ["Agree"]),
                                        encoding="utf-8")
    loaded = load_export(warehouse, release, source_id="arastance", now=T0)
    assert (loaded.claims, loaded.split_conflicts) == (1, 1)
    [mine] = warehouse.query("SELECT claim_id, normalized_text, content_hash FROM claims WHERE source_id = 'arastance'")
    assert mine["content_hash"] == content_hash(normalize(ours["cleaned_text"]))  # it was: NULL, so never clustered
    clusters = warehouse.query("SELECT claim_id, cluster_id FROM claim_clusters WHERE claim_id IN (?, ?)",
                               [ours["claim_id"], mine["claim_id"]])
    assert len(clusters) == 2 and len({r["cluster_id"] for r in clusters}) == 1
    # it was: the same claim text in test and in train of the models' input
    assert warehouse.query("SELECT claim_text FROM v_stance_examples GROUP BY claim_text HAVING count(DISTINCT split) > 1") == []
    assert warehouse.query("SELECT split FROM splits WHERE claim_id = ?", [mine["claim_id"]]) == [{"split": "test"}]  # kept
    assert warehouse.query("SELECT claim_id, split, kept_split FROM dataset_split_conflicts") == [
        {"claim_id": mine["claim_id"], "split": "test", "kept_split": "train"}]


def test_dataset_load_refuses_one_claim_on_two_lines_of_a_split_file(warehouse: Warehouse, tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    claim = "وفاة الفنان عادل إمام"
    (release / "train.jsonl").write_text(
        _release_line(claim, ["https://a.example/1", "https://a.example/2"], ["Agree", "Unrelated"])
        + _release_line("ادعاء آخر", ["https://x.example/1"], ["Agree"])
        + _release_line(claim, ["https://a.example/1", "https://a.example/3"], ["Disagree", "Discuss"]),
        encoding="utf-8")
    # it was: one claim of three pairs, two of rank 2, the disagree of a.example/1 dropped unseen
    with pytest.raises(DatasetFileError, match=r"train\.jsonl, line 1 and in .*train\.jsonl, line 3: a claim is one "
                                               r"line of its split file .*remove it from one of the lines"):
        load_export(warehouse, release, source_id="arastance")
    assert warehouse.scalar("SELECT count(*) FROM claims") == 0


def test_loading_an_export_refuses_a_split_file_its_manifest_lists_and_the_copy_lacks(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    _built(warehouse)
    release = export_dataset(warehouse, tmp_path / "release").directory
    test_file = (release / "test.jsonl").read_bytes()
    (release / "test.jsonl").unlink()
    with open_warehouse(tmp_path / "fresh.duckdb") as fresh:
        # it was: loaded as train and dev only, without a word
        with pytest.raises(DatasetFileError, match=r"test\.jsonl is missing, but .*manifest\.json lists it"):
            load_export(fresh, release, source_id="arastance")
        (release / "test.jsonl").write_bytes(test_file)
        manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
        manifest["splits"]["dev"]["pairs"] += 1  # a manifest whose counts no longer match its files
        (release / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        with pytest.raises(DatasetFileError, match=r"dev\.jsonl holds \d+ claim\(s\) and \d+ pair\(s\), but .*"
                                                   r"manifest\.json counts"):
            load_export(fresh, release, source_id="arastance")
        assert fresh.scalar("SELECT count(*) FROM claims") == 0


def test_dataset_load_reads_a_file_with_a_bom_as_the_training_reader_does(warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.stance.datasets.arastance_jsonl import AraStanceJsonl

    release = tmp_path / "release"
    release.mkdir()
    line = _release_line("ادعاء", ["https://a.example/1"], ["Agree"]).replace("\n", "\r\n")
    (release / "train.jsonl").write_text("\ufeff" + line, encoding="utf-8")  # as Notepad saves it
    loaded = load_export(warehouse, release, source_id="arastance", now=T0)  # it was: "line 1: not valid JSON"
    assert (loaded.claims, loaded.gold_labels) == (1, 1)
    [example] = AraStanceJsonl(release).examples("train")
    assert warehouse.query("SELECT claim_id, cleaned_text FROM claims") == [
        {"claim_id": example.claim_id, "cleaned_text": "ادعاء"}]


@pytest.mark.parametrize(("source", "message"), [
    ("", "--source '' is not a source id"),
    ("  ", "--source '  ' is not a source id"),
    ("my source", "--source 'my source' is not a source id"),
    ("total", "--source 'total' is reserved: the statistics name their sum row so"),
    ("Total", "--source 'Total' is reserved"),
])
def test_dataset_load_refuses_a_nameless_or_reserved_source(tmp_path: Path, source: str, message: str) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app

    release = tmp_path / "release"
    release.mkdir()
    (release / "train.jsonl").write_text(_release_line("ادعاء", ["https://a.example/1"], ["Agree"]),
                                         encoding="utf-8")
    # it was: loaded as a source with a blank name, or a second 'total' row in the statistics
    result = CliRunner().invoke(app, ["dataset", "load", str(release), "--source", source])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not load_settings().warehouse.exists()


def test_the_training_reader_takes_every_split_of_an_export_with_one_rumour_from_two_sites(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    # it was: two claims of one text (one rumour debunked by two sites) that found one article were refused
    # by `train --dataset arastance` as "duplicated", so the demo's own export could not be trained on
    _built(warehouse)
    first, second = warehouse.query(
        "SELECT s.claim_id, s.split, c.cleaned_text FROM splits s JOIN claims c USING (claim_id) "
        "WHERE c.status <> 'excluded' ORDER BY s.claim_id LIMIT 2")
    (article,) = warehouse.query("SELECT article_id FROM claim_article_pairs WHERE claim_id = ? LIMIT 1",
                                 [first["claim_id"]])
    shared = {"pair_id": "shared-pair", "claim_id": second["claim_id"], "article_id": article["article_id"],
              "rank": 9, "similarity": 0.5, "reason": "test", "created_at": T0}
    with warehouse.transaction():
        warehouse.con.execute("UPDATE claims SET cleaned_text = ? WHERE claim_id = ?",
                              [first["cleaned_text"], second["claim_id"]])
        warehouse.con.execute("UPDATE splits SET split = ? WHERE claim_id = ?", [first["split"], second["claim_id"]])
        warehouse.insert_rows("claim_article_pairs", [shared])
    add_gold(warehouse, {"shared-pair": "discuss"})
    summary = export_dataset(warehouse, tmp_path / "ds")
    read = {split: load_split("arastance", tmp_path / "ds", split) for split in ("train", "dev", "test")}
    assert {s: len(v) for s, v in read.items()} == summary.pairs
