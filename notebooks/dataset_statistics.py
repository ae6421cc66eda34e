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
# # Dataset statistics
#
# The AraStance dataset table (claims, articles and stance counts per source and veracity) and
# the label counts per split, read from the claim warehouse. The warehouse is the configured one
# (`ARASTANCE_WAREHOUSE_PATH`, or `data/warehouse.duckdb` after `make demo`).

# %%
import matplotlib.pyplot as plt
import pandas as pd

from arastance.config import load_settings
from tasks.stance.labels import FOUR_WAY
from warehouse import open_published
from warehouse.stats import left_out_claims, paper_table3, paper_table4, source_stats, split_label_counts

LABELS = list(FOUR_WAY)
settings = load_settings()
with open_published(settings.warehouse) as wh:
    per_source = pd.DataFrame(source_stats(wh))
    per_split = pd.DataFrame(split_label_counts(wh))
    left_out = pd.DataFrame(left_out_claims(wh))
    table3 = pd.DataFrame(paper_table3(wh))
    table4 = pd.DataFrame(paper_table4(wh))
print(f"warehouse: {settings.warehouse}")

# %% [markdown]
# ## Claims, articles and stances per source
# As in the paper, *articles* are claim–article pairs (articles = agree + disagree + discuss +
# unrelated); *distinct_articles* counts an article paired with several claims once.

# %%
per_source

# %% [markdown]
# ### Table 3 as the paper lays it out
# One row per source (false-claim sites, then Reuters), then the total; `v_paper_table3`.

# %%
table3 if len(table3) else "no gold labels yet"

# %% [markdown]
# ## Claims left out
# As in the method, a claim whose retrieved articles are all *unrelated* stays out of the
# dataset (it carries no stance signal); these are per source, with their unrelated pairs.

# %%
left_out if len(left_out) else "no claim left out"

# %% [markdown]
# ## Labels per split

# %%
per_split

# %% [markdown]
# ### Table 4 as the paper lays it out
# Train, Dev, Test and Total, with claims, articles (pairs) and the four stances; `v_paper_table4`.

# %%
table4 if len(table4) else "no splits yet"

# %% [markdown]
# ## Label distribution
# Share of each stance per source (left) and per split (right): the method's dataset is
# dominated by *unrelated* and *discuss*, and a split that departs from the others is a warning.

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
for ax, frame, key in ((axes[0], per_source, "source"), (axes[1], per_split, "split")):
    body = frame[frame[key] != "total"] if len(frame) else frame
    if body.empty:
        ax.set_title(f"no gold labels yet ({key})")
        continue
    counts = body.set_index(key)[LABELS].astype(float)
    (counts.div(counts.sum(axis=1), axis=0)).plot.bar(stacked=True, ax=ax, rot=0)
    ax.set_ylabel("share of pairs")
    ax.set_title(f"stance distribution per {key}")
fig.tight_layout()
