"""``arastance nlp``: Stanza's Arabic models and the analysis behind a claim's queries."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Optional

import typer

from arastance.cli.common import console, fail, print_table, require_stdout, settings
from arastance.cli.shown_text import shown

nlp_app = typer.Typer(help="Claim analysis: Stanza's Arabic models, entities, verb-phrase cut, queries.",
                      no_args_is_help=True)


@nlp_app.command("download")
def download(
    model_dir: Optional[Path] = typer.Option(None, "--dir", help="where to put the models [nlp.stanza_dir]"),
) -> None:
    """Fetch Stanza's Arabic models (tokenize, mwt, pos, lemma, depparse, ner); needs internet."""
    from tasks.claim_analysis import StanzaDownloadError
    from tasks.claim_analysis.stanza_models import download_models, models_dir

    s = settings()
    target = model_dir or models_dir(s.nlp)
    console.print(f"downloading Stanza's Arabic models into {target} ...")
    try:
        download_models(target, s.nlp.stanza_resources_url)
    except StanzaDownloadError as exc:
        fail(str(exc))
    console.print(f"Stanza's Arabic models are installed in {target}")


@nlp_app.command("status")
def status() -> None:
    """Which analyzer claims get with the current settings, and what Stanza lacks."""
    require_stdout()
    from tasks.claim_analysis import StanzaModelsMissing, choose_analyzer
    from tasks.claim_analysis.stanza_models import missing_models, models_dir

    s = settings()
    target = models_dir(s.nlp)
    missing = missing_models(target)
    try:
        chosen = choose_analyzer(s.nlp)
    except StanzaModelsMissing as exc:
        fail(str(exc))
    print_table(
        [
            {"setting": "nlp.analyzer", "value": s.nlp.analyzer},
            {"setting": "analyzer used", "value": chosen},
            {"setting": "stanza models directory", "value": str(target)},
            {"setting": "missing models", "value": ", ".join(missing) or "none"},
        ],
        title="Claim analysis",
    )


@nlp_app.command("analyze")
def analyze_claim(
    claim: str = typer.Argument(..., help="the claim text (Arabic)"),
    claim_date: Optional[str] = typer.Option(None, "--date", help="the claim's date, YYYY-MM-DD (dated queries)"),
    veracity: str = typer.Option("false", help="'false' (five queries) or 'true' (two)"),
    analyzer: Optional[str] = typer.Option(None, help="'auto', 'stanza' or 'rules' [nlp.analyzer]"),
) -> None:
    """Print a claim's entities, its first-verb-phrase cut and the queries built from them."""
    require_stdout()
    from tasks.claim_analysis import StanzaModelsMissing, analyze
    from tasks.queries import QueryClaim, build_queries

    s = settings()
    if analyzer is not None:
        if analyzer not in ("auto", "stanza", "rules"):
            fail(f"invalid option --analyzer: {analyzer!r} is not 'auto', 'stanza' or 'rules'")
        s = s.model_copy(update={"nlp": s.nlp.model_copy(update={"analyzer": analyzer})})
    try:
        day = date.fromisoformat(claim_date) if claim_date else None
    except ValueError:
        fail(f"invalid option --date: {claim_date!r} is not a date (YYYY-MM-DD)")
    try:
        target = QueryClaim.from_row({"claim_id": "cli", "text": claim, "veracity": veracity, "published_date": day})
        result = analyze(claim, s.nlp)
        queries = build_queries(target, result, settings=s)
    except (ValueError, StanzaModelsMissing) as exc:
        fail(str(exc))
    console.print(f"analyzer: {result.analyzer}")
    print_table([{"entity": e.text, "type": e.label} for e in result.entities], title="Named entities")
    console.print(shown(f"first verb phrase ({'cut at ' + result.cut_reason if result.was_cut else 'not cut'}): "
                        f"{result.verb_phrase}"))
    print_table(
        [
            {
                "kind": q.kind,
                "text": q.text,
                "window": f"{q.window_start} .. {q.window_end}" if q.dated else "",
                "analyzer": q.analyzer,
                "also stands for": ", ".join(q.also_kinds),
            }
            for q in queries
        ],
        title="Queries",
    )


def register(app: typer.Typer) -> None:
    app.add_typer(nlp_app, name="nlp")
