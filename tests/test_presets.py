"""The `paper` preset: a settings file with every choice of the paper, documented beside the defaults."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arastance.cli import app
from arastance.config import load_settings
from arastance.config.presets import PAPER, Choice, Unset, differing, preset_table

README = Path(__file__).resolve().parents[1] / "README.md"
runner = CliRunner()


def _value(settings: object, key: str) -> object:
    group, field = key.split(".", 1)
    value = getattr(getattr(settings, group), field)
    return list(value) if isinstance(value, tuple) else value


def test_config_preset_paper_writes_a_settings_file_with_every_choice(tmp_path: Path) -> None:
    result = runner.invoke(app, ["config", "preset", "paper"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "arastance.toml").read_text(encoding="utf-8")
    assert "# the paper searched with Google" in written  # each choice carries its reason
    settings = load_settings()  # ./arastance.toml is read
    for choice in PAPER:
        if isinstance(choice, Choice):
            assert _value(settings, choice.key) == choice.value, choice.key
    assert settings.period.bounds == (date(2012, 1, 1), date(2018, 12, 31))
    assert (settings.search.backend, settings.model.evidence, settings.model.default) == ("google", "truncate", "transformer")
    assert settings.model.transformer_class_weighted is False
    # what it cannot choose for the user is left at the default, commented out with what to put there
    unset = [c for c in PAPER if isinstance(c, Unset)]
    assert [c.key for c in unset] == ["selection.sample_size"] and "# sample_size = ..." in written
    assert settings.selection.sample_size == 0


def test_an_existing_settings_file_is_not_overwritten_without_force(tmp_path: Path) -> None:
    (tmp_path / "arastance.toml").write_text("[search]\nbackend = \"brave\"\n", encoding="utf-8")
    refused = runner.invoke(app, ["config", "preset", "paper"])
    assert refused.exit_code == 2 and "arastance.toml exists" in refused.output + str(refused.stderr)
    assert "brave" in (tmp_path / "arastance.toml").read_text(encoding="utf-8")
    out = runner.invoke(app, ["config", "preset", "paper", "--out", str(tmp_path / "paper.toml")])
    assert out.exit_code == 0 and (tmp_path / "paper.toml").is_file()
    assert runner.invoke(app, ["config", "preset", "paper", "--force"]).exit_code == 0
    unknown = runner.invoke(app, ["config", "preset", "acl2099"])
    assert unknown.exit_code == 2 and "unknown preset 'acl2099'" in unknown.output + str(unknown.stderr)


def test_readme_lists_every_default_that_differs_from_the_paper() -> None:
    text = README.read_text(encoding="utf-8")
    assert "## Reproducing the paper" in text
    section = text.split("## Reproducing the paper", 1)[1].split("\n## ", 1)[0]
    rows = differing(preset_table("paper"), "paper")
    assert {r["setting"] for r in rows} >= {"search.backend", "model.evidence", "period.start", "crawl.noun_phrase_claims"}
    for row in rows:
        assert f"`{row['setting']}`" in section, f"README's table lacks {row['setting']}"


@pytest.mark.parametrize("key", [c.key for c in PAPER])
def test_every_preset_key_is_a_real_setting(key: str) -> None:
    assert _value(load_settings(), key) is not None or key.startswith("period.")
