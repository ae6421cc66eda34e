"""Loading crawl staging runs: all or nothing, idempotent, re-crawls add no rows, overrides win."""

from __future__ import annotations

import json
import zlib
from datetime import date, datetime
from pathlib import Path

import pytest

from spiders.site_config import available_sites
from helpers_crawl_load import StagedPost, read_jsonl, write_jsonl, write_run

from arastance.base.staging import StagingError
from tasks.claim_load.load import load_crawl_run
from warehouse import Warehouse
from warehouse import claims as claims_db

ARAANEWS_POSTS = [
    StagedPost("/2016/05/school-1/", "لا صحة لما يتم تداوله حول إغلاق المدارس في دبي لمدة أسبوعين", "شائعة المدارس"),
    StagedPost("/2016/05/artist-2/", "حقيقة وفاة الفنان سامي الحربي إثر أزمة قلبية", "حقيقة وفاة الفنان"),
    StagedPost("/2016/05/video-3/", "[فيديو]", "فيديو الإعصار", is_multimedia=True),
    StagedPost("/2016/05/empty-4/", "", "منشور بلا نص"),
    StagedPost("/2016/05/minister-5/", "وزارة الصحة تنفي انتشار الوباء في الشارقة", "نفي الوزارة"),
    StagedPost("/2016/05/nodate-6/", "شائعة: رفع أسعار الوقود بنسبة 40 بالمئة الشهر المقبل", "الوقود",
               published_raw="منذ يومين", published_date=None),
]


def counts(wh: Warehouse) -> dict[str, int]:
    return {t: n for t, n in wh.table_counts().items() if t in {"claims", "raw_pages", "crawl_runs", "claim_clusters", "sources"}}


def test_load_stores_pages_claims_run_and_sources(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS, failed_pages=2)
    report = load_crawl_run(warehouse, run)

    assert (report.pages, report.new_pages, report.claims, report.new_claims) == (8, 8, 6, 6)
    assert report.statuses == {"active": 3, "excluded": 2, "review": 1}
    assert report.dropped == {"excluded:empty_text": 1, "excluded:multimedia": 1, "http_500": 2}
    # Every registered site (the paper's four and the config-only extras) has its sources row.
    assert {r["source_id"] for r in warehouse.query("SELECT source_id FROM sources")} == set(available_sites())
    rows = {r["url"].rsplit("/", 2)[-2]: r for r in warehouse.query("SELECT * FROM claims")}
    school = rows["school-1"]
    assert school["cleaned_text"] == "إغلاق المدارس في دبي لمدة أسبوعين"
    assert school["raw_text"].startswith("لا صحة لما يتم تداوله")
    assert school["normalized_text"] == "اغلاق المدارس في دبي لمده اسبوعين"
    assert school["canonical_url"] == "https://araanews.ae/2016/05/school-1"
    assert (school["status"], school["veracity"], school["published_date"]) == ("active", "false", date(2016, 5, 3))
    assert (rows["video-3"]["status"], rows["video-3"]["status_reason"]) == ("excluded", "multimedia")
    assert (rows["empty-4"]["status"], rows["empty-4"]["status_reason"]) == ("excluded", "empty_text")
    assert (rows["minister-5"]["status"], rows["minister-5"]["status_reason"]) == ("review", "residual_framing")
    # a relative date is anchored at the fetch time, not at load time
    assert rows["nodate-6"]["published_date"] == date(2018, 3, 8)

    run_row = warehouse.query("SELECT * FROM crawl_runs")[0]
    assert (run_row["pages"], run_row["items"], run_row["new_claims"], run_row["errors"]) == (8, 6, 6, 2)
    assert json.loads(run_row["dropped"])["excluded:multimedia"] == 1
    assert json.loads(run_row["stats"])["downloader/request_count"] == 8

    page = warehouse.query("SELECT url, html_zlib, parse_status FROM raw_pages WHERE url LIKE '%school-1%'")[0]
    assert "إغلاق المدارس" in zlib.decompress(page["html_zlib"]).decode("utf-8")
    failed = warehouse.query("SELECT html_zlib, parse_status, http_status FROM raw_pages WHERE parse_status = 'failed'")
    assert len(failed) == 2 and failed[0]["html_zlib"] is None and failed[0]["http_status"] == 500


