"""Model-assisted annotation on the demo world: labels needed with uncertainty ordering vs random.

Replays annotation on the demo's training split: the gold labels there are what the demo's
simulated annotators (pilot, production, adjudication) decided, so revealing a pair's gold label
stands for having the team label it. Both orderings start from the same random seed set; then,
batch after batch, *uncertainty* labels the pairs the current model is least sure of (smallest
margin between its two most probable labels, as ``annotate export --predictions`` does) and
*random* labels a random batch (the export's default). After every batch a model is trained on
the labels so far and scored on the demo's test split. The target is the test macro-F1 of the
same model trained on every training label (the demo's current figure).

    make demo        # or: .venv/bin/arastance demo   (writes data/demo/)
    .venv/bin/python benchmarks/bench_active_annotation.py [--data-dir data/demo] [--batch 20]

Prints both curves, the labels each ordering needed to reach the target (and 95 % of it), and
writes a PNG plot. Random ordering is averaged over ``--repeats`` seeds. On a shared machine the
timings vary with the load.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tasks.annotation.prelabel import margin_uncertainty  # noqa: E402
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel  # noqa: E402
from tasks.stance.datasets import load_split  # noqa: E402
from tasks.stance.metrics import evaluate  # noqa: E402


def score(config: CpuModelConfig, train, test) -> tuple[CpuStanceModel, float]:
    model = CpuStanceModel(config).fit(train)
    return model, evaluate([e.label for e in test], model.predict(test), model.labels).macro_f1


def curve(config: CpuModelConfig, pool, test, start: list[int], batch: int, order: str,
          rng: np.random.Generator) -> list[tuple[int, float]]:
    """(labels so far, test macro-F1) after the seed set and after each batch."""
    labelled = list(start)
    points = []
    while True:
        model, f1 = score(config, [pool[i] for i in labelled], test)
        points.append((len(labelled), f1))
        taken = set(labelled)
        rest = [i for i in range(len(pool)) if i not in taken]
        if not rest:
            return points
        if order == "uncertainty":
            unsure = margin_uncertainty(model.predict_proba([pool[i] for i in rest]))
            labelled += [rest[j] for j in np.argsort(-unsure, kind="stable")[:batch]]
        else:
            labelled += list(rng.choice(rest, size=min(batch, len(rest)), replace=False))


def labels_to_reach(points: list[tuple[int, float]], target: float) -> int | None:
    return next((n for n, f1 in points if f1 >= target - 1e-9), None)


def plot(curves: dict[str, list[tuple[int, float]]], target: float, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for name, points in curves.items():
        ax.plot(*zip(*points), marker="o", markersize=3, label=name)
    ax.axhline(target, color="grey", linestyle="--", label=f"all labels ({target:.3f})")
    ax.set_xlabel("labelled training pairs")
    ax.set_ylabel("test macro-F1")
    ax.set_title("Model-assisted annotation on the demo world", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=REPO / "data" / "demo")
    parser.add_argument("--seed-labels", type=int, default=20, help="random labels both orderings start from")
    parser.add_argument("--batch", type=int, default=20, help="labels added per step")
    parser.add_argument("--repeats", type=int, default=3, help="random orderings averaged")
    parser.add_argument("--variant", default="tfidf_sim", help="CPU model feature set (retrained at every step)")
    parser.add_argument("--plot", type=Path, default=None, help="PNG path; default <data-dir>/figures/active_annotation.png")
    args = parser.parse_args()
    warehouse = args.data_dir / "warehouse.duckdb"
    if not warehouse.is_file():
        print(f"{warehouse} not found: run `make demo` (or `arastance demo --data-dir {args.data_dir}`) first")
        return
    pool, test = load_split("warehouse", warehouse, "train"), load_split("warehouse", warehouse, "test")
    config = CpuModelConfig(variant=args.variant, auto_tune=False)
    started = time.perf_counter()
    _, target = score(config, pool, test)
    rng = np.random.default_rng(0)
    start = list(rng.choice(len(pool), size=min(args.seed_labels, len(pool)), replace=False))
    print(f"demo world: {len(pool)} training pairs (gold labels from the simulated annotators), {len(test)} test "
          f"pairs; model cpu-{args.variant}; target = test macro-F1 with every label = {target:.3f}")
    curves = {"uncertainty": curve(config, pool, test, start, args.batch, "uncertainty", rng)}
    randoms = [curve(config, pool, test, start, args.batch, "random", np.random.default_rng(seed))
               for seed in range(1, args.repeats + 1)]
    curves[f"random (mean of {args.repeats})"] = [(n, float(np.mean([r[i][1] for r in randoms])))
                                                  for i, (n, _) in enumerate(randoms[0])]
    print(f"\n{'labels':>7} " + " ".join(f"{name:>22}" for name in curves))
    for i, (n, _) in enumerate(curves["uncertainty"]):
        print(f"{n:>7} " + " ".join(f"{points[i][1]:>22.3f}" for points in curves.values()))
    print()
    for name, points in curves.items():
        full, near = labels_to_reach(points, target), labels_to_reach(points, 0.95 * target)
        print(f"{name:<22} labels to reach {target:.3f}: {full if full is not None else 'never'}; "
              f"to reach 95 % of it ({0.95 * target:.3f}): {near if near is not None else 'never'}")
    png = plot(curves, target, args.plot or args.data_dir / "figures" / "active_annotation.png")
    print(f"\nplot: {png}; {time.perf_counter() - started:.0f} s in all (shared machine)")


if __name__ == "__main__":
    main()
