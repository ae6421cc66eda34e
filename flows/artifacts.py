"""Prefect table artifacts whose text cells show as the text they are.

Prefect's UI renders every string cell of a table artifact as Markdown and lets HTML through
(its sanitiser keeps ``<img>`` and ``<a>``). So a crawled claim holding ``![p](http://…/p.png)``
or ``<img src=…>`` made every operator who opened the artifact load an attacker's image (giving
away their address and when they looked), and ``[text](javascript:…)`` planted a link. The
characters that make images, links, code and emphasis with ``*`` or ``~`` are backslash-escaped
here, which CommonMark renders as the characters themselves, and ``<`` and ``>`` are written as
the entities ``&lt;`` and ``&gt;``, so that no cell holds the character that opens a tag (the UI's
renderer, marked, ended a bare address at ``<`` and kept the backslash of ``\<`` in its target,
so ``https://a.example/<img src=…>`` loaded the image); numbers and other
values are left as they are. ``_`` is escaped only at a word's edge, where it can make emphasis
(``_word_`` showed in italics): inside a word it cannot, so identifiers such as ``selection_runs``
stay readable through the API. Parentheses are not, as they make no link without brackets. A cell
goes on one line, with the marker of a heading, list or rule at its start escaped. Bare addresses
become links (GitHub-flavoured autolinks) on purpose: the text shown is the address opened, and an
operator reviewing retrieval hits wants to open them. So inside an address ``_`` and ``&`` are
left as they are: an autolink takes a backslash into its target, and queries are full of both. An
address ends at ``<``, as the renderer ends it, and of the punctuation it leaves out of a link at
an address's end (``_.*?!`` …) ``_`` and ``*`` are written ``&lowbar;`` and ``&ast;`` (``…/x_._``
showed ``.`` in italics; a backslash there went into the link).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from prefect.artifacts import create_table_artifact

_MARKDOWN = re.compile(r"([\\`*\[\]&!|~])")
_MARKDOWN_IN_ADDRESS = re.compile(r"([\\`*\[\]!|~])")
_ANGLE_ENTITIES = str.maketrans({"<": "&lt;", ">": "&gt;"})
#: A bare address, as GitHub-flavoured Markdown makes a link of it: up to a blank or a ``<``.
_ADDRESS = re.compile(r"((?:https?|ftp)://[^\s<]+|www\.[^\s<]+)")
#: What GitHub-flavoured Markdown leaves out of an autolink at its end, and so reads as text.
_ADDRESS_TAIL = re.compile(r"[?!.,:*_~'\"]+$")
#: The tail's emphasis marks as named entities: a backslash there went into the link (an autolink runs to
#: the next blank), while an entity of letters ends it and shows the character.
_TAIL_ENTITIES = str.maketrans({"_": "&lowbar;", "*": "&ast;"})
#: ``_`` with no letter or digit on one side (CommonMark's intraword ``_`` never opens or closes emphasis).
_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")


#: What starts a heading, a list, a quote or a rule when it opens a cell.
_BLOCK_START = re.compile(r"^(?:#{1,6}(?=\s|$)|[-+](?=\s|$)|[-_](?:\s*[-_]){2,}\s*$|\d{1,9}(?=[.)](?:\s|$)))")


def _escaped(part: str, *, address: bool) -> str:
    if address:
        tail = _ADDRESS_TAIL.search(part)
        cut = tail.start() if tail else len(part)
        address_text = _MARKDOWN_IN_ADDRESS.sub(r"\\\1", part[:cut]).translate(_ANGLE_ENTITIES)
        return address_text + part[cut:].translate(_TAIL_ENTITIES)
    return _EDGE_UNDERSCORE.sub(r"\\_", _MARKDOWN.sub(r"\\\1", part)).translate(_ANGLE_ENTITIES)


def markdown_literal(text: str) -> str:
    """``text`` with the characters that Markdown or HTML would turn into markup backslash-escaped,
    on one line (a cell is rendered as a whole document: a line of ``===`` or ``---`` under a
    claim made it a heading, four leading blanks a code block), its block marker escaped."""
    text = " ".join(text.splitlines()).lstrip()
    text = "".join(_escaped(part, address=bool(i % 2)) for i, part in enumerate(_ADDRESS.split(text)))
    return _BLOCK_START.sub(lambda m: m.group() + "\\" if m.group()[0].isdigit() else "\\" + m.group(), text)


def _plain_value(value: Any) -> str:
    """A setting or figure as a reader writes it, not as Python prints it (``['reuters']``,
    ``None``): a list as its items separated by commas, none as "none", text shown literally."""
    if value is None:
        return "none"
    if isinstance(value, list | tuple):
        return ", ".join(_plain_value(item) for item in value)
    return markdown_literal(str(value))


def markdown_fields(fields: Mapping[str, Any]) -> str:
    """``fields`` as a Markdown list, a ``- name: value`` line each: a report's parameters."""
    return "".join(f"- {markdown_literal(name)}: {_plain_value(value)}\n" for name, value in fields.items())


def table_artifact(rows: Sequence[Mapping[str, Any]], *, key: str, description: str) -> UUID:
    """``create_table_artifact`` of ``rows``, their text cells shown literally."""
    return create_table_artifact(
        [{name: markdown_literal(v) if isinstance(v, str) else v for name, v in row.items()} for row in rows],
        key=key, description=description)
