"""Base URLs of the crawled sites: the real sites by default, the offline snapshots in the demo."""

from pydantic import HttpUrl

from arastance.config.base import SettingsGroup


class SitesSettings(SettingsGroup):
    """Where each spider starts; changing a site's address never needs a code change."""

    araanews: HttpUrl = HttpUrl("https://araanews.ae/")
    dabegad: HttpUrl = HttpUrl("https://dabegad.com/")
    norumors: HttpUrl = HttpUrl("https://norumors.net/")
    reuters: HttpUrl = HttpUrl("https://ara.reuters.com/")  # Reuters Arabic