def test_an_archived_claims_relative_date_is_counted_from_the_capture(warehouse: Warehouse, tmp_path: Path) -> None:
    """A staging run written before the parser read "منذ 15 يوماً" is dated at load, as ``reparse`` dates it: an
    archived page from the capture, a live one from the fetch."""
    undated = {"published_raw": "منذ 15 يوماً", "published_date": None, "fetched_at": "2025-06-10T08:00:00+00:00"}
    posts = [StagedPost("/2016/03/archived-1/", "شائعة: إغلاق المدارس في دبي لمدة أسبوعين", "المدارس",
                        captured_at="2016-03-01T10:00:00+00:00", **undated),
             StagedPost("/2025/06/live-2/", "شائعة: رفع أسعار الوقود بنسبة 40 بالمئة", "الوقود", **undated)]
    load_crawl_run(warehouse, write_run(tmp_path / "araanews-archive", "araanews", posts))
    dates = {r["url"].rsplit("/", 2)[-2]: r["published_date"] for r in warehouse.query("SELECT url, published_date FROM claims")}
    assert dates == {"archived-1": date(2016, 2, 15), "live-2": date(2025, 5, 26)}  # it was: 2025-05-26 for both


def test_loading_the_same_run_twice_adds_nothing(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS)
    load_crawl_run(warehouse, run)
    before = counts(warehouse)
    again = load_crawl_run(warehouse, run)
    assert again.already_loaded
    assert (again.new_pages, again.new_claims, again.new_cluster_rows) == (0, 0, 0)
    assert counts(warehouse) == before
    assert warehouse.scalar("SELECT new_claims FROM crawl_runs") == 6  # the first load's count is kept


def test_recrawl_of_unchanged_site_adds_no_rows_and_moves_last_seen(warehouse: Warehouse, tmp_path: Path) -> None:
    load_crawl_run(warehouse, write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS))
    first = {r["claim_id"]: r for r in warehouse.query("SELECT claim_id, first_seen, last_seen FROM claims")}
    later = [StagedPost(**{**p.__dict__, "fetched_at": "2018-04-01T08:00:00+00:00"}) for p in ARAANEWS_POSTS]
    report = load_crawl_run(warehouse, write_run(tmp_path / "araanews-2", "araanews", later))

    assert (report.new_claims, report.new_pages, report.already_loaded) == (0, 0, False)
    assert warehouse.scalar("SELECT count(*) FROM claims") == len(ARAANEWS_POSTS)
    assert warehouse.scalar("SELECT count(*) FROM crawl_runs") == 2
    for row in warehouse.query("SELECT claim_id, first_seen, last_seen, run_id FROM claims"):
        assert row["first_seen"] == first[row["claim_id"]]["first_seen"] == datetime(2018, 3, 10, 12, 0)
        assert row["last_seen"] == datetime(2018, 4, 1, 8, 0)
        assert row["run_id"] == "araanews-1"



def test_content_follows_the_latest_fetch_whatever_the_load_order(warehouse: Warehouse, tmp_path: Path) -> None:
    post = ARAANEWS_POSTS[0]
    edited = StagedPost(post.path, "لا صحة لما يتم تداوله حول إغلاق المدارس في دبي لمدة شهر", fetched_at="2018-04-01T00:00:00+00:00")
    older = StagedPost(post.path, "حقيقة إغلاق المدارس في دبي", fetched_at="2018-01-01T00:00:00+00:00")
    load_crawl_run(warehouse, write_run(tmp_path / "a1", "araanews", [post]))
    load_crawl_run(warehouse, write_run(tmp_path / "a2", "araanews", [edited]))
    load_crawl_run(warehouse, write_run(tmp_path / "a0", "araanews", [older]))  # an old run loaded late
    row = warehouse.query("SELECT cleaned_text, first_seen, last_seen, run_id FROM claims")[0]
    assert row["cleaned_text"] == "إغلاق المدارس في دبي لمدة شهر"
    # the old run saw the claim first: first_seen moves back to it, last_seen stays
    assert (row["first_seen"], row["last_seen"], row["run_id"]) == (datetime(2018, 1, 1), datetime(2018, 4, 1), "a0")
    assert warehouse.scalar("SELECT count(*) FROM raw_pages") == 3  # every version of the page is kept


