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
        try:
            self.messages.append(record.getMessage())
        except Exception:  # noqa: BLE001 - as logging's own handlers do
            self.handleError(record)


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


def test_a_record_that_cannot_be_formatted_goes_on_to_its_handler_instead_of_raising_into_the_caller() -> None:
    # it was: the filter formatted the record itself, so logging's own error report (handleError) was skipped and
    # the TypeError reached the code that logged
    reported: list[logging.LogRecord] = []
    handler = _Kept()
    handler.handleError = reported.append  # type: ignore[method-assign]
    logger = logging.getLogger("arastance-test-repeats")
    logger.addHandler(handler)
    logger.propagate = False  # pytest's own handler fails the test on such a record
    try:
        with shown_once("arastance-test-repeats"):
            logger.warning("member %d of %d", "one")
            logger.warning("member %d of %d", "one")
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert [r.msg for r in reported] == ["member %d of %d"] * 2 and handler.messages == []
