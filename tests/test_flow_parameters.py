"""What a deployment's form can be given: values that would run the wrong work are refused up front."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect.exceptions import ParameterTypeError

from arastance.config import load_settings
from flows.pipeline import arastance_pipeline
from flows.retrieve_documents import retrieve_documents
from flows.select_true_claims import select_true_claims
from tasks.retrieval import plan_retrieval
from warehouse import WarehouseError, flow_warehouse, open_warehouse


@pytest.mark.parametrize(("flow", "parameters"), [
    (retrieve_documents, {"limit": 0}),
    (retrieve_documents, {"limit": -1}),  # was: every pending claim but the last
    (arastance_pipeline, {"retrieve_limit": -200}),
    (arastance_pipeline, {"stages": []}),  # was: every stage, a live crawl included
])
def test_a_limit_below_one_or_no_stage_is_refused(flow, parameters: dict[str, object]) -> None:  # noqa: ANN001
    with pytest.raises(ParameterTypeError):
        flow.validate_parameters(parameters)
    good = {"limit": 3} if flow is retrieve_documents else {"retrieve_limit": 3, "stages": ["select"]}
    validated = flow.validate_parameters(good)
    assert {key: validated[key] for key in good} == good


def test_the_retrieval_plan_refuses_a_limit_below_one_itself() -> None:
    with open_warehouse(load_settings().warehouse) as wh:
        for limit in (0, -1):
            with pytest.raises(ValueError, match=f"limit {limit}: at most how many claims get documents"):
                plan_retrieval(wh, load_settings(), None, limit, False)


def test_a_flow_refuses_a_warehouse_path_that_does_not_exist(tmp_path: Path) -> None:
    settings = load_settings()
    configured = settings.warehouse
    assert flow_warehouse(None, settings) == configured  # created on first use
    assert flow_warehouse(str(configured), settings) == configured
    with open_warehouse(tmp_path / "other.duckdb"):
        pass
    assert flow_warehouse(str(tmp_path / "other.duckdb"), settings) == tmp_path / "other.duckdb"
    typo = tmp_path / "typo" / "warehouse.duckdb"
    with pytest.raises(WarehouseError, match=f"warehouse_path {typo} does not exist"):
        select_true_claims.fn(warehouse_path=str(typo))
    assert not typo.parent.exists()  # no empty warehouse was created for the run to "succeed" on
    a_dir = tmp_path / "a-dir.duckdb"  # it was: accepted, and the run failed on it after training (review)
    a_dir.mkdir()
    with pytest.raises(WarehouseError, match=f"warehouse {a_dir} is a directory, not a DuckDB file"):
        flow_warehouse(str(a_dir), settings)


@pytest.mark.parametrize("parameters", [{"sample": 0}, {"threshold": 5.0}, {"threshold": -1.0}])
def test_a_site_check_sample_or_threshold_out_of_range_is_refused(parameters: dict[str, object]) -> None:
    from flows.check_sites import check_sites

    with pytest.raises(ParameterTypeError):  # a threshold of 5 always failed, -1 always passed
        check_sites.validate_parameters(parameters)


def test_evaluating_an_unknown_dataset_names_it_before_looking_for_a_model() -> None:
    from flows.evaluate import evaluate_stance_model
    from tasks.stance.datasets import DatasetError

    with pytest.raises(DatasetError, match="unknown dataset 'bogus'"):
        evaluate_stance_model.fn(dataset="bogus")


@pytest.mark.parametrize(("module", "name"), [
    ("flows.crawl_sources", "crawl_sources"), ("flows.check_sites", "check_sites"), ("flows.pipeline", "arastance_pipeline")])
def test_an_empty_sites_list_is_refused_not_read_as_every_site(module: str, name: str) -> None:
    import importlib

    flow = getattr(importlib.import_module(module), name)
    with pytest.raises(ParameterTypeError):  # it was: every enabled site crawled, live ones included
        flow.validate_parameters({"sites": []})
    assert flow.validate_parameters({"sites": ["reuters"]})["sites"] == ["reuters"]


def test_a_pipeline_left_with_no_stage_to_run_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no stage left to run: stages=\['train'\] with train='never'"):
        arastance_pipeline.fn(stages=["train"], train="never")  # it was: Completed, having done nothing


@pytest.mark.parametrize("flow_name", ["train", "retrieve"])
def test_a_locked_stage_names_a_mistyped_warehouse_before_taking_its_lock(tmp_path: Path, flow_name: str) -> None:
    from flows.train import train_stance_model

    flow = {"train": train_stance_model, "retrieve": retrieve_documents}[flow_name]
    typo = tmp_path / "typo" / "warehouse.duckdb"
    with pytest.raises(WarehouseError, match=f"warehouse_path {typo} does not exist"):
        flow.fn(warehouse_path=str(typo))
    assert not typo.parent.exists()  # it was: a stray typo/locks directory (and retrieval had no warehouse_path)
    under_a_file = tmp_path / "file" / "warehouse.duckdb"
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(WarehouseError):  # it was: NotADirectoryError on .../file/locks
        flow.fn(warehouse_path=str(under_a_file))
