"""Loading an AraStance-format dataset (our export, or the public AraStance release) into the warehouse.

Claim ids are kept as the file gives them and article ids follow the warehouse rule
(``stable_id(canonical_url)``), so loading our own export reproduces the same dataset and
exporting it again gives the same files. Every published stance becomes a gold label with
method ``single`` (one label per pair, as released) and every claim keeps the split its file
names. An article without a URL (a line with only ``claim``, ``article`` and ``stance``) is
identified by its text: ``arastance:article:<stable_id(text)>`` stands in for the URL. Rows
already in the warehouse are left as they are.

A claim is one line of one split file: the same id (or, for lines without one, the same claim text)
on two lines, of two split files or of one, is refused, naming both places, and so is a line
listing one article twice (two URLs that canonicalise alike), whose second stance would otherwise
be dropped unseen. Loaded claims get the normalised text and content hash a crawled claim gets, and
the near-duplicate clusters of their veracity are brought up to date as after a crawl's load
(:func:`tasks.claim_load.clusters.refresh_clusters`: the new claims matched against the index when it
was current and they are few, else a full re-cluster), so that a loaded claim that repeats a stored
one shares its cluster; a cluster that then holds two splits keeps one and the others are left out
of the dataset (:func:`tasks.dataset.assemble.leave_out_split_conflicts`), as in a build. The rows
and their clusters are written in one transaction: a load that fails while clustering stores no claim,
so loading the files again clusters them (claims stored before would count as loaded, never clustered).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from arastance.base.arabic import normalize
from arastance.base.ids import content_hash, stable_id
from arastance.base.urls import UrlError, canonicalize_url, domain_of
from arastance.config import Settings, load_settings
from tasks.claim_load.clusters import refresh_clusters
from tasks.dataset.arastance_format import DatasetFileError
from tasks.dataset.assemble import leave_out_split_conflicts
from tasks.dataset.export import Format, read_dataset_located
from tasks.dataset.splits import SPLITS
from warehouse import Warehouse
from warehouse import claims as claim_store
from warehouse import dataset as store
from warehouse import near_duplicates


@dataclass(frozen=True)
class LoadSummary:
    claims: int
    articles: int
    pairs: int
    gold_labels: int
    splits: int
    split_conflicts: int  # dataset claims left out: a near-duplicate holds another split


def _require_split_files(directory: Path, fmt: Format) -> None:
    """A mistyped directory would otherwise load as a dataset of no claims: at least one split file,
    and each one present a file."""
    names = [f"{split}.{fmt}" for split in SPLITS]
    if not directory.is_dir():
        raise DatasetFileError(f"{directory}: not a directory (expected one holding {', '.join(names)})")
    present = [directory / name for name in names if (directory / name).exists()]
    if not present:
        raise DatasetFileError(f"{directory}: none of {', '.join(names)} to load")
    for path in present:
        if not path.is_file():
            raise DatasetFileError(f"{path}: not a file")


def _refuse_a_repeated_claim(claim_id: str, earlier: tuple[str, str] | None, where: str, split: str) -> None:
    """A claim is one line of one split file: a second line in another split would move it, and one in
    the same file would be merged into the first unseen, any stance it gives a pair again dropped (the
    training reader refuses such a file too, naming both lines). ``earlier``: ``(where, split)`` read before."""
    if earlier is None:
        return
    same_split = earlier[1] == split
    rule = "a claim is one line of its split file" if same_split else "a claim belongs to one split"
    raise DatasetFileError(f"claim {claim_id!r} is in {earlier[0]} and in {where}: {rule} (a line without 'id' "
                           "is identified by its claim text); remove it from one of the "
                           f"{'lines' if same_split else 'files'}")


def load_export(
    wh: Warehouse,
    directory: Path,
    *,
    source_id: str,
    veracity: Literal["false", "true"] = "false",
    fmt: Format = "jsonl",
    now: datetime | None = None,
    settings: Settings | None = None,
) -> LoadSummary:
    """Load every split file of ``directory`` as claims of ``source_id``; returns the new rows per table.

    ``settings`` (default: the configured ones) give the near-duplicate threshold and shingle size.
    """
    _require_split_files(directory, fmt)
    dedup = (settings or load_settings()).crawl
    when = now or datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    claims, articles, pairs, gold, splits = {}, {}, {}, {}, {}
    first_seen: dict[str, tuple[str, str]] = {}  # claim id -> where it was read, and its split
    for split, records in read_dataset_located(directory, fmt).items():
        for where, rec in records:
            _refuse_a_repeated_claim(rec.id, first_seen.get(rec.id), where, split)
            first_seen[rec.id] = (where, split)
            normalized = normalize(rec.claim)
            claims.setdefault(rec.id, {
                "claim_id": rec.id, "source_id": source_id, "url": f"arastance:{rec.id}", "canonical_url": f"arastance:{rec.id}",
                "title": None, "cleaned_text": rec.claim, "normalized_text": normalized or None,
                "content_hash": content_hash(normalized) if normalized else None,
                "veracity": veracity, "first_seen": when, "last_seen": when,
            })
            splits.setdefault(rec.id, {"claim_id": rec.id, "split": split, "assigned_at": when, "seed": None})
            ranks: dict[str, int] = {}  # article id -> its first position on this line
            for rank, (text, title, url, stance) in enumerate(
                zip(rec.article, rec.article_title, rec.article_url, rec.stance), start=1
            ):
                if not url:
                    url = canonical = f"arastance:article:{stable_id(text)}"
                    domain = None
                else:
                    try:
                        canonical = canonicalize_url(url)
                    except UrlError as exc:
                        raise ValueError(f"{where} ({rec.id}), article {rank}: {exc}") from None
                    domain = domain_of(url)
                article_id = stable_id(canonical)
                if article_id in ranks:
                    raise DatasetFileError(
                        f"{where} ({rec.id}): articles {ranks[article_id]} and {rank} are the same article "
                        f"({canonical}); one pair has one stance, so list it once")
                ranks[article_id] = rank
                articles.setdefault(article_id, {
                    "article_id": article_id, "url": url, "canonical_url": canonical, "domain": domain,
                    "title": title, "text": text, "fetch_status": "ok", "fetched_at": when,
                })
                pair_id = stable_id(rec.id, article_id)
                pairs.setdefault(pair_id, {
                    "pair_id": pair_id, "claim_id": rec.id, "article_id": article_id, "rank": rank,
                    "similarity": None, "reason": "loaded from an AraStance-format file", "created_at": when,
                })
                gold.setdefault(pair_id, {"pair_id": pair_id, "label": stance, "method": "single", "decided_at": when,
                                        "origin": "dataset_file"})
    clustering = {"threshold": dedup.near_duplicate_threshold, "shingle_size": dedup.shingle_size}
    with wh.transaction():
        index_current = near_duplicates.is_current(wh, veracity, **clustering)  # before the new claims change it
        stored = claim_store.known_claim_ids(wh, list(claims))
        new_ids = [c for c in claims if c not in stored]  # a stored claim is kept as it is: none changes
        counts = store.load_dataset_rows(
            wh, list(claims.values()), list(articles.values()), list(pairs.values()), list(gold.values()), list(splits.values())
        )
        if new_ids:  # cluster them with the stored ones, then keep every cluster in one split
            refresh_clusters(
                wh, veracity, new_claim_ids=new_ids, changed_claims=0, index_current=index_current, **clustering
            )
    return LoadSummary(*counts, leave_out_split_conflicts(wh, now=when))