def test_tracking_and_mobile_urls_are_one_claim(warehouse: Warehouse, tmp_path: Path) -> None:
    post = StagedPost("/2016/05/school-1/", "حقيقة إغلاق المدارس في دبي لمدة أسبوعين")
    load_crawl_run(warehouse, write_run(tmp_path / "a1", "araanews", [post]))
    tracked = StagedPost("/2016/05/school-1/?utm_source=facebook&fbclid=x#comments", post.claim_text)
    report = load_crawl_run(warehouse, write_run(tmp_path / "a2", "araanews", [tracked]))
    assert report.new_claims == 0
    assert warehouse.scalar("SELECT count(*) FROM claims") == 1
    # two spellings in one run: one claim, the second counted as a drop
    both = load_crawl_run(warehouse, write_run(tmp_path / "a3", "araanews", [
        StagedPost("/2016/06/new/", "حقيقة ارتفاع أسعار الذهب"), StagedPost("/2016/06/new/?fbclid=1", "حقيقة ارتفاع أسعار الذهب"),
    ]))
    assert (both.new_claims, both.dropped) == (1, {"duplicate_url": 1})


def test_same_rumour_on_two_sites_is_one_cluster(warehouse: Warehouse, tmp_path: Path) -> None:
    load_crawl_run(warehouse, write_run(tmp_path / "a1", "araanews", [
        StagedPost("/2016/05/x/", "لا صحة لما يتم تداوله حول إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب الإنفلونزا"),
        StagedPost("/2016/06/y/", "حقيقة ارتفاع أسعار الذهب في أسواق الشارقة", published_date="2016-06-01"),
    ]))
    report = load_crawl_run(warehouse, write_run(tmp_path / "d1", "dabegad", [
        StagedPost("/2016/05/z/", "شائعة: إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب انتشار الإنفلونزا",
                   published_date="2016-05-01"),
    ]))
    assert report.new_cluster_rows == 2
    clusters = warehouse.query(
        "SELECT c.source_id, k.cluster_id, k.method, k.similarity, c.claim_id FROM claim_clusters k JOIN claims c USING (claim_id)"
    )
    assert {r["source_id"] for r in clusters} == {"araanews", "dabegad"}
    assert {r["method"] for r in clusters} == {"shingle_jaccard"}
    representative = next(r for r in clusters if r["source_id"] == "dabegad")  # published first
    assert all(r["cluster_id"] == representative["claim_id"] for r in clusters)


def test_broken_line_midway_loads_nothing(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS)
    claims = read_jsonl(run / "claims.jsonl")
    claims[3]["is_multimedia"] = "perhaps"
    write_jsonl(run / "claims.jsonl", claims)
    with pytest.raises(StagingError, match=r"claims\.jsonl, line 4: field 'is_multimedia'"):
        load_crawl_run(warehouse, run)
    assert all(n == 0 for n in counts(warehouse).values())


