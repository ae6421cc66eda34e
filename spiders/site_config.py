"""The site registry as the spiders see it: re-exported from :mod:`arastance.base.sites`.

The registry (one TOML file a site) lives in the base layer, because the tasks and flows that
run the spiders read it too and spiders and tasks never import each other.
"""

from arastance.base.sites import (
    METHODS,
    DetailSelectors,
    ListingSelectors,
    SiteConfig,
    SiteConfigError,
    all_site_configs,
    available_sites,
    crawl_modes,
    enabled_sites,
    load_site_config,
    parse_site_config,
    site_base_url,
)

__all__ = [
    "METHODS", "DetailSelectors", "ListingSelectors", "SiteConfig", "SiteConfigError", "all_site_configs",
    "available_sites", "crawl_modes", "enabled_sites", "load_site_config", "parse_site_config", "site_base_url",
]
