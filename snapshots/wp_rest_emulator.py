"""The WordPress REST API's paging of ``/wp-json/wp/v2/posts``, played by the snapshot server.

A static page cannot page: the snapshot build writes a site's whole post collection as one JSON
file (:data:`COLLECTION_FILE`, in the collection's directory) and the server answers each
request from it as WordPress core does (``WP_REST_Posts_Controller::get_items``): ``per_page``
from 1 to 100 (default 10), ``page`` from 1 (default 1), the totals in ``X-WP-Total`` and
``X-WP-TotalPages``, HTTP 400 ``rest_invalid_param`` for a malformed parameter and HTTP 400
``rest_post_invalid_page_number`` for a page past the last one. So a crawler's paging is tested
against the protocol, not against a page that happens to hold every post.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from snapshots.archive_emulator import Answer

#: The file, in a REST collection's directory, that holds all its items (newest first).
COLLECTION_FILE = "wp-rest-collection.json"
DEFAULT_PER_PAGE = 10
MAX_PER_PAGE = 100
JSON_TYPE = "application/json; charset=UTF-8"


def _error(code: str, message: str, **data: Any) -> Answer:
    body = {"code": code, "message": message, "data": {"status": 400, **data}}
    return Answer(400, json.dumps(body).encode("utf-8"), JSON_TYPE)


def _integer(params: dict[str, list[str]], name: str, default: int, low: int, high: int | None) -> int | None:
    """The parameter ``name`` as an integer in ``low..high``; None when it is not one."""
    values = params.get(name)
    if not values:
        return default
    text = values[-1].strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value >= low and (high is None or value <= high) else None


def answer_collection(items: list[Any], query: str) -> Answer:
    """The page of ``items`` that ``query`` (``per_page``, ``page``) asks for, as WordPress answers it."""
    params = parse_qs(query, keep_blank_values=True)
    per_page = _integer(params, "per_page", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE)
    if per_page is None:
        return _error("rest_invalid_param", "Invalid parameter(s): per_page",
                      params={"per_page": f"per_page must be between 1 (inclusive) and {MAX_PER_PAGE} (inclusive)"})
    page = _integer(params, "page", 1, 1, None)
    if page is None:
        return _error("rest_invalid_param", "Invalid parameter(s): page",
                      params={"page": "page must be greater than or equal to 1"})
    total = len(items)
    total_pages = -(-total // per_page)
    if page > total_pages and total > 0:
        return _error("rest_post_invalid_page_number",
                      "The page number requested is larger than the number of pages available.")
    body = json.dumps(items[(page - 1) * per_page: page * per_page], ensure_ascii=False).encode("utf-8")
    return Answer(200, body, JSON_TYPE, headers=(("X-WP-Total", str(total)), ("X-WP-TotalPages", str(total_pages))))
