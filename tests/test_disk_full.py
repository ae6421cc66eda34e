"""Telling a full or read-only disk from other errors (:mod:`arastance.base.disk_full`): the real
errors of the libraries that write our files, on a real full tmpfs and a real read-only mount, and
errors that only carry the system's words as text from the web or from users."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, models

from arastance.base.disk_full import full_disk_error, logged_disk_full, read_only_error
from helpers_disk import read_only, small_disk
from tasks.crawl_runner import CrawlError


def _tokenizer(path: Path) -> None:
    vocab = {"[UNK]": 0, **{f"word{i}": i + 1 for i in range(5000)}}
    Tokenizer(models.WordLevel(vocab, unk_token="[UNK]")).save(str(path / "tokenizer.json"))


def _weights(path: Path) -> None:
    save_file({"w": torch.zeros(50_000)}, str(path / "model.safetensors"))


def _duckdb(path: Path) -> None:
    with duckdb.connect(str(path / "w.duckdb")) as con:
        con.execute("CREATE TABLE t AS SELECT repeat('x', 1000) || i::VARCHAR AS v FROM range(5000) r(i)")
        con.execute("CHECKPOINT")


def _torch(path: Path) -> None:
    torch.save({"w": torch.zeros(100_000)}, str(path / "state.pt"))  # as Trainer saves its training arguments


def _duckdb_spill(path: Path) -> None:
    """A query larger than DuckDB's memory, spilling into a temporary directory on ``path``."""
    config = {"temp_directory": str(path / "spill"), "memory_limit": "200MB", "preserve_insertion_order": False,
              "threads": 1}
    with duckdb.connect(config=config) as con:
        con.execute("CREATE TABLE t AS SELECT repeat('x', 200) || i::VARCHAR AS v FROM range(1500000) r(i)")


def _raised(write: Callable[[Path], None], path: Path) -> BaseException:
    with pytest.raises(Exception) as caught:
        write(path)
    assert not isinstance(caught.value, OSError), "the library's own error, not the system's"
    return caught.value


@pytest.mark.parametrize("write", [_tokenizer, _weights, _duckdb, _torch, _duckdb_spill],
                         ids=["tokenizers", "safetensors", "duckdb", "torch", "duckdb-spill"])
def test_a_librarys_own_error_on_a_full_disk_is_told(write: Callable[[Path], None], tmp_path: Path) -> None:
    with small_disk(tmp_path, 2) as disk:
        disk.fill(leave=4096)
        error = _raised(write, disk.root)
    found = full_disk_error(error)
    assert found is not None and found[1] == "No space left on device", str(error)
    assert read_only_error(error) is None


@pytest.mark.parametrize("write", [_tokenizer, _weights, _duckdb, _torch],
                         ids=["tokenizers", "safetensors", "duckdb", "torch"])
def test_a_librarys_own_error_on_a_read_only_disk_is_told(write: Callable[[Path], None], tmp_path: Path) -> None:
    target = tmp_path / "ro"
    target.mkdir()
    with read_only(target):
        error = _raised(write, target)
    found = read_only_error(error)
    assert found is not None and found[1] == "Read-only file system", str(error)
    assert full_disk_error(error) is None


def _duckdb_quoting_a_key(tmp_path: Path) -> list[BaseException]:
    """DuckDB's errors for a key and a value that quote a file and the system's words as DuckDB would."""
    key = 'claim": No space left on device'
    errors = []
    with duckdb.connect(str(tmp_path / "keys.duckdb")) as con:
        con.execute("CREATE TABLE claims (url VARCHAR PRIMARY KEY)")
        first, second = con.cursor(), con.cursor()
        first.execute("BEGIN")
        second.execute("BEGIN")
        first.execute("INSERT INTO claims VALUES (?)", [key])
        second.execute("INSERT INTO claims VALUES (?)", [key])
        first.execute("COMMIT")
        with pytest.raises(duckdb.TransactionException) as conflict:  # "… duplicate key "claim": No space …"
            second.execute("COMMIT")
        errors.append(conflict.value)
        with pytest.raises(duckdb.ConstraintException) as duplicate:
            con.execute("INSERT INTO claims VALUES (?)", [key])
        errors.append(duplicate.value)
        with pytest.raises(duckdb.ConversionException) as cast:
            con.execute("SELECT CAST(? AS INTEGER)", ['file "x": No space left on device']).fetchall()
        errors.append(cast.value)
    return errors


def test_the_systems_words_as_text_from_the_web_or_a_user_are_not_a_full_disk(tmp_path: Path) -> None:
    # it was: any error whose text held the words counted, and a crawl whose server sent a page count
    # "No space left on device" was stopped as if its disk were full and its staging run removed
    quoted = "No space left on device (os error 28)"  # even in a library's form
    with pytest.raises(ValueError) as bad_header:
        int(quoted.encode())
    with pytest.raises(KeyError) as bad_key:
        {}[f'"x": {quoted}']
    with duckdb.connect() as con, pytest.raises(duckdb.ConversionException) as bad_cast:
        con.execute("SELECT CAST(? AS INTEGER)", [quoted]).fetchall()
    own = CrawlError(f"crawl of x stopped: a page said {quoted}")
    own_plain = RuntimeError(f"crawl or load failed for x: {quoted!r}")  # a flow's summary of its sites' reasons
    assert full_disk_error(RuntimeError("crawl failed: '[enforce fail at inline_container.cc:1] . unexpected pos 1 vs 2'")) \
        is None
    for error in (bad_header.value, bad_key.value, bad_cast.value, own, own_plain, *_duckdb_quoting_a_key(tmp_path)):
        assert full_disk_error(error) is None, repr(error)
    assert read_only_error(ValueError("Read-only file system (os error 30)")) is None
    assert full_disk_error(RuntimeError("a page said: No space left on device")) is None, "not as a library quotes it"


def test_a_system_error_behind_any_wrapper_is_told() -> None:
    full = OSError(errno.EDQUOT, "Disk quota exceeded")
    wrapper = CrawlError("crawl of x stopped: the disk filled up")
    wrapper.__cause__ = full
    assert full_disk_error(wrapper) == (full, "Disk quota exceeded")
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system")
        except OSError:
            raise ValueError("could not save")  # noqa: B904 - the implicit context is what is followed
    except ValueError as error:
        found = read_only_error(error)
    assert found is not None and found[1] == "Read-only file system"
    assert full_disk_error(OSError(errno.EROFS, "Read-only file system")) is None


def test_a_full_disk_is_read_off_a_tracebacks_last_line_never_off_quoted_words() -> None:
    # it was: the words anywhere in the log's last 40 lines made a crawl that failed for another reason
    # "failed: the disk filled up", and the flow did not retry it
    quoted = ("2026-12-04 15:24:46 [dabegad] WARNING: WordPress REST page count missing "
              "header=b'OSError: [Errno 28] No space left on device'\n"
              "ValueError: invalid literal for int() with base 10: b'[Errno 28] No space left on device'\n")
    assert logged_disk_full(quoted) is None
    assert logged_disk_full(quoted + "PermissionError: [Errno 13] Permission denied: '/x'\n") is None
    assert logged_disk_full(quoted + "OSError: [Errno 28] No space left on device\n").errno == 28
    assert logged_disk_full("builtins.OSError: [Errno 122] Disk quota exceeded: '/jobs/x'\n" + quoted).errno == 122