def test_truncated_json_line_names_file_and_line(warehouse: Warehouse, tmp_path: Path) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS)
    lines = (run / "pages.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]
    (run / "pages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(StagingError, match=r"pages\.jsonl, line 3: not valid JSON"):
        load_crawl_run(warehouse, run)
    assert all(n == 0 for n in counts(warehouse).values())


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("missing_run_json", r"run\.json: missing"),
        ("missing_field", r"claims\.jsonl, line 2: field 'veracity': Field required"),
        ("wrong_veracity", r"claims\.jsonl, line 1: field 'veracity' is 'true'"),
        ("unknown_page", r"claims\.jsonl, line 1: field 'page_id' 'nope' is not in pages\.jsonl"),
        ("other_run", r"pages\.jsonl, line 1: field 'run_id' is 'someone-else'"),
        ("bad_url", r"claims\.jsonl, line 1: field 'url': not an absolute http\(s\) URL"),
        ("corrupt_body", r"\.html\.gz \(from .*pages\.jsonl, line 1\): cannot read"),
        ("tampered_body", r"body does not match field 'content_hash'"),
        ("array_line", r"claims\.jsonl, line 2: expected a JSON object"),
    ],
)
def test_bad_staging_files_name_the_problem_and_load_nothing(
    warehouse: Warehouse, tmp_path: Path, breakage: str, message: str
) -> None:
    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS[:2])
    claims, pages = read_jsonl(run / "claims.jsonl"), read_jsonl(run / "pages.jsonl")
    if breakage == "missing_run_json":
        (run / "run.json").unlink()
    elif breakage == "missing_field":
        del claims[1]["veracity"]
    elif breakage == "wrong_veracity":
        claims[0]["veracity"] = "true"
    elif breakage == "unknown_page":
        claims[0]["page_id"] = "nope"
    elif breakage == "other_run":
        pages[0]["run_id"] = "someone-else"
    elif breakage == "bad_url":
        claims[0]["url"] = "/relative/only"
    elif breakage == "corrupt_body":
        (run / pages[0]["html_file"]).write_bytes(b"not gzip at all")
    elif breakage == "tampered_body":
        import gzip

        (run / pages[0]["html_file"]).write_bytes(gzip.compress("<html>تغيير</html>".encode()))
    write_jsonl(run / "claims.jsonl", claims)
    write_jsonl(run / "pages.jsonl", pages)
    if breakage == "array_line":
        (run / "claims.jsonl").write_text(json.dumps(claims[0]) + "\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(StagingError, match=message):
        load_crawl_run(warehouse, run)
    assert all(n == 0 for n in counts(warehouse).values())


def test_review_override_wins_over_rules_on_reload(warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.claim_load.overrides import set_claim_override

    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS)
    load_crawl_run(warehouse, run)
    queue = claims_db.review_queue(warehouse)
    assert [q["reason"] for q in queue] == ["residual_framing"]
    claim_id = queue[0]["claim_id"]

    set_claim_override(warehouse, claim_id, "انتشار الوباء في الشارقة", reviewer="reviewer-1", note="صيغة الشائعة")
    assert claims_db.review_queue(warehouse) == []
    # a re-crawl re-runs the rules; the override still wins
    later = [StagedPost(**{**p.__dict__, "fetched_at": "2018-05-01T00:00:00+00:00"}) for p in ARAANEWS_POSTS]
    load_crawl_run(warehouse, write_run(tmp_path / "araanews-2", "araanews", later))
    row = warehouse.query("SELECT status, status_reason, cleaned_text, normalized_text FROM claims WHERE claim_id = ?", [claim_id])[0]
    assert (row["status"], row["status_reason"]) == ("active", "override")
    assert row["cleaned_text"] == "وزارة الصحة تنفي انتشار الوباء في الشارقة"  # the rule output is kept beside it
    assert row["normalized_text"] == "انتشار الوباء في الشارقه"
    assert claims_db.review_queue(warehouse) == []


def test_override_of_unknown_claim_is_an_error(warehouse: Warehouse) -> None:
    from tasks.claim_load.overrides import set_claim_override
    from warehouse import WarehouseError

    with pytest.raises(WarehouseError, match="no claim with claim_id 'missing'"):
        set_claim_override(warehouse, "missing", "نص", reviewer="r")


def test_cli_load_review_and_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    monkeypatch.setenv("COLUMNS", "400")  # tables unwrapped

    from arastance.cli import app
    from warehouse import open_warehouse

    run = write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS)
    cli = CliRunner()
    loaded = cli.invoke(app, ["claims", "load", str(run)])
    assert loaded.exit_code == 0, loaded.output
    assert "araanews-1" in loaded.output
    listed = cli.invoke(app, ["claims", "review"])
    assert listed.exit_code == 0 and "residual_framing" in listed.output
    assert "residual_framing" in cli.invoke(app, ["claims", "review", "--source", "araanews"]).output
    typo = cli.invoke(app, ["claims", "review", "--source", "araanew"])
    assert typo.exit_code == 2 and "--source 'araanew' is not a stored source; known: " in typo.output
    assert "araanews" in typo.output.split("known: ")[1]
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb", read_only=True) as wh:
        claim_id = claims_db.review_queue(wh)[0]["claim_id"]
    incomplete = cli.invoke(app, ["claims", "review", "--set", claim_id, "--text", "انتشار الوباء"])
    assert incomplete.exit_code == 2 and "--reviewer" in incomplete.output
    done = cli.invoke(app, ["claims", "review", "--set", claim_id, "--text", "انتشار الوباء في الشارقة", "--reviewer", "r1"])
    assert done.exit_code == 0, done.output
    assert claim_id not in cli.invoke(app, ["claims", "review"]).output
    assert "انتشار الوباء في الشارقة" in cli.invoke(app, ["claims", "overrides"]).output
    broken = write_run(tmp_path / "araanews-2", "araanews", ARAANEWS_POSTS[:1])
    (broken / "claims.jsonl").write_text("{not json\n", encoding="utf-8")
    failed = cli.invoke(app, ["claims", "load", str(broken)])
    assert failed.exit_code == 2 and "line 1: not valid JSON" in failed.output


