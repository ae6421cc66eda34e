"""Task run names that say what a run works on (a site, a claim's first words), not a hash.

Prefect names a task run ``<task>-<random>`` unless told; in a retrieval of 200 claims that
is 200 ``search_claim-3f2a`` boxes in the graph. These callables read the run's own
parameters, so a flow passes nothing extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CLAIM_WORDS = 6


def first_words(text: str, words: int = CLAIM_WORDS) -> str:
    """The opening words of a claim, with an ellipsis when there are more."""
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _parameters() -> dict[str, Any]:
    from prefect.runtime import task_run

    return dict(task_run.parameters or {})


def claim_run_name(action: str) -> Callable[[], str]:
    """``"<action>: <claim's first words>"`` from the run's ``claim`` (a row with ``text``) or
    ``label`` parameter; the claim id when neither is there."""
    def name() -> str:
        params = _parameters()
        claim = params.get("claim") or {}
        text = params.get("label") or claim.get("text") or params.get("claim_id") or "?"
        return f"{action}: {first_words(str(text))}"

    return name
