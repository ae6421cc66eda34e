"""shown_once: a message repeated by work done several times on the same input is shown once."""

from __future__ import annotations

import logging

import pytest

from arastance.logging import shown_once


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture()
def kept() -> _Kept:
    handler = _Kept()
    logger = logging.getLogger("arastance-test-repeats")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def test_each_distinct_message_shows_once_within_the_block_and_every_time_after_it(kept: _Kept) -> None:
    logger = logging.getLogger("arastance-test-repeats")
    with shown_once("arastance-test-repeats"):
        for member in range(3):
            logger.warning("report of the new head from %s", "/models/e5")
            logger.warning("member %d trained", member + 1)
    logger.warning("report of the new head from %s", "/models/e5")
    assert kept.messages == ["report of the new head from /models/e5", "member 1 trained", "member 2 trained",
                             "member 3 trained", "report of the new head from /models/e5"]
    assert logging.getLogger("arastance-test-repeats").filters == []


def test_a_child_loggers_messages_are_not_filtered(kept: _Kept) -> None:
    child = logging.getLogger("arastance-test-repeats.child")
    with shown_once("arastance-test-repeats"):
        child.warning("same")
        child.warning("same")
    assert kept.messages == ["same", "same"]


def test_the_filter_is_taken_off_when_the_block_fails(kept: _Kept) -> None:
    with pytest.raises(RuntimeError), shown_once("arastance-test-repeats"):
        raise RuntimeError("a member failed")
    assert logging.getLogger("arastance-test-repeats").filters == []
