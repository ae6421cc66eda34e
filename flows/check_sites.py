"""Prefect flow ``check_sites``: a sample of every enabled site, its field coverage as an artifact.

Scheduled weekly (``prefect.yaml``: ``sites-check-weekly``) so that a site that changed its
markup or disappeared is noticed before the daily crawl starves; the run fails naming every
site below the coverage threshold.
"""

from __future__ import annotations

from typing import Annotated, Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from pydantic import Field

from arastance.base.sites import enabled_sites
from arastance.config import load_settings
from flows.artifacts import table_artifact
from tasks.site_check import SiteCheck, check_site


@task(cache_policy=NO_CACHE)
def check_one_site(site: str, archive: bool, sample: int, threshold: float) -> SiteCheck:
    """One site's sample crawl and coverage (its own spider process)."""
    return check_site(site, load_settings(), archive=archive, sample=sample, threshold=threshold)


@flow(name="check_sites", validate_parameters=True)
def check_sites(sites: Annotated[list[str], Field(min_length=1)] | None = None, archive: bool = False, sample: Annotated[int, Field(ge=1)] = 10,
                threshold: Annotated[float, Field(ge=0, le=1)] = 0.8) -> list[dict[str, Any]]:
    """Check ``sites`` (default: the enabled ones); publish the per-field table; fail below ``threshold``.

    Args:
        sites: sites to check (default: every site enabled in arastance/base/site_configs; an empty list is
            refused, not read as all).
        archive: sample the sites' web-archive captures instead of the live sites.
        sample: claim pages per site.
        threshold: least share (0 to 1) of sampled claims that must have each gated field (title, claim, date).
    """
    checks = [check_one_site(site, archive, sample, threshold) for site in (sites or enabled_sites())]
    table_artifact([row for c in checks for row in c.rows()], key="sites-check",
                   description="per-site, per-field coverage of a sample and the layers that gave it")
    summaries = [c.summary() for c in checks]
    failed = [f"{c.site}: {c.problem or 'coverage below ' + str(threshold)}" for c in checks if not c.ok]
    if failed:
        raise RuntimeError(f"site check failed for {'; '.join(failed)}")
    return summaries
