"""Benchmark: train the ensemble kind (CPU model + fine-tuned e5-small) on a public corpus and score dev.

Prints the training time, the weight chosen on held-out training claims with every candidate's
held-out macro-F1, then dev macro-F1, accuracy and per-class F1 of each member alone, of the
ensemble at every weight of the grid (for reading only: the product never looks at dev), and of the
chosen weight, with the ensemble's prediction speed on dev pairs (new to it unless an earlier run
left their e5 vectors in the embedding cache). The members'
settings come from the ``model.ensemble_*`` settings (``ARASTANCE_MODEL__ENSEMBLE_WEIGHT=0.3`` fixes
the weight and trains both members on every pair)::

    .venv/bin/python benchmarks/bench_ensemble.py --dataset khouja --path ../shared/datasets/ans/stance
    .venv/bin/python benchmarks/bench_ensemble.py --dataset baly --path ../shared/datasets/unifiedfc

Without ``--path`` the corpus is read from its configured place (Khouja by default: ``ans/stance`` under
setting ``model.datasets_dir``, a relative path relative to the repository, as for bench_stance_models.py);
a corpus that is not there is skipped with a message, so that ``make bench`` goes on to the next benchmark.

Measured 2026-12-02 on the 2-core machine: see the README, "The ensemble (`--kind ensemble`)".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arastance.config import load_settings  # noqa: E402
from arastance.logging import configure_logging  # noqa: E402
from tasks.stance.datasets import LOADERS  # noqa: E402
from tasks.stance.ensemble import WEIGHT_GRID, EnsembleStanceModel  # noqa: E402
from tasks.stance.metrics import Evaluation, evaluate, interval_text, per_class_text  # noqa: E402
from tasks.stance.model import create_model  # noqa: E402
from tasks.stance.runs import corpus_scheme, dataset_path, load_examples  # noqa: E402


def line(name: str, scores: Evaluation) -> str:
    return (f"{name:<14} macro-F1 {scores.macro_f1:.3f}{interval_text(scores, ' ', 3)}  accuracy {scores.accuracy:.3f}  "
            f"[{per_class_text(scores)}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(set(LOADERS) - {"warehouse"}), default="khouja")
    parser.add_argument("--path", type=Path, help="the corpus directory (default: the dataset's configured place)")
    parser.add_argument("--limit", type=int, help="use only the first N pairs of each split (smoke run)")
    args = parser.parse_args()
    configure_logging()  # training takes minutes: show its progress

    settings = load_settings()
    path = args.path or REPO / dataset_path(settings, args.dataset)
    if args.path is None and not path.is_dir():
        print(f"{args.dataset} corpus not found at {path}: nothing to benchmark (see --path)")
        return
    scheme = corpus_scheme(args.dataset, path)
    train, dev = (load_examples(args.dataset, path, split, scheme)[: args.limit] for split in ("train", "dev"))
    model = create_model("ensemble", settings.model, scheme, embedding_cache=settings.embedding_cache)
    assert isinstance(model, EnsembleStanceModel)
    started = time.perf_counter()
    model.fit(train)
    print(f"{args.dataset}: {len(train)} training pairs, {len(dev)} dev pairs; {model.name} trained in "
          f"{time.perf_counter() - started:.0f} s")
    weighting = model.weighting
    print(f"weight {model.weight:.2f} on the CPU model, from the {weighting['from']}"
          + (f" ({weighting['held_out_pairs']} pairs; {weighting['rule']}: best {weighting['best']['macro_f1']:.3f} at "
             f"{weighting['best']['weight']:.2f}, standard error {weighting['standard_error']:.3f})"
             if "rule" in weighting else ""))
    for candidate in weighting.get("candidates", []):
        print(f"  held-out  w {candidate['weight']:.2f}  macro-F1 {candidate['macro_f1']:.3f}")

    gold = [str(ex.label) for ex in dev]
    started = time.perf_counter()
    cpu, encoder = model.cpu.predict_proba(dev), model.transformer.predict_proba(dev)
    seconds = time.perf_counter() - started

    def scored(proba: np.ndarray) -> Evaluation:
        return evaluate(gold, [model.labels[i] for i in proba.argmax(axis=1)], model.labels,
                        groups=[ex.claim_id for ex in dev])

    print(line("CPU model", scored(cpu)))
    print(line("encoder", scored(encoder)))
    for w in WEIGHT_GRID[::2]:
        print(line(f"dev w {w:.2f}", scored(w * cpu + (1 - w) * encoder)))
    print(line(f"ensemble {model.weight:.2f}", scored(model.weight * cpu + (1 - model.weight) * encoder)))
    print(f"prediction (both members, dev pairs unseen in training): {len(dev) / seconds:.0f} pairs/s")


if __name__ == "__main__":
    main()
