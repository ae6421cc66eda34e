"""Model cards: what a reader of a trained model's directory needs to trust or reuse it.

``MODEL_CARD.md`` sits beside the model file and its manifest: the data it was trained on (corpus,
pairs, label distribution, fingerprint), the splits it was scored on, its settings (and what
automatic tuning chose), per-class metrics and confusion matrices, training time, the code
version and the library versions that can load it. It is written from the manifest and the
evaluation results, so it never disagrees with them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tasks.stance.examples import StanceExample
from tasks.stance.metrics import Evaluation, interval_text
from tasks.stance.persistence import read_manifest
from tasks.stance.runs import SplitResult

CARD = "MODEL_CARD.md"


def _metrics_table(evaluation: Evaluation) -> list[str]:
    lines = ["| label | precision | recall | F1 | support |", "|---|---:|---:|---:|---:|"]
    for label in evaluation.labels:
        lines.append(f"| {label} | {evaluation.precision[label]:.3f} | {evaluation.recall[label]:.3f} | "
                     f"{evaluation.f1[label]:.3f} | {evaluation.support[label]} |")
    lines.append(f"| **macro** | | | **{evaluation.macro_f1:.3f}** | {sum(evaluation.support.values())} |")
    lines.append("")
    lines.append(f"Accuracy {evaluation.accuracy:.3f}."
                 + (f" Macro-F1's 95 % interval (a bootstrap of the claims): {interval_text(evaluation, digits=3)}."
                    if evaluation.macro_f1_interval else ""))
    return lines


def _confusion_table(evaluation: Evaluation) -> list[str]:
    labels = evaluation.labels
    lines = ["| gold \\ predicted | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for label, row in zip(labels, evaluation.confusion):
        lines.append(f"| {label} | " + " | ".join(str(int(v)) for v in row) + " |")
    return lines


def render_model_card(manifest: dict[str, Any], train: Sequence[StanceExample],
                      results: Sequence[SplitResult]) -> str:
    """The Markdown card of a saved model (``manifest``), trained on ``train`` and scored as ``results``."""
    labels = manifest.get("labels", [])
    counts = Counter(e.label for e in train)
    config = manifest.get("config", {})
    lines = [
        f"# Model card: {manifest.get('name', '?')}",
        "",
        f"- kind: `{manifest.get('kind')}`; labels ({len(labels)}): {', '.join(labels)}",
        f"- run: `{manifest.get('run_id', '?')}`, saved {manifest.get('saved_at', '?')}",
        f"- code version: `{manifest.get('code_version', '?')}`",
        f"- training time: {manifest.get('train_seconds', '?')} s",
        "",
        "## Training data",
        "",
        f"- corpus: `{manifest.get('dataset', '?')}`, split `train`: {len(train)} pairs, "
        f"{len({e.claim_id for e in train})} claims",
        "- labels: " + ", ".join(f"{label} {counts.get(label, 0)}" for label in labels),
        f"- data fingerprint (SHA-256 over pairs and labels): `{manifest.get('data_fingerprint', '?')}`",
        "",
        "## Settings",
        "",
        "```json",
        json.dumps(config, ensure_ascii=False, indent=2, sort_keys=True, default=str),
        "```",
    ]
    if manifest.get("tuned"):
        tuned = manifest["tuned"]
        lines += _tuning_lines("Chosen by claim-grouped cross-validation on the training pairs", tuned)
        if tuned.get("fast"):
            lines += _tuning_lines("For the cascade's static-e5 model", tuned["fast"])
    if manifest.get("cascade"):
        cascade = manifest["cascade"]
        lines += ["", f"Cascade: the static-e5 model answers the pairs it gives a probability of at least "
                  f"{cascade['route_below']:.3f}; the contextual-e5 model the rest ({cascade['share']:.0%} of the "
                  f"training pairs, measured on {cascade['from']}"
                  + (f"; the {cascade['rule']})." if cascade.get("rule") else ").")]
        lines += [f"- routing the least sure {c['share']:.0%}: macro-F1 {c['cv_macro_f1']:.4f}"
                  + (f" ± {c['cv_se']:.4f}" if "cv_se" in c else "")  # models saved before 2026-12-02 lack it
                  for c in cascade.get("candidates", [])]
    if manifest.get("weighting"):
        lines += _weighting_lines(manifest["weighting"], manifest.get("members", {}))
    lines += ["", "## Evaluation", ""]
    if not results:
        lines.append("Not evaluated yet.")
    for r in results:
        lines += [f"### {r.dataset} / {r.split} ({sum(r.evaluation.support.values())} pairs, "
                  f"{r.pairs_per_second:.0f} pairs/s)", ""]
        lines += _metrics_table(r.evaluation) + [""] + _confusion_table(r.evaluation) + [""]
    lines += ["## Libraries", "", "Loading needs these versions (the manifest checks them):", ""]
    lines += [f"- {name} {version}" for name, version in sorted(manifest.get("libraries", {}).items())]
    lines += ["", "## Use and limits", "",
              "Stance of an article towards a claim, for fact-checking triage; trained on the corpus above "
              "only. Expect lower scores on other sources, periods or dialects (see `arastance experiment "
              "cross-dataset`), and on classes with little training support.", ""]
    return "\n".join(lines)


def _tuning_lines(title: str, tuned: dict[str, Any]) -> list[str]:
    """``title``: the values tuning chose, then one line per candidate it scored."""
    lines = ["", f"{title}: " + ", ".join(f"{k} = {v}" for k, v in tuned.items()
                                          if k not in ("candidates", "fast")) + "."]
    return lines + [f"- candidate {', '.join(f'{k} = {v:.4g}' for k, v in c.items())}"
                    for c in tuned.get("candidates", [])]


def _weighting_lines(weighting: dict[str, Any], members: dict[str, str]) -> list[str]:
    """An ensemble's weight, where it came from, and the held-out score of every weight tried."""
    lines = ["", f"Ensemble: probabilities averaged with weight {weighting['weight']:.2f} on the CPU model and "
             f"{1 - weighting['weight']:.2f} on the fine-tuned encoder, from the {weighting['from']}"
             + (f" ({weighting['held_out_pairs']} pairs; the weight {weighting['rule']}, which scored "
                f"{weighting['best']['macro_f1']:.4f} at {weighting['best']['weight']:.2f}, standard error "
                f"{weighting['standard_error']:.4f})." if "rule" in weighting else ".")]
    lines += [f"- weight {c['weight']:.2f}: held-out macro-F1 {c['macro_f1']:.4f}" for c in weighting.get("candidates", [])]
    if members:
        lines += ["", "Each member is saved with its own manifest (what it tuned, its libraries) in "
                  + ", ".join(f"`{sub}/` ({name})" for name, sub in members.items()) + "."]
    return lines


def write_model_card(directory: Path, train: Sequence[StanceExample], results: Sequence[SplitResult]) -> Path:
    """Write ``MODEL_CARD.md`` into a saved model's ``directory`` (replacing an older card)."""
    path = Path(directory) / CARD
    path.write_text(render_model_card(read_manifest(Path(directory)), train, results), encoding="utf-8")
    return path
