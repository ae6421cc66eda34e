"""Named settings presets: every choice of a reference set-up, with why the default differs.

A preset is data: (setting, value, why) for each choice it makes. ``arastance config preset
<name>`` writes it as an ``arastance.toml`` (each value under its group, its reason as a
comment), and :func:`preset_table` puts it side by side with the defaults for the README. The
``paper`` preset is the AraStance paper's set-up (Alhindi et al., NLP4IF 2021).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from arastance.config.settings import Settings


@dataclass(frozen=True)
class Choice:
    """One setting of a preset: its dotted name, its value and why the default is what it is."""

    key: str
    value: Any
    why: str


@dataclass(frozen=True)
class Unset:
    """A choice the preset cannot make for the user (``why`` says what to put there)."""

    key: str
    why: str


PAPER: tuple[Choice | Unset, ...] = (
    Choice("period.start", date(2012, 1, 1),
           "the paper's claims are from 2012-2018 (through web archives); the default keeps the dataset current"),
    Choice("period.end", date(2018, 12, 31), "as period.start"),
    Choice("crawl.noun_phrase_claims", "review",
           "the paper's annotators restated noun-phrase claims; by default they stay active so that unattended "
           "daily crawls do not wait on a person"),
    Choice("selection.window_months", 3, "the method's window (same as the default)"),
    Choice("selection.top_k", 10, "the method's cap (same as the default)"),
    Unset("selection.sample_size",
          "the paper chose true claims for a sample of the false claims; set the sample's size here (0, the "
          "default, uses every false claim as a seed, which suits a dataset kept current)"),
    Choice("selection.seed", 13, "the sample's seed, so that a reproduction draws the same seeds"),
    Choice("search.backend", "google",
           "the paper searched with Google; the default is the local index, which needs no key and spends no quota "
           "(Google's Custom Search JSON API closes to new customers and ends on 2027-01-01)"),
    Choice("search.results_per_query", 10, "the method (same as the default)"),
    Choice("search.date_window_months", 2, "the method's +/-2 months (same as the default)"),
    Choice("search.max_documents_per_claim", 10, "the method (same as the default)"),
    Choice("search.fetch_pool_per_claim", 0,
           "the method ranks every candidate on its article text; the default fetches the first 20 candidates per "
           "claim (then one replacement per unusable one), which bounds the fetches when five queries bring up to 50 "
           "candidates a claim"),
    Choice("annotation.annotators_per_pair", 2, "two annotators and an adjudicator (same as the default)"),
    Choice("annotation.split_ratios", [0.7, 0.15, 0.15], "the paper's claim-level split (same as the default)"),
    Choice("model.default", "transformer",
           "the paper fine-tunes BERT encoders on a GPU; the default is the CPU model, which trains in minutes "
           "on any machine"),
    Choice("model.transformer", "UBC-NLP/ARBERT", "the paper's best encoder (same as the default)"),
    Choice("model.max_length", 512, "the paper's hyper-parameters (same as the default)"),
    Choice("model.batch_size", 16, "as model.max_length"),
    Choice("model.learning_rate", 2e-5, "as model.max_length"),
    Choice("model.epochs", 25, "as model.max_length"),
    Choice("model.patience", 5, "as model.max_length"),
    Choice("model.evidence", "truncate",
           "the paper cuts the article at 512 tokens; by default the sentences most similar to the claim are kept "
           "within the budget, which reads evidence past the cut"),
    Choice("model.transformer_class_weighted", False, "the paper trains without class weights (same as the default)"),
    Choice("model.transformer_symmetric_pairs", False,
           "the paper reads each pair in the order the corpus gives it; by default a pair of two headline-sized "
           "sentences (Khouja's) is read in both orders, with the pairs a shared headline implies (Khouja dev "
           "macro-F1 .82 for e5-small fine-tuned on the CPU, against .78-.80)"),
    Choice("model.transformer_members", 1, "one encoder per run (same as the default)"),
)

PRESETS: dict[str, tuple[Choice | Unset, ...]] = {"paper": PAPER}


class PresetError(ValueError):
    """An unknown preset, or a file that would be overwritten; the message says which."""


def preset(name: str) -> tuple[Choice | Unset, ...]:
    if name not in PRESETS:
        raise PresetError(f"unknown preset {name!r}; presets: {', '.join(sorted(PRESETS))}")
    return PRESETS[name]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, date)):
        return str(value) if not isinstance(value, float) else repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def preset_toml(name: str) -> str:
    """The preset as an ``arastance.toml``: each group a table, each choice's reason above it."""
    groups: dict[str, list[str]] = {}
    for choice in preset(name):
        group, field = choice.key.split(".", 1)
        lines = groups.setdefault(group, [])
        lines.append(f"# {choice.why}")
        if isinstance(choice, Unset):
            lines.append(f"# {field} = ...")
        else:
            lines.append(f"{field} = {_toml_value(choice.value)}")
    out = [f"# arastance.toml: the {name!r} preset (`arastance config preset {name}`).",
           "# Keys left commented out are choices the preset cannot make for you; see the comment above each."]
    for group, lines in groups.items():
        out += ["", f"[{group}]", *lines]
    return "\n".join(out) + "\n"


def write_preset(name: str, path: Path, *, force: bool = False) -> Path:
    """Write the preset to ``path``; an existing file is only replaced with ``force``."""
    text = preset_toml(name)
    if path.exists() and not force:
        raise PresetError(f"{path} exists; pass --force to replace it, or --out to write elsewhere")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _setting(settings: Settings, key: str) -> Any:
    group, field = key.split(".", 1)
    value = getattr(getattr(settings, group), field)
    return list(value) if isinstance(value, tuple) else value


def preset_table(name: str, defaults: Settings | None = None) -> list[dict[str, str]]:
    """Side by side: each setting of the preset, its default, the preset's value and why."""
    defaults = defaults or Settings.model_construct()  # the code's defaults, not this machine's settings
    rows = []
    for choice in preset(name):
        default = _setting(defaults, choice.key)
        value = "(you set it)" if isinstance(choice, Unset) else _toml_value(choice.value)
        shown = "(none)" if default is None else _toml_value(default)
        rows.append({"setting": choice.key, "default": shown, name: value, "why": choice.why})
    return rows


def differing(rows: Sequence[dict[str, str]], name: str) -> list[dict[str, str]]:
    """The rows where the preset's value is not the default's."""
    return [r for r in rows if r["default"] != r[name]]
