"""Claims prepared by a worker process while the load stores the run's pages.

A load has two phases that need different things: storing pages (bodies read and inflated by
threads that release the GIL, DuckDB inserts) and preparing claims (cleaning, normalising, URL
canonicalisation, validation: pure Python on one core). One after the other they took 72 s for
100k claims with 30 KiB bodies. Here a worker process prepares the claims during the page phase,
on the other core, with the same functions as the in-process path, and hands them over as one
file per batch, so the parent still holds one batch of claims at a time. The worker reads the
run's page ids itself (one pass over pages.jsonl, on its own core) rather than wait for the
parent's page phase to collect them.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal

from tasks.claim_cleaning import DebunkPatterns
from tasks.claim_load.rows import prepared_claims
from tasks.claim_load.staged import open_staging_run

#: Runs with at least this many claims prepare them ahead; below it the worker's start-up
#: (a fresh interpreter importing the cleaning code, about a second) costs more than it saves.
AHEAD_FROM = 20_000

_ERROR = "error.pickle"


def _prepare_to_files(run_dir: str, patterns: DebunkPatterns, noun_phrases: str, out: str) -> None:
    """The worker: every batch of prepared claims into ``out`` in order, or the error that stopped it."""
    try:
        staged = open_staging_run(Path(run_dir))
        page_ids = {page.page_id: page.captured_at for _, page in staged.pages()}
        for i, batch in enumerate(prepared_claims(staged, page_ids, patterns, noun_phrases)):  # type: ignore[arg-type]
            part = Path(out) / f"batch-{i:06d}.part"
            part.write_bytes(pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL))
            part.rename(part.with_suffix(".pickle"))
    except BaseException as exc:  # handed to the parent, which raises it where the claims are used
        (Path(out) / _ERROR).write_bytes(pickle.dumps(exc))


@contextmanager
def claims_prepared_ahead(
    run_dir: Path, patterns: DebunkPatterns, noun_phrases: Literal["active", "review"]
) -> Iterator[Callable[[], Iterator[list[dict[str, Any]]]]]:
    """Start preparing ``run_dir``'s claims now; yields a function that gives their batches.

    The batches are those of :func:`tasks.claim_load.rows.prepared_claims`, in file order; a bad
    staged claim raises the same error when the batches are read. Leaving the block stops a
    worker that is still running (a load that failed on its pages) and removes its files.
    """
    with tempfile.TemporaryDirectory(prefix="arastance-claims-") as tmp:
        worker = get_context("spawn").Process(
            target=_prepare_to_files, args=(str(run_dir), patterns, noun_phrases, tmp),
            name=f"prepare claims of {run_dir.name}", daemon=True,
        )
        worker.start()

        def batches() -> Iterator[list[dict[str, Any]]]:
            worker.join()
            error = Path(tmp) / _ERROR
            if error.exists():
                raise pickle.loads(error.read_bytes())
            if worker.exitcode != 0:
                raise RuntimeError(f"the worker preparing the claims of {run_dir} exited with code {worker.exitcode}")
            for path in sorted(Path(tmp).glob("batch-*.pickle")):
                yield pickle.loads(path.read_bytes())
                path.unlink()

        try:
            yield batches
        finally:
            if worker.is_alive():
                worker.terminate()
            worker.join()
