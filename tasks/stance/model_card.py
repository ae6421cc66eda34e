"""Model cards: what a reader of a trained model's directory needs to trust or reuse it.

``MODEL_CARD.md`` sits beside the model file and its manifest: the data it was trained on (corpus,
pairs, label distribution, fingerprint), the splits it was scored on, its settings (and what
automatic tuning chose), per-class metrics and confusion matrices, training time, the code
version and the library versions that can load it. It is drawn from the manifest and
:data:`CARD_DATA`, which keeps the training pairs' counts and the latest result of every evaluated
split: training writes both, and every ``arastance evaluate`` merges its splits into the data and draws
the card again, so the card never disagrees with the latest evaluation (it kept training's figures
while ``evaluate`` replaced the stored ones, and never showed a split evaluated later).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from arastance.base.text_files import EncodingProblem, read_utf8
from arastance.base.whole_files import written_whole
from arastance.logging import get_logger
from tasks.stance.cpu_model import CpuModelConfig
from tasks.stance.examples import StanceExample
from tasks.stance.metrics import Evaluation, figure_text, interval_text
from tasks.stance.persistence import read_manifest
from tasks.stance.runs import SplitResult

log = get_logger(__name__)

CARD = "MODEL_CARD.md"
#: beside the card: what it shows beyond the manifest, ``{"training": {"pairs", "claims", "labels"},
#: "results": [one per dataset and split]}``; a result is :func:`_stored`, or for a card written before
#: this file existed the card's own Markdown section of that split, kept until the split is evaluated again
CARD_DATA = "model_card.json"


def _metrics_table(evaluation: Evaluation) -> list[str]:
    lines = ["| label | precision | recall | F1 | support |", "|---|---:|---:|---:|---:|"]
    for label in evaluation.labels:
        lines.append(f"| {label} | {figure_text(evaluation.precision[label], 3)} | "
                     f"{figure_text(evaluation.recall[label], 3)} | {figure_text(evaluation.f1[label], 3)} | "
                     f"{evaluation.support[label]} |")
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


def render_model_card(manifest: dict[str, Any], data: dict[str, Any]) -> str:
    """The Markdown card of a saved model (``manifest``), with its training pairs and results from ``data``
    (the contents of :data:`CARD_DATA`)."""
    labels = manifest.get("labels", [])
    training = data["training"]
    config = manifest.get("config", {})
    counts = training.get("labels")
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
        f"- corpus: `{manifest.get('dataset', '?')}`, split `train`: {training.get('pairs', '?')} pairs, "
        f"{training.get('claims', '?')} claims",
        "- labels: " + (", ".join(f"{label} {counts.get(label, 0)}" for label in labels) if counts is not None
                        else "not recorded"),
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
    if not data["results"]:
        lines.append("Not evaluated yet.")
    for result in data["results"]:
        lines += [result["markdown"], ""] if "markdown" in result else _result_lines(_restored(result))
        if _chose_the_epoch(manifest, result):
            lines += ["This split also chose the epoch kept (early stopping on its macro-F1), so its score is "
                      "optimistic; a split the training never saw (test) is not.", ""]
    lines += _library_lines(manifest)
    lines += ["", "## Use and limits", "",
              "Stance of an article towards a claim, for fact-checking triage; trained on the corpus above "
              "only. Expect lower scores on other sources, periods or dialects (see `arastance experiment "
              "cross-dataset`), and on classes with little training support.", ""]
    return "\n".join(lines)


def _chose_the_epoch(manifest: dict[str, Any], result: dict[str, Any]) -> bool:
    """Whether ``result`` is of the dev split that early stopping chose the fine-tuned model's epoch on
    (nothing said so: the card showed that score beside test's as if both were of unseen pairs)."""
    return (manifest.get("epoch_chosen_on") == "dev" and result.get("split") == "dev"
            and result.get("dataset") == manifest.get("dataset"))


def _result_lines(r: SplitResult) -> list[str]:
    """One split's section: its metrics and its confusion matrix."""
    return ([f"### {r.dataset} / {r.split} ({sum(r.evaluation.support.values())} pairs, "
             f"{r.pairs_per_second:.0f} pairs/s)", ""]
            + _metrics_table(r.evaluation) + [""] + _confusion_table(r.evaluation) + [""])


def _library_lines(manifest: dict[str, Any]) -> list[str]:
    """The library versions recorded at saving, those that loading checks apart from the rest (the card
    said that it checked them all, and only the CPU model's pickling libraries were)."""
    libraries = manifest.get("libraries", {})
    checked = _checked_libraries(manifest)
    lines = ["## Libraries"]
    if checked:
        lines += ["", "Loading refuses the model unless these versions are installed:", ""]
        lines += [f"- {name} {libraries.get(name, '?')}" for name in checked]
    rest = sorted(set(libraries) - set(checked))
    if rest:
        lines += ["", f"Recorded when it was saved{' too' if checked else ''}; loading does not check them:", ""]
        lines += [f"- {name} {libraries[name]}" for name in rest]
    return lines


def _checked_libraries(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The libraries whose versions loading this model checks: its CPU model's (an ensemble's CPU member
    checks its own); a fine-tuned encoder's weights are safetensors, which any version reads."""
    config = manifest.get("config", {})
    cpu = {"cpu": config, "ensemble": config.get("cpu")}.get(manifest.get("kind"))
    return () if cpu is None else CpuModelConfig(**cpu).checked_libraries


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
    """Write ``MODEL_CARD.md`` and its :data:`CARD_DATA` into a newly trained model's ``directory``."""
    # claims by id and text: a Khouja id names a group of claims sharing sentences (datasets.khouja)
    training = {"pairs": len(train), "claims": len({(e.claim_id, e.claim) for e in train}),
                "labels": dict(Counter(e.label for e in train))}
    directory = Path(directory)
    return _write(directory, read_manifest(directory), {"training": training, "results": [_stored(r) for r in results]})


def update_model_card(directory: Path, results: Sequence[SplitResult]) -> Path:
    """Draw ``MODEL_CARD.md`` again with ``results``, each in place of the earlier result of its dataset
    and split, or after the others for a split not evaluated before."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    data = _card_data(directory, manifest)
    new = {(r.dataset, r.split): _stored(r) for r in results}
    kept = [new.pop((old.get("dataset"), old.get("split")), old) for old in data["results"]]
    return _write(directory, manifest, {**data, "results": kept + list(new.values())})


def _write(directory: Path, manifest: dict[str, Any], data: dict[str, Any]) -> Path:
    """Replace the card and its data together (the card last), so that neither is left cut short."""
    card = render_model_card(manifest, data)
    with written_whole(directory, last=(CARD,)) as partial:
        (partial / CARD_DATA).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        (partial / CARD).write_text(card, encoding="utf-8")
    return directory / CARD


_PER_CLASS = ("f1", "precision", "recall")  # NaN for a class on neither side of the split: null in the JSON


def _stored(r: SplitResult) -> dict[str, Any]:
    """A split's result as JSON for :data:`CARD_DATA` (standard JSON: a bare NaN is none, and jq refuses it)."""
    evaluation = {f.name: getattr(r.evaluation, f.name) for f in fields(Evaluation)}
    for name in _PER_CLASS:
        evaluation[name] = {label: None if math.isnan(v) else v for label, v in evaluation[name].items()}
    return {"dataset": r.dataset, "split": r.split, "pairs_per_second": r.pairs_per_second,
            "evaluation": {**evaluation, "confusion": r.evaluation.confusion.tolist()}}


def _restored(stored: dict[str, Any]) -> SplitResult:
    """The :class:`SplitResult` that :func:`_stored` wrote."""
    saved = stored["evaluation"]
    interval = saved["macro_f1_interval"]
    per_class = {name: {label: math.nan if v is None else v for label, v in saved[name].items()} for name in _PER_CLASS}
    evaluation = Evaluation(**{**saved, **per_class, "labels": tuple(saved["labels"]),
                               "confusion": np.asarray(saved["confusion"]),
                               "macro_f1_interval": None if interval is None else tuple(interval)})
    return SplitResult(stored["dataset"], stored["split"], evaluation, stored["pairs_per_second"])


def _card_data(directory: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """The model's :data:`CARD_DATA`; for a model saved before it existed, or one whose file the card
    cannot be drawn from (a warning names it), what its card shows."""
    path = directory / CARD_DATA
    if path.is_file():
        try:
            data = json.loads(read_utf8(path))
            render_model_card(manifest, data)  # what the card cannot show is damaged
            return data
        except (ValueError, RecursionError, KeyError, TypeError, AttributeError) as exc:  # ValueError: not UTF-8 too
            log.warning("the model card's data is damaged; the card is drawn again from what it shows",
                        extra={"path": str(path), "problem": f"{type(exc).__name__}: {exc}"})
    return _shown_on_card(directory / CARD)


#: a split's section of a card: its heading to the next one
_SECTION = re.compile(r"^### (?P<dataset>.+?) / (?P<split>\S+) \(.*?(?=^### |\Z)", re.MULTILINE | re.DOTALL)


def _shown_on_card(card: Path) -> dict[str, Any]:
    """:data:`CARD_DATA` as far as a card drawn before it existed shows it: the counts of its training
    pairs and each split's section as written (nothing of what a missing or unreadable card would show)."""
    try:
        text = read_utf8(card) if card.is_file() else ""
    except EncodingProblem:
        text = ""
    training: dict[str, Any] = {}
    if sizes := re.search(r"split `train`: (\d+) pairs, (\d+) claims", text):
        training.update(pairs=int(sizes[1]), claims=int(sizes[2]))
    if labels := re.search(r"^- labels: (.+)$", text, re.MULTILINE):
        training["labels"] = {label: int(count) for label, count in re.findall(r"(\S+) (\d+)", labels[1])}
    evaluated = text.partition("\n## Evaluation\n")[2].partition("\n## Libraries")[0]
    return {"training": training, "results": [{"dataset": m["dataset"], "split": m["split"], "markdown": m[0].strip()}
                                              for m in _SECTION.finditer(evaluated)]}
