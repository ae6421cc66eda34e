"""The synthetic world: deterministic, big enough, consistent with itself and the contract."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import FrozenInstanceError
from datetime import date

import pytest

from snapshots.world import SITES, STANCES, build_world
from snapshots.world.builder import SEED
from arastance.base.arabic import arabic_ratio

from helpers_world import world_digest

FIRST, LAST = date(2012, 1, 1), date(2018, 12, 31)


def test_two_builds_are_equal_and_the_world_is_cached() -> None:
    fresh = build_world.__wrapped__(SEED)
    again = build_world.__wrapped__(SEED)
    assert fresh == again
    assert build_world() is build_world()
    assert build_world() == fresh


def test_another_process_with_another_hash_seed_builds_the_same_world() -> None:
    code = "from snapshots.world import build_world; from helpers_world import world_digest; print(world_digest(build_world()))"
    tests_dir = os.path.dirname(__file__)
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": os.pathsep.join([tests_dir, *sys.path])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == world_digest(build_world())


def test_a_different_seed_gives_a_different_world() -> None:
    other = build_world.__wrapped__("another-seed")
    assert [r.statement for r in other.rumours] != [r.statement for r in build_world().rumours]


def test_build_is_fast() -> None:
    # CPU time, not wall time: the machine is shared and a busy neighbour must not fail this
    started = time.process_time()
    build_world.__wrapped__(SEED)
    assert time.process_time() - started < 1.0


def test_sizes() -> None:
    w = build_world()
    assert len(w.rumours) >= 100
    per_site = Counter(p.site for p in w.posts)
    assert set(per_site) == set(SITES)
    assert min(per_site.values()) >= 40
    assert len(w.headlines) >= 200
    assert len(w.articles) >= 300
    assert len({r.category for r in w.rumours}) >= 7


def test_records_are_frozen() -> None:
    w = build_world()
    with pytest.raises(FrozenInstanceError):
        w.rumours[0].statement = "x"  # type: ignore[misc]
    assert isinstance(w.posts[0].body, tuple)


def test_ids_are_unique() -> None:
    w = build_world()
    for ids in ([r.rumour_id for r in w.rumours], [p.post_id for p in w.posts],
                [h.headline_id for h in w.headlines], [a.article_id for a in w.articles], [a.url for a in w.articles]):
        assert len(ids) == len(set(ids))
    assert len({r.statement for r in w.rumours}) == len(w.rumours)
    assert len({h.title for h in w.headlines}) == len(w.headlines)


def test_every_post_debunks_a_known_rumour_and_paths_are_unique_per_site() -> None:
    w = build_world()
    rumour_ids = {r.rumour_id for r in w.rumours}
    assert all(p.rumour_id in rumour_ids for p in w.posts)
    for site in SITES:
        paths = [p.path for p in w.posts if p.site == site]
        assert len(paths) == len(set(paths))
        assert all(p.startswith("/") and p.endswith("/") for p in paths)
    post_ids = {p.post_id for p in w.posts}
    for post in w.posts:
        if post.repost_of is not None:
            original = next(p for p in w.posts if p.post_id == post.repost_of)
            assert original.site == post.site and original.rumour_id == post.rumour_id
            assert post.repost_of in post_ids and post.path != original.path


def test_dates_lie_in_2012_2018() -> None:
    w = build_world()
    days = [r.date for r in w.rumours] + [p.published for p in w.posts if p.published] + [a.published for a in w.articles]
    days += [h.published.date() for h in w.headlines]
    assert all(FIRST <= d <= LAST for d in days)
    years = Counter(h.published.year for h in w.headlines)
    assert set(years) == set(range(2012, 2019))
    assert min(years.values()) >= 20


def test_the_special_cases_are_all_present() -> None:
    w = build_world()
    dropped = [p for p in w.posts if p.expected_claim is None]
    assert any(p.multimedia for p in dropped)
    assert any(p.claim_text == "" and not p.multimedia for p in dropped)
    assert all(p.multimedia or p.claim_text == "" for p in dropped)
    assert sum(p.published is None for p in w.posts) >= 3
    assert sum(p.repost_of is not None for p in w.posts) >= 3
    sites_of = Counter()
    for rumour_id in {p.rumour_id for p in w.posts}:
        sites_of[len({p.site for p in w.posts if p.rumour_id == rumour_id})] += 1
    assert sites_of[2] >= 5  # same rumour debunked on two sites


def test_expected_claim_is_the_claim_block_without_its_framing() -> None:
    w = build_world()
    kept = [p for p in w.posts if p.expected_claim is not None]
    for post in kept:
        assert post.expected_claim in post.claim_text
        assert post.expected_claim != post.claim_text
        assert not post.expected_claim.endswith("؟")
    framings = Counter(p.claim_text.replace(p.expected_claim, "{claim}") for p in kept)
    assert len(framings) >= 6


def test_rumour_entities_are_named_in_the_statement() -> None:
    w = build_world()
    for rumour in w.rumours:
        assert rumour.entities
        assert all(entity in rumour.statement for entity in rumour.entities), rumour


def test_text_is_arabic() -> None:
    w = build_world()
    texts = [r.statement for r in w.rumours] + [p.title for p in w.posts] + [h.title for h in w.headlines]
    texts += [" ".join(a.body) for a in w.articles]
    assert all(arabic_ratio(t) > 0.9 for t in texts)
    assert not any("{" in t or "}" in t for t in texts)


def test_articles_cover_every_stance_for_each_rumour_and_stay_near_its_date() -> None:
    w = build_world()
    by_topic: dict[str, list] = {}
    for a in w.articles:
        by_topic.setdefault(a.topic_id, []).append(a)
    for rumour in w.rumours:
        stances = {a.stance for a in by_topic[rumour.rumour_id]}
        assert {"agree", "disagree", "discuss"} <= stances
        assert all(abs((a.published - rumour.date).days) <= 45 for a in by_topic[rumour.rumour_id])
    assert Counter(a.stance for a in w.articles).keys() == set(STANCES)
    assert all(3 <= len(a.body) <= 8 for a in w.articles)
    assert len({a.domain for a in w.articles}) >= 12
    assert all(a.url == f"https://{a.domain}{a.path}" for a in w.articles)


def test_every_rumour_has_a_similar_but_unrelated_article() -> None:
    """Same entities, another event, near the rumour's date: the hard negatives of stance detection."""
    w = build_world()
    for rumour in w.rumours:
        similar = [
            a for a in w.articles
            if abs((a.published - rumour.date).days) <= 90
            and w.gold_stance(rumour.rumour_id, a.url) == "unrelated"
            and any(e in a.title + " ".join(a.body) for e in rumour.entities)
        ]
        assert similar, rumour.rumour_id


