"""The stages the fault-injection suite kills, each a function of its working directory.

Each stage runs its real code path on the files prepared in the directory. Prefect is left out
(an ephemeral Prefect server takes longer to start than the whole suite may take): the
retrieval stage calls the stage logic of :mod:`tasks.retrieval` and training the task
functions, in the same order as their flows (each flow task opens the warehouse per call).
The settings come from the environment (``ARASTANCE_*``), as in any run.
"""

from __future__ import annotations

from pathlib import Path


def load(work: Path) -> None:
    from tasks.claim_load.load import load_crawl_run
    from warehouse import open_warehouse

    for run_dir in sorted((work / "runs").iterdir()):
        with open_warehouse(work / "warehouse.duckdb") as wh:
            load_crawl_run(wh, run_dir)


def annotation_import(work: Path) -> None:
    from tasks.annotation.workflow import import_annotations
    from warehouse import open_warehouse

    with open_warehouse(work / "warehouse.duckdb") as wh:
        for path in sorted((work / "labels").iterdir()):
            import_annotations(wh, path)


def crawl(work: Path) -> None:
    from arastance.config import load_settings
    from tasks.crawl_runner import run_spider
    from tasks.claim_load.load import load_crawl_run
    from warehouse import open_warehouse

    settings = load_settings()
    result = run_spider("dabegad", settings, timeout_s=120)
    with open_warehouse(settings.warehouse) as wh:
        load_crawl_run(wh, result.run_dir, settings=settings)


def retrieval(work: Path) -> None:
    from arastance.config import load_settings
    from tasks.retrieval import plan_retrieval, store_claim_search
    from tasks.search.batch import ClaimSearch, configured_backend, run_claim_queries
    from warehouse import open_warehouse

    settings = load_settings()
    path = settings.warehouse
    with open_warehouse(path) as wh:
        plan = plan_retrieval(wh, settings, None, None, False)
    for claim_id, claim in plan.claims.items():
        todo = plan.to_send.get(claim_id)
        search = (run_claim_queries(claim_id, todo, settings.search.results_per_query, configured_backend(settings))
                  if todo else ClaimSearch(claim_id))
        with open_warehouse(path) as wh:
            store_claim_search(wh, settings.search, claim, plan.queries[claim_id], search, settings.search.backend)


def training(work: Path) -> None:
    from arastance.config import load_settings
    from helpers_stance import tiny_examples
    from tasks.stance.model import create_model
    from tasks.stance.runs import evaluate_split, record_run, train_and_save

    settings = load_settings()
    examples = tiny_examples()
    for _ in range(2):  # two runs, so a kill can land between two of them too
        model = create_model("cpu", settings.model, "4way", variant="tfidf")
        trained = train_and_save(model, examples, work / "models", "tiny", examples)
        result = evaluate_split(model, examples, "tiny", "dev")
        record_run(settings.warehouse, trained.run, [result], artifact_path=trained.directory)


STAGES = {"load": load, "annotation-import": annotation_import, "crawl": crawl, "retrieval": retrieval,
          "training": training}

