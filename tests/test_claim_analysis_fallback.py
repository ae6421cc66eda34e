"""Choosing the analyzer: Stanza's models detected or found absent, the rule-based fallback,
and the ``arastance nlp`` commands (download fails clearly offline)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import SettingsError, load_settings
from arastance.config.nlp import NlpSettings
from tasks.claim_analysis import StanzaModelsMissing, analyze, analyze_many, choose_analyzer
from tasks.claim_analysis.stanza_models import PROCESSORS, missing_models

from helpers_claim_analysis import fake_models, listed_models

runner = CliRunner()


def test_missing_models_names_what_is_absent(tmp_path: Path) -> None:
    assert missing_models(tmp_path / "nowhere") == ["resources.json", *(f"ar/{p}" for p in PROCESSORS)]
    partial = fake_models(tmp_path / "partial", processors=("tokenize", "mwt", "pos", "lemma", "depparse"))
    assert missing_models(partial) == ["ar/ner"]
    (partial / "ar" / "ner").mkdir()  # a processor directory without a model file is still missing
    assert missing_models(partial) == ["ar/ner"]
    assert missing_models(fake_models(tmp_path / "full")) == []


def test_auto_falls_back_to_rules_when_models_are_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_NLP__STANZA_DIR", str(tmp_path / "empty"))
    result = analyze("أعلنت الحكومة رفع الأسعار، ثم تراجعت")
    assert result.analyzer == "rules"
    assert result.verb_phrase == "أعلنت الحكومة رفع الأسعار"


def test_auto_chooses_stanza_when_the_models_are_installed(tmp_path: Path) -> None:
    settings = NlpSettings(stanza_dir=fake_models(tmp_path / "models"))
    assert choose_analyzer(settings) == "stanza"
    assert choose_analyzer(settings.model_copy(update={"analyzer": "rules"})) == "rules"


def test_stanza_required_but_absent_is_an_error_naming_the_directory(tmp_path: Path) -> None:
    settings = NlpSettings(analyzer="stanza", stanza_dir=tmp_path / "empty")
    with pytest.raises(StanzaModelsMissing, match=r"not installed in .*empty.*arastance nlp download"):
        analyze("أعلنت الحكومة رفع الأسعار", settings)


def test_rules_never_look_for_models(tmp_path: Path) -> None:
    settings = NlpSettings(analyzer="rules", stanza_dir=tmp_path / "does-not-exist")
    results = analyze_many(["وفاة فنان شهير في القاهرة", "إغلاق  المدارس   غدا"], settings)
    assert [r.analyzer for r in results] == ["rules", "rules"]
    assert results[1].text == "إغلاق المدارس غدا"  # whitespace collapsed
    assert not (tmp_path / "does-not-exist").exists()


def test_an_empty_claim_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="claim 1: cannot analyse an empty claim"):
        analyze_many(["نص", "   "], NlpSettings(analyzer="rules"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_download_without_internet_fails_with_a_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/stanza-resources"
    monkeypatch.setenv("ARASTANCE_NLP__STANZA_RESOURCES_URL", url)
    result = runner.invoke(app, ["nlp", "download", "--dir", str(tmp_path / "models")])
    assert result.exit_code == 2
    message = " ".join((result.output + str(result.stderr)).split())
    assert "cannot download Stanza's Arabic models from " + url in message
    assert "rule-based analyzer" in message


def test_nlp_analyze_prints_entities_cut_and_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_NLP__STANZA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("COLUMNS", "250")
    claim = "أعلنت وزارة الصحة إغلاق المدارس في دبي، وقررت تأجيل الامتحانات"
    result = runner.invoke(app, ["nlp", "analyze", claim, "--date", "2020-03-31"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "analyzer: rules" in out
    assert "وزارة الصحة" in out and "ORG" in out and "دبي" in out
    assert "cut at comma" in out
    for kind in ("claim", "claim_date", "entities_date", "vp_date", "vp_entities_date"):
        assert kind in out
    assert "2020-01-31 .. 2020-05-31" in out


def test_nlp_analyze_rejects_bad_options() -> None:
    assert runner.invoke(app, ["nlp", "analyze", "نص", "--date", "31/12/2020"]).exit_code == 2
    result = runner.invoke(app, ["nlp", "analyze", "نص", "--veracity", "maybe", "--analyzer", "rules"])
    assert result.exit_code == 2
    assert "veracity" in result.output + str(result.stderr)


def test_nlp_status_reports_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_NLP__STANZA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("COLUMNS", "250")
    result = runner.invoke(app, ["nlp", "status"])
    assert result.exit_code == 0, result.output
    assert "rules" in result.output and "ar/ner" in result.output


@pytest.mark.parametrize(
    ("var", "value"),
    [("ARASTANCE_NLP__ANALYZER", "spacy"), ("ARASTANCE_NLP__MAX_QUERY_ENTITIES", "-1"), ("ARASTANCE_NLP__MIN_CUT_WORDS", "0")],
)
def test_nlp_settings_are_validated(monkeypatch: pytest.MonkeyPatch, var: str, value: str) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError, match=var):
        load_settings()


def test_missing_models_include_the_dependencies_resources_json_lists(tmp_path: Path) -> None:
    # As an interrupted download leaves it: every processor's file, none of their word vectors
    # and character language models; the pipeline could not load, so Stanza counts as absent.
    partial = listed_models(tmp_path / "partial", dependencies=False)
    assert missing_models(partial) == [
        "ar/pretrain/conll17.pt", "ar/forward_charlm/ccwiki.pt", "ar/backward_charlm/ccwiki.pt",
    ]
    assert choose_analyzer(NlpSettings(stanza_dir=partial)) == "rules"
    assert missing_models(listed_models(tmp_path / "full")) == []
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "resources.json").write_text("{not json", encoding="utf-8")
    assert missing_models(tmp_path / "bad")[0].startswith("resources.json (unreadable: ")


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # torch, reading the truncated file
def test_models_that_cannot_be_loaded_are_a_clear_error_or_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    truncated = listed_models(tmp_path / "truncated")  # every file there, none a model torch can read
    assert missing_models(truncated) == []
    with pytest.raises(StanzaModelsMissing, match=r"models in .*truncated cannot be loaded .*arastance nlp download"):
        analyze("أعلنت الحكومة رفع الأسعار", NlpSettings(analyzer="stanza", stanza_dir=truncated))
    with caplog.at_level("WARNING", logger="tasks.claim_analysis.analyzer"):
        result = analyze("أعلنت الحكومة رفع الأسعار، ثم تراجعت", NlpSettings(stanza_dir=truncated))
    assert (result.analyzer, result.verb_phrase) == ("rules", "أعلنت الحكومة رفع الأسعار")
    assert any("using the rule-based analyzer" in r.getMessage() for r in caplog.records)
    monkeypatch.setenv("ARASTANCE_NLP__STANZA_DIR", str(truncated))
    cli = runner.invoke(app, ["nlp", "analyze", "أعلنت الحكومة رفع الأسعار", "--analyzer", "stanza"])
    assert cli.exit_code == 2
    assert "cannot be loaded" in " ".join((cli.output + str(cli.stderr)).split())
