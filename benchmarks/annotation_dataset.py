"""Annotation campaign and dataset build at scale: timings and the resulting figures.

Builds a throw-away warehouse with synthetic claims, articles and pairs, runs a simulated
pilot/production/adjudication campaign through the real file export and import path, then
builds the dataset as ``build_dataset`` does (gold labels, flags and splits in one transaction:
its time is how long the build keeps other writers waiting) and exports it. Prints the time of
each step, the agreement of each round, how far the gold labels are from the simulated truth,
and the split sizes.

    .venv/bin/python benchmarks/annotation_dataset.py [--claims 1000] [--articles 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from datetime import date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arastance.base.ids import stable_id  # noqa: E402
from arastance.config.annotation import AnnotationSettings  # noqa: E402
from snapshots.demo.campaign import run_demo_campaign  # noqa: E402
from tasks.annotation.workflow import decide_gold_labels  # noqa: E402
from tasks.dataset.assemble import assign_claim_splits, flag_unrelated_claims  # noqa: E402
from tasks.dataset.export import export_dataset  # noqa: E402
from warehouse import open_warehouse  # noqa: E402

STANCES = ("agree", "disagree", "discuss", "unrelated", "unrelated", "unrelated")


def _populate(wh, n_claims: int, n_articles: int) -> dict[str, str]:
    now = datetime(2021, 1, 1)
    claims, articles, pairs, truth = [], [], [], {}
    for i in range(n_claims):
        source = ("araanews", "dabegad", "norumors", "reuters")[i % 4]
        url = f"https://{source}.example/{i}/"
        cid = stable_id(source, url)
        claims.append({"claim_id": cid, "source_id": source, "url": url, "canonical_url": url, "cleaned_text": f"ادعاء {i}",
                       "veracity": "true" if source == "reuters" else "false", "published_date": date(2018, 1, 1),
                       "first_seen": now, "last_seen": now})
        for j in range(n_articles):
            a_url = f"https://news{j}.example/{i}-{j}"
            aid = stable_id(a_url)
            articles.append({"article_id": aid, "url": a_url, "canonical_url": a_url, "title": f"خبر {j}", "text": "نص " * 200})
            pid = stable_id(cid, aid)
            pairs.append({"pair_id": pid, "claim_id": cid, "article_id": aid, "rank": j + 1, "created_at": now})
            truth[pid] = "unrelated" if i % 9 == 0 else STANCES[int(pid, 16) % len(STANCES)]
    with wh.transaction():
        wh.insert_rows("claims", claims)
        wh.insert_rows("articles", articles)
        wh.insert_rows("claim_article_pairs", pairs)
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--articles", type=int, default=5)
    parser.add_argument("--pilot", type=int, default=100)
    args = parser.parse_args()
    cfg = AnnotationSettings(pilot_size=args.pilot)
    with tempfile.TemporaryDirectory() as tmp, open_warehouse(Path(tmp) / "bench.duckdb") as wh:
        t0 = time.perf_counter()
        truth = _populate(wh, args.claims, args.articles)
        t1 = time.perf_counter()
        campaign = run_demo_campaign(wh, cfg, lambda t: truth[t.pair_id], Path(tmp) / "campaign", seed=1)
        t2 = time.perf_counter()
        with wh.transaction():  # as the build_dataset flow's write steps: the file is held for all of it
            decided = decide_gold_labels(wh, cfg)
            flags = flag_unrelated_claims(wh)
            split = assign_claim_splits(wh, cfg)
        t3 = time.perf_counter()
        summary = export_dataset(wh, Path(tmp) / "dataset")
        t4 = time.perf_counter()
        gold = {r["pair_id"]: r["label"] for r in wh.query("SELECT pair_id, label FROM gold_labels")}
        methods = Counter(r["method"] for r in wh.query("SELECT method FROM gold_labels"))

    pairs = len(truth)
    print(f"pairs: {pairs} ({args.claims} claims x {args.articles} articles); pilot {args.pilot} pairs x 3 annotators")
    print(f"populate warehouse      {t1 - t0:7.2f} s")
    print(f"campaign (export, simulate, import, adjudicate; {campaign.annotations} annotations, rounds {campaign.rounds})"
          f" {t2 - t1:7.2f} s = {campaign.annotations / (t2 - t1):.0f} annotations/s")
    print(f"build (decide + flag + split, one transaction) {t3 - t2:7.2f} s  ({len(decided)} pairs decided, "
          f"{flags.flagged} claims left out, {split.assigned} split)")
    print(f"export jsonl + parquet  {t4 - t3:7.2f} s  ({sum(summary.pairs.values())} pairs)")
    for r in campaign.reports:
        s = r.shares
        print(f"{r.round:>8}: kappa {r.kappa:.3f} over {r.kappa_pairs} pairs x {r.raters_per_pair}; full {s.share(s.full):.1%}, "
              f"partial {s.share(s.partial):.1%}, none {s.share(s.none):.1%}; top confusion "
              f"{r.confusion[0]['label_a']}-{r.confusion[0]['label_b']} ({r.confusion[0]['share']:.0%})")
    right = sum(gold[p] == truth[p] for p in gold)
    print(f"gold labels: {len(gold)} of {pairs} pairs, {dict(methods)}; equal to the simulated truth: {right / len(gold):.1%}")
    print(f"splits (claims): {summary.claims}; pairs: {summary.pairs}")


if __name__ == "__main__":
    main()
