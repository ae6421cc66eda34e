"""``arastance sites list`` and ``arastance sites check <site>``: the site registry and site health."""

from __future__ import annotations

import typer

from arastance.cli.commands.crawl import check_offline
from arastance.cli.common import console, fail, offline_world_if, print_table, require_stdout, settings

sites_app = typer.Typer(help="The registered sites and their health.", no_args_is_help=True)


@sites_app.command("list")
def sites_list() -> None:
    """Every site in arastance/base/site_configs: who it is, whether it is crawled by default, how it is discovered."""
    require_stdout()
    settings()
    from arastance.base.sites import all_site_configs

    print_table([{"site": c.source_id, "name": c.name, "country": c.country or "-", "veracity": c.veracity,
                  "enabled": c.enabled, "live": c.live, "discovery": " > ".join(c.discovery),
                  "base_url": c.canonical_base} for c in all_site_configs()], title="Sites")


@sites_app.command("check")
def sites_check(
    site: str = typer.Argument(..., help="a registered site (arastance sites list)"),
    archive: bool = typer.Option(False, "--archive", help="sample the site's web-archive captures (crawl.archive_*)"),
    sample: int = typer.Option(10, "--sample", min=1, max=500, help="claim pages to fetch"),
    min_coverage: float = typer.Option(0.8, "--min-coverage", min=0.0, max=1.0,
                                       help="least share of sampled claims with a title, claim and date"),
    offline: bool = typer.Option(False, "--offline", help="check the local snapshots instead of the real site"),
) -> None:
    """Fetch a listing and N claim pages and print each field's coverage and the layer that gave it.

    Exits 1 when a gated field (title, claim, date, and the site's required ones) is below
    --min-coverage, or nothing could be parsed.
    """
    settings()  # a bad setting stops here, before anything is fetched
    from arastance.base.sites import available_sites

    if site not in available_sites():
        fail(f"unknown site {site!r}; registered: {', '.join(available_sites())}")
    from tasks.site_check import check_site

    if offline:
        check_offline([site])  # another site would be fetched live, with the snapshots' delays of 0
    with offline_world_if(offline):
        result = check_site(site, settings(), archive=archive, sample=sample, threshold=min_coverage)
    print_table(result.rows(), title=f"{site} ({result.mode}): {result.claims} claim(s) from {result.pages} page(s), "
                                     f"{result.errors} failed")
    if not result.ok:
        fail(f"{site}: {result.problem or f'a gated field is below {min_coverage:.0%} coverage'}", code=1)
    console.print(f"{site}: ok", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(sites_app, name="sites")
