"""Selection settings: overrides are validated, n-gram ranges checked, env variables read."""

import pytest
from pydantic import ValidationError

from arastance.config import SettingsError, load_settings
from arastance.config.selection import SelectionSettings


def test_overrides_replace_given_fields_and_keep_the_rest() -> None:
    base = SelectionSettings(top_k=7)
    changed = base.with_overrides(window_months=2, top_k=None, analyzer="char")
    assert (changed.window_months, changed.top_k, changed.analyzer) == (2, 7, "char")
    assert changed.ngram_range == (3, 5) and base.ngram_range == (1, 2)
    with pytest.raises(ValidationError, match="top_k"):
        base.with_overrides(top_k=0)


def test_ngram_ranges_and_lists_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SELECTION__WORD_NGRAMS", "[1, 3]")
    monkeypatch.setenv("ARASTANCE_SELECTION__HEADLINE_SOURCES", '["reuters", "afp"]')
    s = load_settings().selection
    assert s.word_ngrams == (1, 3) and s.headline_sources == ["reuters", "afp"]
    monkeypatch.setenv("ARASTANCE_SELECTION__WORD_NGRAMS", "[3, 1]")
    with pytest.raises(SettingsError, match=r"ARASTANCE_SELECTION__WORD_NGRAMS.*1 <= min <= max"):
        load_settings()
