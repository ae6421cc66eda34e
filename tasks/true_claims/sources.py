"""Which configured headline sources the warehouse actually holds true claims from.

``selection.headline_sources`` names sources by ``source_id``. A typo there (``reuter``) matches no
claim, and the selection would then choose nothing and still "succeed". A source that simply
has not been crawled yet looks the same, so the decision uses what else is stored: when the
warehouse holds true claims, but none from any configured source, the setting is wrong and the
run stops naming it; a configured source without claims beside others that have some is only
logged, since one site may be crawled later than another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arastance.logging import get_logger

log = get_logger(__name__)

SETTING = "ARASTANCE_SELECTION__HEADLINE_SOURCES"


class HeadlineSourcesError(ValueError):
    """No configured headline source holds a true claim, while other sources do."""


def check_headline_sources(configured: Sequence[str], stored: Mapping[str, int]) -> list[str]:
    """The configured sources with no stored true claim; raise when that is every one of them.

    ``stored`` maps each source id to its number of active true claims. An empty warehouse (no
    true claim at all) is not an error: the crawl has not run yet, and the flow says so.
    """
    missing = [source for source in configured if not stored.get(source)]
    if missing and len(missing) == len(configured) and stored:
        known = ", ".join(f"{source} ({count})" for source, count in sorted(stored.items()))
        raise HeadlineSourcesError(
            f"{SETTING} names {', '.join(missing)}, but the warehouse holds no true claim from "
            f"{'it' if len(missing) == 1 else 'them'}; sources with true claims: {known}")
    if missing:
        log.warning("headline source holds no true claim", extra={"sources": ", ".join(missing)})
    return missing
