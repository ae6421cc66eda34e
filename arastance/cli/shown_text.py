"""Stored text shown at a terminal as the text it is: no rich markup, no emoji codes, no escape sequences.

Claims, titles, URLs and article text come from the web, and file names and query results from
anyone. Handed to rich as a plain string, ``[/b]`` in a claim crashed ``claims review`` with a
MarkupError, ``[link=…]`` hid a link, and ``:warning:`` became an emoji; written raw, an ESC in a
claim let the page clear the screen, fake output or plant an OSC 8 hyperlink in the operator's
terminal. Here such text becomes a :class:`rich.text.Text` (never parsed as markup), and control
characters other than newline and tab are written as ``\\xNN``.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

#: C0 controls but tab and newline, DEL, and the C1 controls (whose 0x9b is a one-byte CSI).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with its control characters (ESC, carriage return, …) written as ``\\xNN``."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def shown(value: Any) -> Text:
    """A value as rich shows it literally (``None`` as empty)."""
    return Text("" if value is None else visible(str(value)))
