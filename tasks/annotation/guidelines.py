"""The annotation guidelines, in Arabic and English, as every annotator receives them.

One source (``guidelines.toml``) gives the method's definitions, the rules that go with them and
worked examples; it is rendered as Markdown for the round's files (``guidelines.md``) and as
collapsible panels inside the Label Studio labeling config, so that whoever labels a pair has the
same text in front of them, whichever tool they use. Keeping both renderings here avoids two
copies of the definitions drifting apart.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from xml.sax.saxutils import quoteattr

from tasks.stance.labels import FOUR_WAY

FILE_NAME = "guidelines.md"
LANGUAGES: tuple[str, ...] = ("ar", "en")


@dataclass(frozen=True)
class Example:
    """A claim and one article excerpt per label, with why the label fits (in both languages)."""

    claim: dict[str, str]
    cases: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class Guidelines:
    version: str
    title: dict[str, str]
    task: dict[str, str]
    rules: dict[str, tuple[str, ...]]
    labels: dict[str, dict[str, str]]  # language -> label -> definition
    examples: tuple[Example, ...]

    def hint(self, label: str) -> str:
        """The label's definition for a choice's hint: Arabic first (annotators read Arabic), then English."""
        return f"{self.labels['ar'][label]} ({self.labels['en'][label]})"


class GuidelinesError(ValueError):
    """The guidelines file lacks a language, a label or a field; the message names it."""


@cache
def load_guidelines() -> Guidelines:
    """The shipped guidelines, checked: both languages, all four labels, every example labelled."""
    raw = tomllib.loads(resources.files("tasks.annotation").joinpath("guidelines.toml").read_text(encoding="utf-8"))
    where = "tasks/annotation/guidelines.toml"
    for lang in LANGUAGES:
        section = raw.get(lang, {})
        missing = [k for k in ("title", "task", "rules", "labels") if k not in section]
        missing += [f"labels.{label}" for label in FOUR_WAY if label not in section.get("labels", {})]
        if missing:
            raise GuidelinesError(f"{where}: [{lang}] lacks {missing}")
    examples = []
    for n, ex in enumerate(raw.get("examples", []), start=1):
        cases = tuple(ex.get("cases", []))
        bad = [c.get("label") for c in cases if c.get("label") not in FOUR_WAY]
        if bad or not all(f"article_{lang}" in c and f"why_{lang}" in c for c in cases for lang in LANGUAGES):
            raise GuidelinesError(f"{where}: example {n} has an unknown label {bad} or lacks an article or a reason")
        examples.append(Example({lang: ex[f"claim_{lang}"] for lang in LANGUAGES}, cases))
    return Guidelines(
        version=str(raw["version"]),
        title={lang: raw[lang]["title"] for lang in LANGUAGES},
        task={lang: raw[lang]["task"] for lang in LANGUAGES},
        rules={lang: tuple(raw[lang]["rules"]) for lang in LANGUAGES},
        labels={lang: dict(raw[lang]["labels"]) for lang in LANGUAGES},
        examples=tuple(examples),
    )


def guidelines_markdown(g: Guidelines | None = None) -> str:
    """The guidelines as one Markdown document: Arabic, then English, each with the examples."""
    g = g or load_guidelines()
    heads = {"ar": ("التصنيفات", "قواعد", "أمثلة", "الادعاء", "المقال", "السبب"),
             "en": ("Labels", "Rules", "Examples", "Claim", "Article", "Why")}
    out = [f"<!-- guidelines version {g.version} -->"]
    for lang in LANGUAGES:
        labels_h, rules_h, examples_h, claim_h, article_h, why_h = heads[lang]
        out += [f"# {g.title[lang]}", "", g.task[lang], "", f"## {labels_h}", ""]
        out += [f"- **{label}**: {g.labels[lang][label]}" for label in FOUR_WAY]
        out += ["", f"## {rules_h}", ""] + [f"{i}. {rule}" for i, rule in enumerate(g.rules[lang], start=1)]
        out += ["", f"## {examples_h}", ""]
        for ex in g.examples:
            out += [f"**{claim_h}**: {ex.claim[lang]}", ""]
            out += [f"- **{c['label']}**: {article_h}: «{c[f'article_{lang}']}» — {why_h}: {c[f'why_{lang}']}" for c in ex.cases]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def guidelines_view(g: Guidelines | None = None) -> str:
    """Label Studio XML: one collapsible panel per language holding the whole guidelines text."""
    g = g or load_guidelines()
    lines = ["  <Collapse>"]
    for lang in LANGUAGES:
        direction = "rtl" if lang == "ar" else "ltr"
        lines.append(f"    <Panel value={quoteattr(g.title[lang])}>")
        lines.append(f'      <View style="direction: {direction}">')
        body = [g.task[lang], *(g.labels[lang][label] for label in FOUR_WAY), *g.rules[lang]]
        for ex in g.examples:
            body.append(ex.claim[lang])
            body += [f"{c['label']}: {c[f'article_{lang}']} — {c[f'why_{lang}']}" for c in ex.cases]
        lines += [f'        <Header value={quoteattr(text)} size="6"/>' for text in body]
        lines += ["      </View>", "    </Panel>"]
    lines.append("  </Collapse>")
    return "\n".join(lines) + "\n"
