"""``arastance demo`` keeps everything it writes under its own directory, whatever the configuration names."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app
from arastance.cli.commands.demo import demo_environment, reopen_prefix
from arastance.config import Settings, load_settings


def _configure_real_places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An arastance.toml naming a place of its own for every setting the pipeline writes to."""
    real = tmp_path / "real"
    config = tmp_path / "arastance.toml"
    config.write_text(f"""
warehouse_path = "{real / 'warehouse.duckdb'}"
warehouse_backend = "ducklake"
warehouse_catalog_url = "postgres:dbname=real host=db.example"
warehouse_data_path = "{real / 'lake'}"
[search]
index_dir = "{real / 'index'}"
[annotation]
tasks_dir = "{real / 'annotation'}"
export_dir = "{real / 'dataset'}"
[model]
models_dir = "{real / 'models'}"
embedding_cache = "{real / 'e5.sqlite'}"
""", encoding="utf-8")
    monkeypatch.setenv("ARASTANCE_CONFIG", str(config))
    return real


def test_every_place_the_demo_writes_is_under_its_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: only the data directory and the warehouse were overridden; the demo replaced the configured search
    # index and wrote its dataset, models, task files and embeddings into the configured places
    real = _configure_real_places(tmp_path, monkeypatch)
    demo_dir = tmp_path / "data" / "demo"
    for name, value in demo_environment(demo_dir).items():
        monkeypatch.setenv(name, value)
    s = load_settings()
    places = {name: getattr(s, name) for name, attr in vars(Settings).items() if isinstance(attr, property)}
    places = {name: place for name, place in places.items() if isinstance(place, Path)}
    assert {"warehouse", "search_index_dir", "dataset_dir", "annotation_dir", "models_dir", "embedding_cache"} <= set(places)
    assert {name: place for name, place in places.items() if demo_dir not in place.parents} == {}
    assert s.warehouse_backend == "duckdb", "never the configured DuckLake"
    assert not real.exists()


def test_the_printed_command_opens_the_demos_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: `ARASTANCE_DATA_DIR=<demo> arastance sql`, which opened the configured warehouse_path
    _configure_real_places(tmp_path, monkeypatch)
    configured = load_settings()
    demo_dir = tmp_path / "my data" / "demo"
    prefix = reopen_prefix(demo_environment(demo_dir), configured)
    for assignment in shlex.split(prefix):  # as the shell reads the printed line
        name, _, value = assignment.partition("=")
        monkeypatch.setenv(name, value)
    later = load_settings()
    assert later.warehouse == demo_dir / "warehouse.duckdb" and later.warehouse_backend == "duckdb"
    assert "ARASTANCE_WAREHOUSE_BACKEND" not in reopen_prefix(demo_environment(demo_dir), Settings.model_construct())


def test_a_demo_snapshot_directory_holding_other_files_is_named_before_prefect_starts(tmp_path: Path) -> None:
    # it was: a SnapshotDirError traceback from inside the demo flow
    snapshots = tmp_path / "mine" / "snapshots"
    snapshots.mkdir(parents=True)
    (snapshots / "notes.txt").write_text("mine", encoding="utf-8")
    result = CliRunner().invoke(app, ["demo", "--data-dir", str(tmp_path / "mine")])
    shown = " ".join(result.output.split())
    assert result.exit_code == 2, shown
    assert f"error: {snapshots} holds files that are not a snapshot build" in shown
    assert "Traceback" not in shown and "Prefect" not in shown and "AraStance demo" not in shown
    # the process's environment is as it was: a later command in it (a test, a notebook) uses its own places
    assert not {name for name in os.environ if name.startswith("ARASTANCE_")} - {"ARASTANCE_DATA_DIR"}
