"""``dataset export`` replaces an earlier export of ours, never files of the same names that it did not write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_annotation import T0, add_claims, add_gold
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.dataset.assemble import assign_claim_splits
from tasks.dataset.export import export_dataset, read_dataset, write_dataset
from warehouse import Warehouse, open_warehouse

runner = CliRunner()


def _build(wh: Warehouse) -> None:
    """Gold pairs with splits, so that an export has something to write."""
    add_gold(wh, {pair: "agree" for pair in add_claims(wh, 8, 2)})
    assign_claim_splits(wh, load_settings().annotation, now=T0)


def _release(directory: Path) -> dict[str, bytes]:
    """The public AraStance release's three split files, as ``datasets download`` leaves them (no manifest)."""
    directory.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        line = {"claim": f"release {split} claim", "article": ["x"], "stance": ["Discuss"]}
        (directory / f"{split}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return _files(directory)


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_the_cli_refuses_to_export_over_the_downloaded_release_in_one_line(tmp_path: Path) -> None:
    # it was: train.jsonl replaced by the export, dev and test by empty files, exit code 0
    with open_warehouse(tmp_path / "data" / "warehouse.duckdb") as wh:
        _build(wh)
    release = tmp_path / "data" / "datasets" / "arastance"
    before = _release(release)
    refused = runner.invoke(app, ["dataset", "export", "--out", str(release)])
    shown = " ".join(refused.output.split())
    assert refused.exit_code == 2, shown
    assert f"error: {release} holds files that no dataset export wrote (dev.jsonl, test.jsonl, train.jsonl; " \
           "it has no manifest.json of an export)" in shown
    assert "Traceback" not in shown
    assert _files(release) == before, "nothing changed, no partial directory left"


def test_a_saved_model_s_manifest_is_not_taken_for_an_export_s(warehouse: Warehouse, tmp_path: Path) -> None:
    _build(warehouse)
    model = tmp_path / "model"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"format_version": 2, "kind": "tfidf"}), encoding="utf-8")
    (model / "model.joblib").write_bytes(b"weights")
    before = _files(model)
    with pytest.raises(FileExistsError, match=r"model holds files that no dataset export wrote \(manifest.json;"):
        export_dataset(warehouse, model)
    assert _files(model) == before
    with pytest.raises(FileExistsError, match="no dataset export wrote"):  # writing records takes the same check
        write_dataset({}, model)
    assert _files(model) == before


def test_an_earlier_export_of_ours_and_a_directory_without_those_names_are_still_written(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    _build(warehouse)
    ours = tmp_path / "ours"
    first = export_dataset(warehouse, ours)
    (ours / "notes.txt").write_text("mine", encoding="utf-8")
    again = export_dataset(warehouse, ours)  # our manifest is there: replaced as before
    assert again.pairs == first.pairs and sum(again.pairs.values()) == 16
    assert (ours / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert read_dataset(ours) == read_dataset(ours, "parquet")
    other = tmp_path / "other"
    other.mkdir()
    (other / "README.md").write_text("my notes", encoding="utf-8")  # none of an export's names
    export_dataset(warehouse, other)
    assert (other / "README.md").read_text(encoding="utf-8") == "my notes" and (other / "manifest.json").is_file()
    (tmp_path / "empty").mkdir()
    assert sum(export_dataset(warehouse, tmp_path / "empty").pairs.values()) == 16
