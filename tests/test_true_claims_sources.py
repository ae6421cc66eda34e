"""A ``selection.headline_sources`` setting that names no stored source stops the selection."""

from __future__ import annotations

import logging
from datetime import date

import pytest

from arastance.config import load_settings
from flows.select_true_claims import load_selection_inputs
from helpers_true_claims import FLOOD, FUEL, claim_row
from tasks.true_claims.sources import HeadlineSourcesError, check_headline_sources
from warehouse import open_warehouse
from warehouse.selection import true_claims_by_source


def test_a_typo_in_every_source_is_refused_naming_the_setting_and_the_stored_sources() -> None:
    with pytest.raises(HeadlineSourcesError, match=r"HEADLINE_SOURCES names reuter, but the warehouse holds no true "
                                                   r"claim from it; sources with true claims: afp \(2\), reuters \(40\)"):
        check_headline_sources(["reuter"], {"reuters": 40, "afp": 2})


def test_a_source_not_crawled_yet_beside_one_that_was_is_only_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert check_headline_sources(["reuters", "afp"], {"reuters": 40}) == ["afp"]
    assert "headline source holds no true claim" in caplog.text
    assert check_headline_sources(["reuters"], {"reuters": 40}) == []


def test_an_empty_warehouse_is_not_a_settings_error() -> None:
    assert check_headline_sources(["reuters"], {}) == ["reuters"]  # nothing crawled yet: the flow warns instead


def test_the_selection_inputs_check_what_the_warehouse_holds() -> None:
    path = load_settings().warehouse
    with open_warehouse(path) as wh:
        wh.insert_rows("claims", [
            claim_row("f1", "false", FLOOD, date(2016, 3, 1)),
            claim_row("r1", "true", FUEL, date(2016, 4, 1)),
            claim_row("r2", "true", FLOOD, date(2016, 4, 1), status="excluded"),
            claim_row("a1", "true", FLOOD, date(2016, 4, 1), source_id="afp"),
        ])
        assert true_claims_by_source(wh) == {"reuters": 1, "afp": 1}  # active true claims only
    seeds, headlines = load_selection_inputs.fn(path, ["reuters"])
    assert [s.claim_id for s in seeds] == ["f1"] and [h.claim_id for h in headlines] == ["r1"]
    with pytest.raises(HeadlineSourcesError, match="names reutres"):
        load_selection_inputs.fn(path, ["reutres"])
