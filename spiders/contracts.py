"""``scrapy check`` contracts of the site spiders.

The site callbacks are shared by every site (one spider class, per-site configuration), so
their contracts cannot name a URL: ``@site_page listing`` and ``@site_page detail`` ask each
site's spider for its own page of that kind (its first start path; its configuration's ``[contracts] detail``),
resolved against the base URL it crawls (``sites.<site>``, or ``-a base_url=``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scrapy.contracts import Contract


class SitePageContract(Contract):
    """``@site_page listing|detail``: request the site's sample page of that kind."""

    name = "site_page"

    def __init__(self, method: Callable[..., Any], *args: Any) -> None:
        super().__init__(method, *args)
        self.spider = method.__self__  # type: ignore[attr-defined]  # the callback is bound to the site's spider

    def adjust_request_args(self, args: dict[str, Any]) -> dict[str, Any]:
        spider = self.spider
        kind = self.args[0] if self.args else ""
        if kind == "listing":
            path = spider.config.start_paths[0]
        elif kind == "detail":
            path = spider.config.contract_detail_path
            if not path:
                raise ValueError(f"site {spider.name!r} names no detail page for `scrapy check`: add "
                                 f"[contracts] detail to its TOML, or check the other sites by name")
        else:
            raise ValueError(f"@site_page takes listing or detail, not {kind!r}")
        args["url"] = spider.urls.absolute(path)
        return args
