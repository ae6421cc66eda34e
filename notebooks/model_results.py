# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: AraStance (project .venv)
#     language: python
#     name: arastance
# ---

# %% [markdown]
# # Stance model results
#
# The results table in the method's layout (rows models, one column group per dataset split
# with the per-class F1, accuracy and macro-F1) from the warehouse's `evaluations` and
# `model_runs` tables; then the latest model trained on the warehouse's own gold data is
# loaded from its `artifact_path` and re-scored on the test split (dev when the test split is
# empty), with its confusion matrix and a few misclassified pairs per gold class.
# The warehouse is the configured one (`ARASTANCE_WAREHOUSE_PATH`, or `data/warehouse.duckdb`
# after `make demo`).

# %%
import tempfile
from pathlib import Path

import pandas as pd
from IPython.display import Image, Markdown, display

from arastance.config import load_settings
from tasks.stance.datasets import DatasetError, load_split
from tasks.stance.labels import LABELS, scheme_of
from tasks.stance.metrics import evaluate, plot_confusion, results_table
from tasks.stance.model import load_model
from warehouse import open_published
from warehouse.model_runs import evaluations, model_runs

EXAMPLES_PER_CLASS = 3  # misclassified pairs shown per gold class
CLAIM_CHARS, ARTICLE_CHARS = 120, 200  # Arabic text is truncated to keep the tables readable

settings = load_settings()
with open_published(settings.warehouse) as wh:
    runs = pd.DataFrame(model_runs(wh))
    stored = pd.DataFrame(evaluations(wh))
print(f"warehouse: {settings.warehouse}; {len(runs)} model run(s), {len(stored)} stored metric(s)")

# %% [markdown]
# ## Model runs
# Newest first; only succeeded runs enter the results table.

# %%
runs[["run_id", "model_name", "model_kind", "status", "started_at", "artifact_path"]] if len(runs) else runs

# %% [markdown]
# ## Results table
# Per-class F1, accuracy (Acc) and macro-F1 of every succeeded run, one column group per
# dataset and split, as stored when the run was evaluated.

# %%
def method_layout(runs: pd.DataFrame, stored: pd.DataFrame) -> pd.DataFrame:
    """Rows (model, run); columns (dataset split, class F1 ... Acc, macro-F1) in scheme order."""
    if runs.empty or stored.empty:
        return pd.DataFrame()
    succeeded = set(runs.loc[runs["status"] == "succeeded", "run_id"])
    scores = stored[stored["run_id"].isin(succeeded) & stored["metric"].isin(["f1", "accuracy", "macro_f1"])].copy()
    scores["column"] = scores["label"].where(scores["metric"] == "f1",
                                             scores["metric"].map({"accuracy": "Acc", "macro_f1": "macro-F1"}))
    scores["group"] = scores["dataset"] + " " + scores["split"]
    table = scores.pivot_table(index=["model_name", "run_id"], columns=["group", "column"], values="value",
                               aggfunc="first")
    order = {label: i for i, label in enumerate(dict.fromkeys((*LABELS["4way"], *LABELS["3way"], "Acc", "macro-F1")))}
    columns = sorted(table.columns, key=lambda c: (c[0], order.get(c[1], len(order))))
    return table[columns]


results = method_layout(runs, stored)
results.style.format("{:.2f}", na_rep="–") if len(results) else "no evaluated model runs yet"

# %% [markdown]
# ## The latest warehouse model, re-scored
# The newest succeeded run evaluated on the warehouse's gold data, loaded from its saved
# directory: this checks that the stored model still loads and predicts what was recorded.

# %%
def latest_warehouse_run(runs: pd.DataFrame, stored: pd.DataFrame) -> pd.Series | None:
    """Newest succeeded run with a saved model and metrics on the warehouse dataset."""
    if runs.empty or stored.empty:
        return None
    on_warehouse = set(stored.loc[stored["dataset"] == "warehouse", "run_id"])
    usable = runs[(runs["status"] == "succeeded") & runs["artifact_path"].notna() & runs["run_id"].isin(on_warehouse)]
    usable = usable[usable["artifact_path"].map(lambda p: Path(p).is_dir())]
    return None if usable.empty else usable.sort_values("started_at").iloc[-1]


latest = latest_warehouse_run(runs, stored)
model = split = examples = evaluation = None
if latest is None:
    print("no succeeded warehouse model with a saved directory yet: run `arastance demo` or `arastance train`")
else:
    model = load_model(Path(latest["artifact_path"]), embedding_cache=settings.embedding_cache, settings=settings.model)
    scheme = scheme_of(model.labels)
    for split in ("test", "dev"):
        try:
            examples = load_split("warehouse", settings.warehouse, split, scheme)
            break
        except DatasetError as exc:
            print(f"{split}: {exc}")
    if examples:
        predicted = model.predict(examples)
        evaluation = evaluate([ex.label for ex in examples], predicted, model.labels)
        print(f"run {latest['run_id']} ({model.name}) on the warehouse {split} split: {len(examples)} pairs")
        display(Markdown(results_table({model.name: {f"warehouse {split}": evaluation}})))

# %% [markdown]
# ## Confusion matrix
# Gold labels on rows, predictions on columns.

# %%
if evaluation is not None:
    figure = plot_confusion(evaluation, Path(tempfile.mkdtemp()) / "confusion.png",
                            f"{model.name}: warehouse {split}")
    display(Image(filename=str(figure)))

# %% [markdown]
# ## Errors per gold class
# Up to three misclassified claim–article pairs for each gold label, texts truncated.

# %%
def shorten(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def errors_per_class(examples, predicted, labels, per_class: int) -> pd.DataFrame:
    """The first ``per_class`` misclassified pairs of every gold label, in label order."""
    rows = [
        {"gold": ex.label, "predicted": guess, "claim": shorten(ex.claim, CLAIM_CHARS),
         "article title": shorten(ex.article_title, 80), "article": shorten(ex.article, ARTICLE_CHARS),
         "url": ex.article_url}
        for ex, guess in zip(examples, predicted) if guess != ex.label
    ]
    frame = pd.DataFrame(rows, columns=["gold", "predicted", "claim", "article title", "article", "url"])
    frame["gold"] = pd.Categorical(frame["gold"], categories=list(labels), ordered=True)
    first = frame.sort_values("gold", kind="stable").groupby("gold", observed=True).head(per_class)
    return first.reset_index(drop=True)


errors = errors_per_class(examples, predicted, model.labels, EXAMPLES_PER_CLASS) if evaluation is not None else None
errors if errors is not None else "no model to inspect"
