"""Text from the web made inert for the spreadsheet an annotator opens a task sheet in.

Claims, titles, URLs and article text come from the open web, and the sheets are written to be
opened in Excel, LibreOffice or Google Sheets. Those read a cell whose text starts with ``=``,
``+``, ``-`` or ``@`` (or a tab or carriage return) as a formula, so a hostile article could make
the annotator's spreadsheet send the sheet's other cells to a server (``=HYPERLINK``,
``=WEBSERVICE``) or, through DDE, start a program (CSV injection). Such a cell gets a leading
apostrophe, OWASP's advice, and the spreadsheet shows it as text. The full-width forms of the
four signs are treated alike. Only the written-out text is escaped: the columns read back on
import (ids, labels, times, the discussion's own columns) are left as they are.
"""

from __future__ import annotations

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")


def inert_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: an apostrophe before a formula's first character."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
