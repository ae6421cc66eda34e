"""Text from the web made inert for the spreadsheet an annotator opens a task sheet in.

Claims, titles, URLs and article text come from the open web, and the sheets are written to be
opened in Excel, LibreOffice or Google Sheets. Those read a cell whose text starts with ``=``,
``+``, ``-`` or ``@`` (or a tab or carriage return) as a formula, so a hostile article could make
the annotator's spreadsheet send the sheet's other cells to a server (``=HYPERLINK``,
``=WEBSERVICE``) or, through DDE, start a program (CSV injection). Such a cell, also one whose
sign follows blanks (an import that trims spaces would start it with the sign), gets a leading
apostrophe, OWASP's advice, and the spreadsheet shows it as text. The full-width forms of the
four signs are treated alike. Every cell is quoted (:data:`SHEET_QUOTING`); but a spreadsheet
that splits the file on ``;`` (Excel's list separator in many locales) or tabs reads quotes only
at the start of a field, so a sign after a ``;`` or a tab inside a cell would start a formula
there: it gets an apostrophe too. Only the written-out text is escaped: the columns read back on
import (ids, labels, times, the discussion's own columns) are left as they are.
"""

from __future__ import annotations

import csv
import re

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
#: How the sheets' cells are written: all quoted.
SHEET_QUOTING = csv.QUOTE_ALL


_INNER_FORMULA = re.compile("(?<=.)([;\t] *)(?=[" + re.escape("".join(FORMULA_STARTS)) + "])", re.DOTALL)


def inert_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: an apostrophe before a formula's first character
    (blanks before it counted out), at the cell's start and after each ``;`` or tab in it."""
    text = _INNER_FORMULA.sub(r"\1'", text)
    return "'" + text if text.lstrip(" ").startswith(FORMULA_STARTS) else text
