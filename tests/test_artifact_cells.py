"""Table artifacts show text from the web as text: Prefect's UI renders their string cells as Markdown."""

from __future__ import annotations

import asyncio
import html
import json
import random
import re

from markdown_it import MarkdownIt
from prefect import flow
from prefect.testing.utilities import prefect_test_harness

from flows.artifacts import markdown_literal, table_artifact

HOSTILE = [
    "![p](http://attacker.example/pixel.png) الحكومة تغلق المدارس",
    '<img src="http://attacker.example/html.png"> خبر',
    "[اضغط هنا](javascript:alert(1)) | **عاجل** `رمز` ~~شطب~~ # عنوان &amp; \\ نهاية [x][r]\n\n[r]: http://a.example/p",
    "failed: HTTP 503 from https://search.example/?q=x",
]


def test_escaped_cells_render_as_their_own_text_with_no_image_link_or_html() -> None:
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    for text in HOSTILE:
        rendered = md.render(markdown_literal(text))
        for tag in ("<img", "<a ", "<strong>", "<s>", "<code>"):
            assert tag not in rendered, (text, rendered)
        assert _words(rendered) == text.split()
    for text in HOSTILE[:3]:
        assert "<img" in md.render(text) or "<a " in md.render(text), "unescaped, the cell would load or link"


BLOCKS = ["# عنوان كبير", "- بند", "12. أول", "    كتلة شيفرة", "عاجل\n===", "---", "_ _ _", "خبر\n\n- بند\n---"]


def test_a_cell_cannot_make_a_heading_list_rule_or_code_block_and_numbers_stay_plain() -> None:
    md = MarkdownIt("commonmark")
    for text in BLOCKS:
        rendered = md.render(markdown_literal(text))
        assert rendered.startswith("<p>") and rendered.count("<") == 2, (text, rendered)
        assert _words(rendered) == text.split()
    assert [markdown_literal(t) for t in ("1.000", "-5", "#وسم", "0.543")] == ["1.000", "-5", "#وسم", "0.543"]


def test_underscores_make_no_emphasis_and_identifiers_keep_theirs() -> None:
    md = MarkdownIt("commonmark")
    text = "_عاجل_ __الحكومة__ (_x_) selection_runs snake_case_ _ وزارة_التربية"
    rendered = md.render(markdown_literal(text))
    assert "<em>" in md.render(text) and "<strong>" in md.render(text), "unescaped, the cell shows emphasis"
    assert "<em>" not in rendered and "<strong>" not in rendered, rendered
    assert _words(rendered) == text.split()
    assert [markdown_literal(t) for t in ("selection_runs", "وزارة_التربية", "macro_f1_low")] == [
        "selection_runs", "وزارة_التربية", "macro_f1_low"]
    # an address stays one an autolink opens (it took a backslash into its target)
    assert markdown_literal("_x_ from https://a.example/_next/?a=1&b_=2 and www.b.example/_p") == (
        "\\_x\\_ from https://a.example/_next/?a=1&b_=2 and www.b.example/_p")


ADDRESS_THEN_TAG = ["خبر عاجل https://a.example/<img src=//attacker.example/p.png> نهاية",
                    "راجع www.a.example/<img src=x onerror=alert(1)>",
                    "راجع https://a.example/x<a href=javascript:alert(1)>اضغط</a>"]


def test_no_cell_holds_a_character_that_opens_or_closes_a_tag() -> None:
    # it was: "<" escaped as "\<", which Prefect's renderer (marked, GitHub-flavoured) ended a bare address at,
    # keeping the backslash in the link's target and reading the rest as a real <img> or <a> tag
    alphabet = "ab خبر<>&\\_*[]()!`~|#.:/?=\n"
    rng = random.Random(7)
    cells = [*HOSTILE, *ADDRESS_THEN_TAG] + ["".join(rng.choice(alphabet) for _ in range(30)) for _ in range(500)]
    cells += ["https://" + cell for cell in cells[-100:]] + ["www.a" + cell for cell in cells[-100:]]
    md = MarkdownIt("commonmark")
    for cell in cells:
        literal = markdown_literal(cell)
        assert "<" not in literal and ">" not in literal, (cell, literal)
        if "://" not in cell and "www." not in cell:  # an address keeps its _ and & for the autolink (see the next test)
            assert _words(md.render(literal)) == cell.split(), (cell, literal)


def test_an_address_ends_at_a_tag_and_the_punctuation_a_link_leaves_out_is_escaped() -> None:
    assert markdown_literal(ADDRESS_THEN_TAG[0]) == (
        "خبر عاجل https://a.example/&lt;img src=//attacker.example/p.png&gt; نهاية")
    # GitHub-flavoured Markdown leaves trailing _ . * ~ out of an autolink: as text, "_._" showed in italics
    # (as entities: a backslash went into the link, an autolink running to the next blank)
    assert markdown_literal("(b)https://a.example/7x#7_.__ ثم") == "(b)https://a.example/7x#7&lowbar;.&lowbar;&lowbar; ثم"
    assert markdown_literal("المصدر https://a.example/news_ و www.b.example!") == (
        "المصدر https://a.example/news&lowbar; و www.b.example!")
    assert markdown_literal("https://a.example/?q=a_b&c=d.") == "https://a.example/?q=a_b&c=d."


def _words(rendered: str) -> list[str]:
    """The words a reader sees: tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", " ", rendered)).split()


def test_a_table_artifact_stores_text_cells_escaped_and_numbers_as_they_are() -> None:
    @flow
    def publish() -> None:
        table_artifact([{"claim": text, "hits": i} for i, text in enumerate(HOSTILE)], key="cells", description="d")

    async def read() -> list[dict]:
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

        async with get_client() as client:
            [artifact] = await client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["cells"])))
        return json.loads(artifact.data)

    with prefect_test_harness(server_startup_timeout=180):
        publish()
        rows = asyncio.run(read())
    assert [r["hits"] for r in rows] == [0, 1, 2, 3]
    assert rows[0]["claim"].startswith("\\!\\[p\\](http://attacker.example/pixel.png)")
    assert rows[1]["claim"].startswith('&lt;img src="http://attacker.example/html.png"&gt; ')
    table_name = markdown_literal("selection_runs (rows added)")
    assert table_name == "selection_runs (rows added)", "identifiers stay readable"
    assert rows[3]["claim"] == HOSTILE[3], "statuses and messages stay readable"