def test_gold_stance() -> None:
    w = build_world()
    article = next(a for a in w.articles if a.stance == "disagree")
    assert w.gold_stance(article.topic_id, article.url) == "disagree"
    other = next(r for r in w.rumours if r.rumour_id != article.topic_id)
    assert w.gold_stance(other.rumour_id, article.url) == "unrelated"
    assert w.gold_stance(article.topic_id, "https://example.com/nothing/") == "unrelated"
    # the same page through the offline mirror, with www. and without the trailing slash
    mirrored = f"http://127.0.0.1:8123/mirror/{article.domain}{article.path}"
    assert w.gold_stance(article.topic_id, mirrored) == "disagree"
    assert w.gold_stance(article.topic_id, article.url.replace("https://", "https://www.").rstrip("/")) == "disagree"
    about_headline = next(a for a in w.articles if a.topic_id and a.topic_id.startswith("reu-"))
    assert w.gold_stance(about_headline.topic_id, about_headline.url) == "agree"


def test_topic_lookups() -> None:
    w = build_world()
    post = w.posts[7]
    assert w.topic_of_post(post.site, post.path) == post.rumour_id
    assert w.topic_of_post(post.site, f"/{post.site}{post.path}") == post.rumour_id
    assert w.topic_of_post(post.site, post.path.rstrip("/")) == post.rumour_id
    assert w.topic_of_post(post.site, f"http://127.0.0.1:8123/{post.site}{post.path}") == post.rumour_id
    assert w.topic_of_post(post.site, f"https://{post.site}.example{post.path}") == post.rumour_id
    assert w.topic_of_post(post.site, "/no/such/page/") is None
    other_site = next(s for s in SITES if s != post.site)
    assert w.topic_of_post(other_site, post.path) != post.rumour_id
    headline = w.headlines[3]
    assert w.topic_of_headline(headline.path) == headline.headline_id
    assert w.topic_of_headline("/reuters" + headline.path) == headline.headline_id
    assert w.topic_of_headline("http://127.0.0.1:8123/reuters" + headline.path) == headline.headline_id
    assert w.topic_of_headline("https://ara.reuters.com" + headline.path) == headline.headline_id
    assert w.topic_of_headline("/article/none/idARAKBN000") is None
    with pytest.raises(KeyError, match="rum-999"):
        w.rumour("rum-999")
    rumour = w.rumours[5]
    about = w.articles_about(rumour.rumour_id)
    assert about and all(a.topic_id == rumour.rumour_id for a in about)


def test_some_headlines_are_close_to_rumours_in_entities_and_time() -> None:
    w = build_world()
    close = 0
    for rumour in w.rumours:
        for h in w.headlines:
            near = abs((h.published.date() - rumour.date).days) <= 90
            if near and any(e in h.title or e in " ".join(h.body) for e in rumour.entities if len(e) > 4):
                close += 1
                break
    assert close >= 40
    assert close <= len(w.rumours) * 0.8  # most rumours have no true twin


def test_corpus_records() -> None:
    w = build_world()
    records = w.corpus_records()
    assert len(records) == len(w.articles)
    first = records[0]
    assert set(first) == {"url", "title", "text", "published_date", "domain"}
    assert date.fromisoformat(first["published_date"]) == w.articles[0].published
    assert first["text"].split("\n\n") == list(w.articles[0].body)
