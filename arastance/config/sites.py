"""Base URLs of the crawled sites: the real sites by default, the offline snapshots in the demo."""

from pydantic import ConfigDict, HttpUrl, TypeAdapter, ValidationError, model_validator

from arastance.base.sites import available_sites
from arastance.config.base import SettingsGroup


_HTTP_URL = TypeAdapter(HttpUrl)


def _site_url(name: str, value: object) -> HttpUrl:
    """An extra site's address checked as the named sites' are: an ``https://`` with no host (or a space in
    it) passed a prefix check and failed only when the crawl reached it."""
    try:
        return _HTTP_URL.validate_python(value)
    except ValidationError as exc:
        raise ValueError(f"sites.{name} (ARASTANCE_SITES__{name.upper()}): {exc.errors()[0]['msg']} "
                         f"(got {value!r})") from None


class SitesSettings(SettingsGroup):
    """Where each spider starts; changing a site's address never needs a code change.

    The paper's four sites are named here; any other registered site (a TOML file in
    ``arastance/base/site_configs/``) may be given too (``sites.misbar = "..."``) and otherwise starts at
    its configuration's ``canonical_base``. A name that is no registered site is refused: a typo
    (``ARASTANCE_SITES__DABEGGAD``) would otherwise leave the real site's crawl on its default address.
    """

    model_config = ConfigDict(extra="allow")

    araanews: HttpUrl = HttpUrl("https://araanews.ae/")
    dabegad: HttpUrl = HttpUrl("https://dabegad.com/")
    norumors: HttpUrl = HttpUrl("https://norumors.net/")
    reuters: HttpUrl = HttpUrl("https://ara.reuters.com/")  # Reuters Arabic

    @model_validator(mode="after")
    def _extra_sites_are_urls(self) -> "SitesSettings":
        registered = available_sites()
        for name, value in (self.model_extra or {}).items():
            if name not in registered:
                raise ValueError(f"sites.{name} is not a registered site (registered: {', '.join(registered)})")
            self.model_extra[name] = str(_site_url(name, value))  # type: ignore[index]
        return self

    def base_url(self, site: str) -> str | None:
        """The configured base URL of ``site``, or None to use the site's canonical base."""
        value = getattr(self, site, None) if site in type(self).model_fields else (self.model_extra or {}).get(site)
        return None if value is None else str(value)
