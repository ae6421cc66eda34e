"""Staging runs for the loader's tests, written in the crawl staging contract's format."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arastance.base.ids import content_hash, stable_id

SITE_BASE = {
    "araanews": "https://araanews.ae",
    "dabegad": "https://dabegad.com",
    "norumors": "https://norumors.net",
    "reuters": "https://www.reuters.com",
}


@dataclass
class StagedPost:
    """One detail page of a staging run; ``html`` defaults to a small page built from the claim."""

    path: str
    claim_text: str
    title: str = ""
    published_raw: str | None = "3 مايو 2016"
    published_date: str | None = "2016-05-03"
    is_multimedia: bool = False
    category: str | None = "صحة"
    claim_review: dict[str, Any] | None = None
    fetched_at: str = "2018-03-10T12:00:00+00:00"
    captured_at: str | None = None  # a page read from a web archive: when the archive captured it
    html: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def write_run(
    run_dir: Path,
    source_id: str,
    posts: list[StagedPost],
    *,
    run_id: str | None = None,
    failed_pages: int = 0,
    dropped: dict[str, int] | None = None,
) -> Path:
    """Write ``run.json``, ``pages.jsonl`` (with gzip'd bodies) and ``claims.jsonl``."""
    run_id = run_id or run_dir.name
    (run_dir / "pages").mkdir(parents=True, exist_ok=True)
    veracity = "true" if source_id == "reuters" else "false"
    pages, claims = [], []
    for post in posts:
        url = SITE_BASE[source_id] + post.path
        html = post.html or (
            f'<html lang="ar" dir="rtl"><head><title>{post.title}</title></head>'
            f"<body><h1>{post.title}</h1><blockquote>{post.claim_text}</blockquote></body></html>"
        )
        body = html.encode("utf-8")
        digest = content_hash(body)
        page_id = stable_id(url, digest)
        html_file = f"pages/{page_id}.html.gz"
        (run_dir / html_file).write_bytes(gzip.compress(body))
        pages.append({
            "run_id": run_id, "page_id": page_id, "url": url, "source_id": source_id,
            "fetched_at": post.fetched_at, "http_status": 200, "content_hash": digest,
            "html_file": html_file, "parse_status": "ok", "parse_error": None,
            **({"original_url": url, "captured_at": post.captured_at} if post.captured_at else {}),
        })
        claims.append({
            "run_id": run_id, "source_id": source_id, "url": url, "title": post.title,
            "claim_text": post.claim_text, "body_text": "فقرة من نص المقال.",
            "published_raw": post.published_raw, "published_date": post.published_date,
            "category": post.category, "is_multimedia": post.is_multimedia, "claim_review": post.claim_review,
            "veracity": veracity, "page_id": page_id, "fetched_at": post.fetched_at, **post.extra,
        })
    for i in range(failed_pages):
        url = f"{SITE_BASE[source_id]}/broken-{i}/"
        body = b"<html><body>Internal Server Error</body></html>"
        digest = content_hash(body)
        pages.append({
            "run_id": run_id, "page_id": stable_id(url, digest), "url": url, "source_id": source_id,
            "fetched_at": "2018-03-10T12:00:00+00:00", "http_status": 500, "content_hash": digest,
            "html_file": None, "parse_status": "failed", "parse_error": "http_500: server error",
        })
    write_jsonl(run_dir / "pages.jsonl", pages)
    write_jsonl(run_dir / "claims.jsonl", claims)
    (run_dir / "run.json").write_text(json.dumps({
        "run_id": run_id, "source_id": source_id, "started_at": "2018-03-10T11:59:00+00:00",
        "finished_at": "2018-03-10T12:01:00+00:00", "pages": len(pages), "items": len(claims),
        "errors": failed_pages, "dropped": dropped or ({"http_500": failed_pages} if failed_pages else {}),
        "stats": {"downloader/request_count": len(pages)},
    }, ensure_ascii=False), encoding="utf-8")
    return run_dir


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
