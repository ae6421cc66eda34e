"""Archive discovery keeps a claim page's captures whatever spelling the archive holds them under:
the claim-URL pattern is tested on the canonical URL, as live discovery tests it. A real CDX
server on 127.0.0.1 lists the captures."""

from __future__ import annotations

from pathlib import Path

from arastance.config import load_settings
from helpers_search import ApiServer, Reply, SeenRequest
from tasks.crawl_runner import archive_claim_captures

POST = "dabegad.com/society/3401-child-kidnapping-gang/"
#: AMP and tracking-parameter captures of one post (the earliest first), then pages that are no claim.
CAPTURES = [
    ("20150101000000", f"http://{POST}amp/"),
    ("20150102000000", f"http://www.{POST}?utm_source=facebook&utm_medium=social"),
    ("20150103000000", f"http://{POST}?fbclid=IwAR0abc"),
    ("20150104000000", f"http://{POST}?amp"),
    ("20150105000000", f"http://www.{POST}"),
    ("20150106000000", "http://dabegad.com/category/%d8%b5%d8%ad%d8%a9/page/2/?utm_source=x"),
    ("20150107000000", "http://dabegad.com/wp-content/uploads/2015/01/a.jpg"),
]


def test_amp_and_tracking_captures_of_a_claim_page_are_its_captures(tmp_path: Path) -> None:
    # it was: the pattern was tested on the raw URL: every capture but the plain one was "not a claim URL",
    # and a post the archive holds only as AMP or with utm_ parameters was never crawled
    def answer(request: SeenRequest) -> Reply:
        return Reply(body=[["timestamp", "original"], *[list(c) for c in CAPTURES]])

    cdx = ApiServer(answer)
    with cdx.running():
        settings = load_settings(data_dir=tmp_path, crawl={"archive_url": cdx.url + "/", "archive_delay_s": 0.0})
        chosen, counts = archive_claim_captures("dabegad", settings)
    assert [(c.timestamp, c.original) for c in chosen] == [CAPTURES[0]], "the earliest spelling, fetched as captured"
    assert counts["archive_duplicate_spelling"] == 4 and counts["archive_not_claim_url"] == 2
