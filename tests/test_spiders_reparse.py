"""A claim page parsed live (the site spider's callback on Scrapy's response, with the server's
``Content-Type``) and re-parsed from its stored bytes (``arastance reparse``) gives one claim: the
same text whatever charset the header declared, and no page that stops the run."""

from __future__ import annotations

import json
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from arastance.base.staging import StoredPage, page_id_of
from spiders.crawlers.sites import SPIDERS
from spiders.reparse import reparse_pages
from spiders.staging import StagingRun, read_run

BASE = "https://dabegad.com/"
URL = BASE + "society/3401-child-kidnapping-gang/"
TITLE, CLAIM = "حقيقة عصابة خطف الأطفال في الجيزة", "عصابة تخطف الأطفال من أمام المدارس في الجيزة"
PAGE = ('<!DOCTYPE html><html lang="ar" dir="rtl"><head>{meta}<title>عصابة خطف أطفال - دا بجد</title></head><body>'
        f'<article class="post"><h1 class="entry-title">{TITLE}</h1>'
        '<time class="entry-date published" datetime="2016-05-03T09:00:00+02:00">3 مايو 2016</time>'
        f'<div class="entry"><blockquote><p>{CLAIM}</p></blockquote>'
        '<p>تداول رواد مواقع التواصل الاجتماعي خبرا عن عصابة لخطف الأطفال.</p></div></article></body></html>')


def live_claims(site: str, base: str, url: str, body: bytes, content_type: str) -> list[Any]:
    """The items the site spider's detail callback yields for ``body`` served with ``content_type``."""
    spider = SPIDERS[site].from_crawler(get_crawler(SPIDERS[site], {"ARASTANCE_SITE_URLS": {site: base}}))
    spider.crawler.stats.open_spider()
    return list(spider.parse_detail(HtmlResponse(url=url, body=body, headers={"Content-Type": content_type})))


def stored(url: str, body: bytes, site: str, second: int = 0) -> StoredPage:
    page_id, digest = page_id_of(url, body)
    return StoredPage(page_id=page_id, url=url, source_id=site, fetched_at=datetime(2024, 1, 1, 0, 0, second),
                      http_status=200, content_hash=digest, html_zlib=zlib.compress(body))


@pytest.mark.parametrize("body, content_type", [
    # windows-1256 page whose <meta> says so, served with Apache's default charset=ISO-8859-1 header
    (PAGE.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=windows-1256">').encode("cp1256"),
     "text/html; charset=ISO-8859-1"),
    # UTF-8 page whose header still names the old site's windows-1256
    (PAGE.format(meta='<meta charset="utf-8">').encode("utf-8"), "text/html; charset=windows-1256"),
    # windows-1256 page whose charset only the header names (the stored bytes carry no declaration)
    (PAGE.format(meta="").encode("cp1256"), "text/html; charset=windows-1256"),
], ids=["cp1256_declared_latin1", "utf8_declared_cp1256", "cp1256_header_only"])
def test_live_and_reparse_read_the_same_bytes_as_the_same_claim(body: bytes, content_type: str, tmp_path: Path) -> None:
    # it was: live took Scrapy's reading (the header wins) and stored mojibake as "ok", while reparse of
    # the same bytes gave the right claim
    [live] = live_claims("dabegad", BASE, URL, body, content_type)
    _, run_dir = reparse_pages([stored(URL, body, "dabegad")], "dabegad", BASE, tmp_path)
    _, [again], _ = read_run(run_dir)
    assert (live.title, live.claim_text, live.published_date) == (TITLE, CLAIM, "2016-05-03")
    assert (again["title"], again["claim_text"], again["published_date"]) == (TITLE, CLAIM, "2016-05-03")


NORUMORS = "https://norumors.net/"
RUMOUR = ('<html><head><meta charset="utf-8"><script type="application/ld+json">{{"@type":"ClaimReview",'
          '"claimReviewed":"{claim}","reviewRating":{{"alternateName":"شائعة"}}}}</script></head><body>'
          '<section class="rumor"><h1 class="rumor__title">{title}</h1></section></body></html>')
HALF_EMOJI = RUMOUR.format(claim="فيديو مزيف \\ud83d", title="فيديو مزيف")  # JSON's escape of half an emoji


def test_a_claim_with_half_an_emoji_is_staged_live_with_a_replacement_character(tmp_path: Path) -> None:
    # it was: the page was staged "ok" and its claim line raised UnicodeEncodeError: a claim silently lost
    [claim] = live_claims("norumors", NORUMORS, NORUMORS + "rumors/561/", HALF_EMOJI.encode(), "text/html; charset=utf-8")
    with StagingRun(tmp_path / "run", "run", "norumors") as run:
        run.write_claim(claim)
    [line] = (tmp_path / "run" / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["claim_text"] == "فيديو مزيف \ufffd"


def test_reparse_reads_every_page_when_one_holds_half_an_emoji(tmp_path: Path) -> None:
    # it was: the claim write raised outside the per-page try: reparse aborted, its run left unfinished
    pages = [RUMOUR.format(claim="صورة لسيل في جدة", title="سيل جدة"), HALF_EMOJI,
             RUMOUR.format(claim="توزيع جوائز", title="جوائز")]
    stored_pages = [stored(f"{NORUMORS}rumors/{560 + i}/", html.encode(), "norumors", i) for i, html in enumerate(pages)]
    summary, run_dir = reparse_pages(stored_pages, "norumors", NORUMORS, tmp_path)
    _, claims, staged = read_run(run_dir)
    assert (summary.pages, summary.items, summary.errors) == (3, 3, 0)
    assert [c["claim_text"] for c in claims] == ["صورة لسيل في جدة", "فيديو مزيف \ufffd", "توزيع جوائز"]
    assert {p["page_id"] for p in staged} == {c["page_id"] for c in claims}
    assert all(p["parse_status"] == "ok" for p in staged)
