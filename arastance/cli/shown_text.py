"""Stored text shown at a terminal as the text it is: no rich markup, no emoji codes, no escape sequences.

Claims, titles, URLs and article text come from the web, and file names and query results from
anyone. Handed to rich as a plain string, ``[/b]`` in a claim crashed ``claims review`` with a
MarkupError, ``[link=…]`` hid a link, and ``:warning:`` became an emoji; written raw, an ESC in a
claim let the page clear the screen, fake output or plant an OSC 8 hyperlink in the operator's
terminal. Here such text becomes a :class:`rich.text.Text` (never parsed as markup), and control
characters other than newline and tab are written as ``\\xNN`` (bidirectional overrides and
isolates as ``\\uNNNN``). Messages the commands compose go through a :class:`LiteralConsole`: they
interpolate file names, data directories, round names and run ids, and a data directory such as
``/data/[old]/`` lost its ``[old]`` in a printed path (rich took it for a style), while ``[/x]`` in
a file name crashed the command after its work was done. Styling is given as :class:`~rich.text.Text`
spans, never as markup in a string.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from rich.text import Text

#: C0 controls but tab and newline, DEL, and the C1 controls (whose 0x9b is a one-byte CSI).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

#: Bidirectional embeddings, overrides and isolates. A RIGHT-TO-LEFT OVERRIDE in a claim reversed the
#: rest of its table row at a bidi-aware terminal (GNOME's VTE, Konsole), so the URL in the next cell
#: read backwards. Crawled Arabic reads right without them; the marks (U+200E, U+200F, U+061C) are kept.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with its control characters (ESC, carriage return, …) written as ``\\xNN``, and its
    bidirectional overrides and isolates as ``\\uNNNN``."""
    text = _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return _BIDI_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_visible(line: str) -> str:
    """A JSON text with its control characters and bidirectional overrides written as JSON's own
    ``\\uNNNN`` escapes: ``json.dumps`` escapes only those below 0x20, so a C1 control (0x9b is a
    one-byte CSI) or a RIGHT-TO-LEFT OVERRIDE reached the terminal raw. Such characters occur in JSON
    only inside strings, where the escape stands for the same character, so the line still parses to
    the same values (unlike :func:`visible`'s ``\\xNN``, which is no JSON escape)."""
    line = _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", line)
    return _BIDI_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def shown(value: Any) -> Text:
    """A value as rich shows it literally (``None`` as empty)."""
    return Text("" if value is None else visible(str(value)))


def assembled(*parts: str | tuple[str, str]) -> Text:
    """A line of plain and styled parts (``(text, style)``), each shown literally as :func:`shown` does."""
    return Text.assemble(*(visible(p) if isinstance(p, str) else (visible(p[0]), p[1]) for p in parts))


class LiteralConsole(Console):
    """A :class:`~rich.console.Console` that prints every string as the text it is: markup and
    emoji codes are off, and control characters are written out as :func:`visible` does."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, emoji=False, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """Rich's own conversion, of the text with its control characters written out."""
        return super().render_str(visible(text), **kwargs)
