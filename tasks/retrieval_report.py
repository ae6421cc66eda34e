"""What a document retrieval run tells its user: the report of its claims, queries and fetches,
and the one line that says why its searches stopped and which command takes the claims left up.

Plain functions of the run's plan and per-claim rows (those of
:func:`flows.retrieve_documents.claim_row`), so the flow only publishes them.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from tasks.retrieval import RetrievalPlan
from tasks.search.batch import ClaimSearch


def next_run(backend: str, plan: RetrievalPlan, left: list[str], claim_ids: list[str] | None) -> str:
    """Which command takes up the claims ``left`` (not searched, failed, deferred) by a run of
    ``plan``: with ``--backend`` (a run's ``--backend`` holds for that run only), with the ids left
    when the run was given ``claim_ids``, and with ``--redo`` when one of them only a redo run takes
    (:attr:`RetrievalPlan.redo_only`), saying why: ``retrieve status`` shows those done, and a
    run without it leaves them so."""
    command = ["arastance", "retrieve", "--backend", backend]
    done = len(plan.redo_only.intersection(left))
    if done:
        command.append("--redo")
    for claim_id in left if claim_ids else []:
        command += ["--claim", claim_id]
    why = (f" ({done} of them stay done with their earlier documents, as `retrieve status` shows them: a run "
           "without --redo leaves those as they are)") if done else ""
    return f"`{shlex.join(command)}` takes them up{why}"


def stop_message(rows: list[dict[str, Any]], plan: RetrievalPlan, backend: str,
                 claim_ids: list[str] | None = None) -> str | None:
    """The one line that says why the searches stopped, what is left and which command takes it
    up, or None when they did not stop: the claims that failed on their own and those the budget
    deferred are named too, as the run ends on this line alone. A redo run's claims stored done
    stay done (``retrieve status`` shows them so), so the line says that only ``--redo`` takes them."""
    pending = [r for r in rows if r["status"] == "pending"]
    if not pending:
        return None
    failed = [r for r in rows if r["status"] == "failed"]
    searched = len(rows) - len(pending) - len(failed)
    why = " ".join(pending[0]["error"].split())  # one line, whatever the API's text holds
    also = f", {len(failed)} failed (first error: {' '.join(failed[0]['error'].split())})" if failed else ""
    also += f", {len(plan.deferred)} deferred by the daily query budget" if plan.deferred else ""
    left = [*(r["claim_id"] for r in pending + failed), *plan.deferred]
    return (f"retrieval stopped: {why}. {len(pending)} claim(s) not searched, {searched} searched and stored{also}; "
            f"{next_run(backend, plan, left, claim_ids)}")


def fetch_summary(fetched: dict[str, int]) -> str:
    """The article fetch's figures (:func:`flows.retrieve_documents.fetch_and_rank`) as the report's sentence: its waves, the
    pages it fetched and how many stored articles ended in each fetch status."""
    if not fetched:
        return "not run (fetch off, or no claim searched)"
    statuses = ", ".join(f"{n} {status}" for status, n in fetched.items() if status not in ("waves", "fetched"))
    return f"{fetched['waves']} wave(s), {fetched['fetched']} page(s) fetched ({statuses})"


@dataclass
class SentQueries:
    """What the searches of a run sent, as the workers' :class:`ClaimSearch` results say: the
    queries the API answered and the requests (pages) it billed for them, out of those planned."""

    planned: int
    answered: int = 0
    billed: int = 0

    def add(self, search: ClaimSearch) -> None:
        """Count one claim's search as it comes back (a stopped or failed one may have answered some)."""
        self.answered += len(search.results)
        self.billed += search.billed

    def summary(self, cached: int) -> str:
        """The report's sentence: what the cache answered, what was sent and answered (and billed:
        a query of 30 results is up to 3 requests), and what is left unanswered (not sent after a
        stop, refused, failed), which the claims' next run sends; the cache answers the rest."""
        unanswered = self.planned - self.answered
        left = (f"; {unanswered} not answered (not sent, refused or failed): the run that takes their claims up "
                "again sends them") if unanswered else ""
        return (f"{cached} answered from the cache, {self.answered} sent and answered ({self.billed} billed "
                f"request(s): pages of results){left}")


def report_markdown(rows: list[dict[str, Any]], fetched: dict[str, int], plan: RetrievalPlan, sent: SentQueries,
                    backend: str) -> str:
    """The run's report (the ``retrieve-documents-report`` artifact): the claims by status, the
    queries the cache answered and those sent and billed, the documents kept, the pairs and the
    article fetch."""
    failed = [r for r in rows if r["status"] == "failed"]
    return (f"# Document retrieval ({backend})\n\n"
            f"- claims: {len(rows)} ({sum(r['status'] == 'done' for r in rows)} done, {len(failed)} failed, "
            f"{sum(r['status'] == 'pending' for r in rows)} left pending by a refused key or a spent quota, "
            f"{len(plan.deferred)} deferred by the query budget)\n"
            f"- queries: {sent.summary(plan.cached_queries)}\n"
            f"- kept documents: {sum(r['kept'] or 0 for r in rows)}; pairs: {sum(r['pairs'] or 0 for r in rows)}\n"
            f"- article fetch: {fetch_summary(fetched)}\n")
