"""Benchmark: true-claim selection for 10k seeds x 200k headlines (target: < 60 s, < 4 GiB).

Synthetic Arabic-like text: pseudo-words spelled with Arabic letters, grouped into topics;
every claim mixes words of one topic with frequent "function" words (Zipf-distributed), dates
spread over 2012-2018, with a few multimedia, undated and repeated headlines so that the
screening runs too. Prints the wall time of each stage, the whole selection and the peak
resident memory of the process (ru_maxrss, generation included), and the CPU time, which
tells a slow machine (other jobs running) from slow code.

    .venv/bin/python benchmarks/bench_true_claims.py [--seeds 10000] [--headlines 200000]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arastance.config.selection import SelectionSettings  # noqa: E402
from tasks.true_claims.select import ClaimRecord, select_true_claims  # noqa: E402

LETTERS = list("ابتثجحخدذرزسشصضطظعغفقكلمنهوي")
START, DAYS = date(2012, 1, 1), (date(2018, 12, 31) - date(2012, 1, 1)).days + 1


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    words = {"".join(rng.choice(LETTERS, size=int(rng.integers(3, 8)))) for _ in range(int(size * 1.2))}
    return np.array(sorted(words)[:size])


def _texts(rng: np.random.Generator, n: int, words: np.ndarray, topics: np.ndarray, lo: int, hi: int) -> list[str]:
    """``n`` texts: about two thirds topic words, the rest frequent general words."""
    n_topics, per_topic = topics.shape
    common_p = 1.0 / np.arange(1, words.size + 1) ** 1.1
    common_p /= common_p.sum()
    lengths = rng.integers(lo, hi, size=n)
    topic_of = rng.integers(0, n_topics, size=n)
    total = int(lengths.sum())
    topic_words = topics[np.repeat(topic_of, lengths), rng.integers(0, per_topic, size=total)]
    common_words = rng.choice(words.size, size=total, p=common_p)
    use_topic = rng.random(total) < 0.66
    ids = np.where(use_topic, topic_words, common_words)
    bounds = np.r_[0, np.cumsum(lengths)]
    return [" ".join(words[ids[bounds[i]:bounds[i + 1]]]) for i in range(n)]


def make_claims(n_seeds: int, n_heads: int, seed: int = 7) -> tuple[list[ClaimRecord], list[ClaimRecord]]:
    rng = np.random.default_rng(seed)
    words = _vocabulary(rng, 60_000)
    topics = rng.integers(0, words.size, size=(2_000, 40))
    seed_texts = _texts(rng, n_seeds, words, topics, 8, 20)
    head_texts = _texts(rng, n_heads, words, topics, 7, 14)
    for i in rng.integers(0, n_heads, size=n_heads // 200):  # 0.5 % repeated headlines
        head_texts[int(i)] = head_texts[int(i) - 1]
    seed_days = rng.integers(0, DAYS, size=n_seeds)
    head_days = rng.integers(0, DAYS, size=n_heads)
    seeds = [ClaimRecord(f"s{i:06d}", t, START + timedelta(days=int(d)) if i % 250 else None)
             for i, (t, d) in enumerate(zip(seed_texts, seed_days))]
    heads = [ClaimRecord(f"h{i:07d}", t, START + timedelta(days=int(d)) if i % 400 else None, i % 97 == 0)
             for i, (t, d) in enumerate(zip(head_texts, head_days))]
    return seeds, heads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10_000)
    parser.add_argument("--headlines", type=int, default=200_000)
    parser.add_argument("--analyzer", choices=["word", "char"], default="word")
    parser.add_argument("--check-determinism", action="store_true", help="run again on reversed input and compare")
    args = parser.parse_args()

    t0 = time.perf_counter()
    seeds, heads = make_claims(args.seeds, args.headlines)
    t1, c1 = time.perf_counter(), time.process_time()
    result = select_true_claims(seeds, heads, SelectionSettings(analyzer=args.analyzer))
    t2, c2 = time.perf_counter(), time.process_time()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    summary = result.summary()
    print(f"true-claim selection benchmark: {args.seeds} seeds x {args.headlines} headlines, analyzer={args.analyzer}")
    print(f"  synthetic data generation : {t1 - t0:7.1f} s")
    print(f"  selection (screen, TF-IDF, windowed top-k): {t2 - t1:7.1f} s  (target < 60 s)")
    print(f"  selection CPU time (all threads): {c2 - c1:7.1f} s  (wall minus this = waiting on a busy machine)")
    print(f"  peak resident memory      : {peak_mib:7.0f} MiB  (target < 4096 MiB)")
    print(f"  seeds used / matched      : {summary['seeds_used']} / {summary['seeds_matched']}")
    print(f"  headlines eligible        : {summary['headlines_eligible']}")
    print(f"  matches / distinct chosen : {summary['matches']} / {summary['selected_headlines']}")
    print(f"  excluded                  : {summary['excluded']}")
    if args.check_determinism:
        again = select_true_claims(seeds[::-1], heads[::-1], SelectionSettings(analyzer=args.analyzer))
        print(f"  same result on reversed input: {again == result}")
    if t2 - t1 > 60 or peak_mib > 4096:
        raise SystemExit("benchmark target missed")


if __name__ == "__main__":
    main()