def test_clusters_follow_edited_claims(warehouse: Warehouse, tmp_path: Path) -> None:
    twins = [
        StagedPost("/2016/05/x/", "حقيقة إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب الإنفلونزا"),
        StagedPost("/2016/05/y/", "شائعة: إغلاق جميع المدارس في دبي لمدة أسبوعين بسبب انتشار الإنفلونزا"),
    ]
    assert load_crawl_run(warehouse, write_run(tmp_path / "a1", "araanews", twins)).new_cluster_rows == 2
    same = [StagedPost(**{**p.__dict__, "fetched_at": "2018-04-01T00:00:00+00:00"}) for p in twins]
    unchanged = load_crawl_run(warehouse, write_run(tmp_path / "a2", "araanews", same))
    assert (unchanged.new_cluster_rows, warehouse.scalar("SELECT count(*) FROM claim_clusters")) == (0, 2)
    edited = [same[0], StagedPost("/2016/05/y/", "حقيقة ارتفاع أسعار الذهب في الشارقة", fetched_at="2018-05-01T00:00:00+00:00")]
    load_crawl_run(warehouse, write_run(tmp_path / "a3", "araanews", edited))
    assert warehouse.scalar("SELECT count(*) FROM claim_clusters") == 0


def test_bare_noun_phrase_claims_go_to_review_when_asked(
    warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After its framing is stripped, "وفاة الفنان ..." states nothing yet: the method's annotators
    wrote it out as a claim, so with crawl.noun_phrase_claims=review a person does."""
    from arastance.config import load_settings

    monkeypatch.setenv("ARASTANCE_CRAWL__NOUN_PHRASE_CLAIMS", "review")
    report = load_crawl_run(warehouse, write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS),
                            settings=load_settings())
    rows = {r["url"].rsplit("/", 2)[-2]: (r["status"], r["status_reason"])
            for r in warehouse.query("SELECT url, status, status_reason FROM claims")}
    assert rows["school-1"] == ("review", "noun_phrase")   # إغلاق المدارس في دبي ...
    assert rows["artist-2"] == ("review", "noun_phrase")   # وفاة الفنان ...
    assert rows["nodate-6"] == ("review", "noun_phrase")   # رفع أسعار الوقود ...
    assert rows["minister-5"] == ("review", "residual_framing")  # a sentence: reviewed for its own reason
    assert report.statuses == {"review": 4, "excluded": 2}


@pytest.mark.parametrize("text", ["\u200f\u200e\u200b", " \u200b \u200f ", "   "])
def test_an_override_of_blanks_or_invisible_marks_is_refused(warehouse: Warehouse, tmp_path: Path, text: str) -> None:
    from tasks.claim_load.overrides import set_claim_override

    load_crawl_run(warehouse, write_run(tmp_path / "araanews-1", "araanews", ARAANEWS_POSTS))
    [queued] = claims_db.review_queue(warehouse)
    # it was: stored, the claim made active with normalized_text '' and content_hash sha256("")
    with pytest.raises(ValueError, match=f"override text for claim '{queued['claim_id']}' is empty"):
        set_claim_override(warehouse, queued["claim_id"], text, reviewer="reviewer-1")
    assert warehouse.query("SELECT count(*) AS n FROM claim_overrides") == [{"n": 0}]
    assert claims_db.review_queue(warehouse) == [queued]


def test_review_knows_the_source_of_claims_loaded_from_a_dataset(warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.dataset.load_export import load_export

    release = tmp_path / "release"
    release.mkdir()
    line = {"claim": "إغلاق المدارس في الرياض", "article": ["نص الخبر"], "stance": ["Agree"]}
    (release / "train.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    load_export(warehouse, release, source_id="arastance")
    # it was: "--source 'arastance' is not a stored source; known: none yet"
    assert claims_db.review_queue(warehouse, source_id="arastance") == []
    with pytest.raises(ValueError, match="--source 'arastanc' is not a stored source; known: arastance$"):
        claims_db.review_queue(warehouse, source_id="arastanc")
