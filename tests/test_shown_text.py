"""Text from the web is shown at a terminal as the text it is: no rich markup, no escape sequences."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import duckdb
import pytest
import typer
from helpers_annotation import add_claims
from rich.console import Console
from typer.testing import CliRunner

from arastance.cli import app, common
from arastance.cli.result_output import print_rich_table, write_plain_table
from arastance.cli.shown_text import LiteralConsole, assembled, visible
from arastance.logging import KeyValueFormatter
from warehouse import Warehouse
from warehouse.publish import publish

runner = CliRunner()
HOSTILE = ("Breaking [/b] news [link=https://attacker.example/p]المدارس[/link] :warning: "
           "\x1b[2J\x1b]8;;https://attacker.example/\x1b\\اضغط\x1b]8;;\x1b\\ \x9b31m الحكومة ستغلق المدارس")


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=400, color_system="truecolor"), out


def _shown_literally(output: str) -> None:
    for literal in ("[/b]", "[link=https://attacker.example/p]", ":warning:", "\\x1b[2J", "\\x1b]8;;", "\\x9b31m"):
        assert literal in output
    assert "\x1b[2J" not in output and "\x1b]8;" not in output and "\x9b" not in output and "⚠" not in output


def test_control_characters_are_written_out_and_newline_and_tab_kept() -> None:
    assert visible("a\x1b[31mb\rc\x00d\x7f\x9b\n\tعربي\u200f") == "a\\x1b[31mb\\x0dc\\x00d\\x7f\\x9b\n\tعربي\u200f"


def test_bidi_overrides_and_isolates_are_written_out_and_arabic_marks_kept() -> None:
    # it was: a claim's RIGHT-TO-LEFT OVERRIDE reached a bidi-aware terminal (GNOME's VTE, Konsole) raw and
    # reversed the rest of its table row, so a URL in the next cell read backwards
    claim = "خبر\u202e moc.elpmaxe.kcatta \u202c \u2066x\u2069 \u202a\u202b\u202d \u200fعربي\u200e\u061c"
    assert visible(claim) == ("خبر\\u202e moc.elpmaxe.kcatta \\u202c \\u2066x\\u2069 \\u202a\\u202b\\u202d "
                              "\u200fعربي\u200e\u061c")
    piped = io.StringIO()
    write_plain_table(duckdb.connect().sql("SELECT ? AS claim, 'https://a.example' AS url", params=[claim]), piped)
    assert "\u202e" not in piped.getvalue() and "\\u202e" in piped.getvalue()
    header = io.StringIO()  # PIVOT makes column names of values: the header line was written raw
    write_plain_table(duckdb.connect().sql("PIVOT (SELECT 'x' || chr(8238) || 'lmth.kcatta' AS k, 1 AS v) "
                                           "ON k USING sum(v)"), header)
    assert "\u202e" not in header.getvalue() and "\\u202e" in header.getvalue().splitlines()[0]


def test_print_table_shows_markup_and_escape_sequences_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: MarkupError ("closing tag '[/b]' … doesn't match any open tag"), and ESC reached the terminal
    console, out = _terminal()
    monkeypatch.setattr(common, "console", console)
    common.print_table([{"claim [/x]": HOSTILE}], title="from labels[/x].json")
    _shown_literally(out.getvalue())
    assert "from labels[/x].json" in out.getvalue() and "claim [/x]" in out.getvalue()


def test_query_results_at_a_terminal_and_piped_show_the_text_as_it_is() -> None:
    rel = duckdb.connect().sql("SELECT ? AS cleaned_text", params=[HOSTILE])
    console, out = _terminal()
    print_rich_table(rel, console)
    _shown_literally(out.getvalue())
    piped = io.StringIO()
    write_plain_table(duckdb.connect().sql("SELECT ? AS cleaned_text", params=[HOSTILE]), piped)
    assert "\x1b" not in piped.getvalue() and "\\x1b[2J" in piped.getvalue() and "[/b]" in piped.getvalue()


def test_claims_review_lists_a_claim_with_markup_in_it(warehouse: Warehouse, tmp_path: Path) -> None:
    add_claims(warehouse, 1, 0, sources=("norumors",))
    warehouse.con.execute("UPDATE claims SET raw_text = ?, cleaned_text = ?, status = 'review', "
                          "status_reason = 'not_arabic'", [HOSTILE, HOSTILE])
    publish(warehouse)
    result = runner.invoke(app, ["claims", "review"])
    assert result.exit_code == 0, result.output
    assert "[/b]" in result.output and "\\x1b[2J" in result.output and "\x1b" not in result.output


def test_an_error_message_shows_what_it_quotes_literally(capsys: pytest.CaptureFixture[str]) -> None:
    # it was: escape() kept the markup out, but an ESC and ":warning:" from a file reached the terminal
    with pytest.raises(typer.Exit):
        common.fail("bad.json: task 1 (id \x1b[2J [/b] :warning:): missing field 'data.pair_id'")
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "\x1b[2J" not in err and "⚠" not in err
    assert "(id \\x1b[2J [/b] :warning:)" in err


def test_a_log_field_with_a_newline_or_an_escape_is_quoted_so_it_cannot_forge_a_line() -> None:
    record = logging.LogRecord("tasks.articles", logging.WARNING, __file__, 1, "article URL refused", None, None)
    # no blank in it: it was written raw, and its second line read as an error of the pipeline
    record.url = "https://x.example/a\n21:50:00\tERROR\tflows.pipeline:\tstage\tfailed\x1b[2J"
    record.claim = "الحكومة"
    line = KeyValueFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert "\n" not in line and "\x1b" not in line
    assert line.endswith("url='https://x.example/a\\n21:50:00\\tERROR\\tflows.pipeline:\\tstage\\tfailed\\x1b[2J' "
                         "claim=الحكومة")


def test_a_message_names_an_operators_path_as_it_is(tmp_path: Path) -> None:
    # it was: "[old]" was taken for a style and dropped from the printed path, ":warning:" became an
    # emoji and the ESC reached the terminal
    out = tmp_path / "[old]" / ":warning: \x1b[2J.toml"
    out.parent.mkdir()
    result = runner.invoke(app, ["config", "preset", "paper", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file()
    assert f"wrote {tmp_path}/[old]/:warning: \\x1b[2J.toml: the 'paper' preset" in result.output
    assert "\x1b" not in result.output and "⚠" not in result.output


def test_the_commands_console_prints_strings_literally_and_styles_only_given_spans() -> None:
    out = io.StringIO()
    console = LiteralConsole(file=out, force_terminal=True, color_system="truecolor", width=200, highlight=False)
    console.print("round [/x] [bold]r1[/] :warning: \x1b[2J")  # it was: MarkupError
    console.print(assembled("round ", ("r[2]\x1b", "bold"), " done"))
    text = out.getvalue()
    assert "round [/x] [bold]r1[/] :warning: \\x1b[2J" in text and "\x1b[2J" not in text
    assert "\x1b[1mr[2]\\x1b\x1b[0m done" in text  # the styled part is bold, and only it
