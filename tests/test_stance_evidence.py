"""Evidence selection: sentences most similar to the claim, in article order, within a budget."""

from __future__ import annotations

from arastance.base.arabic import tokenize
from tasks.stance.evidence import bm25_scores, match_tokens_many, select_evidence, split_sentences

CLAIM = "وزارة الصحة تعلن توزيع لقاح جديد مجانا في المدارس"
ARTICLE = (
    "شهدت المدينة أمس أمطارا غزيرة أدت إلى ازدحام مروري كبير في الشوارع الرئيسية. "
    "وقالت البلدية إن فرق الطوارئ عملت طوال الليل. "
    "من جهة أخرى نفت وزارة الصحة ما تم تداوله عن توزيع لقاح جديد مجانا في المدارس. "
    "وأضافت الوزارة أن اللقاح الجديد لم يعتمد بعد. "
    "وفي الرياضة فاز الفريق المحلي بالمباراة."
)


def test_split_sentences_on_arabic_and_latin_marks_and_cuts_run_on_text() -> None:
    assert split_sentences("أولا. ثانيا؟ ثالثا!\nرابعا") == ["أولا.", "ثانيا؟", "ثالثا!", "رابعا"]
    chunks = split_sentences(" ".join(["كلمة"] * 130))
    assert [len(c.split()) for c in chunks] == [60, 60, 10]


def test_bm25_prefers_the_document_sharing_rare_claim_words() -> None:
    docs = [["مطر", "غزير"], ["لقاح", "وزاره", "الصحه"], ["لقاح"]]
    scores = bm25_scores(["لقاح", "الصحه"], docs)
    assert scores[1] > scores[2] > scores[0] == 0.0


def test_select_keeps_the_matching_sentences_in_article_order_within_budget() -> None:
    ev = select_evidence(CLAIM, ARTICLE, budget=25)
    assert ev.ranked[0].startswith("من جهة أخرى نفت وزارة الصحة")
    assert ev.text == ("من جهة أخرى نفت وزارة الصحة ما تم تداوله عن توزيع لقاح جديد مجانا في المدارس. "
                       "وأضافت الوزارة أن اللقاح الجديد لم يعتمد بعد.")
    assert len(ev.text.split()) <= 25
    assert list(ev.scores) == sorted(ev.scores, reverse=True)


def test_truncate_is_the_first_tokens_baseline() -> None:
    ev = select_evidence(CLAIM, ARTICLE, budget=8, mode="truncate")
    assert ev.text == "شهدت المدينة أمس أمطارا غزيرة أدت إلى ازدحام"
    assert "لقاح" not in ev.text  # what truncation loses and selection keeps
    assert select_evidence(CLAIM, ARTICLE, budget=8).text == "من جهة أخرى نفت وزارة الصحة ما تم"


def test_best_sentence_over_budget_is_cut_and_title_competes() -> None:
    ev = select_evidence(CLAIM, ARTICLE, budget=4)
    assert ev.text == "من جهة أخرى نفت"
    title = "وزارة الصحة: توزيع لقاح جديد مجانا في المدارس"
    titled = select_evidence(CLAIM, ARTICLE, budget=12, title=title)
    assert titled.ranked[0] == title and titled.text == title


def test_unrelated_article_falls_back_to_its_beginning() -> None:
    ev = select_evidence(CLAIM, "فاز الفريق المحلي بالمباراة. واحتفل المشجعون طويلا.", budget=3)
    assert ev.text == "فاز الفريق المحلي" and set(ev.scores) == {0}


def test_custom_token_counter_for_a_transformer_tokenizer() -> None:
    def pieces(text: str) -> int:  # pretend every word is two word pieces
        return 2 * len(text.split())

    ev = select_evidence(CLAIM, ARTICLE, budget=10, mode="truncate", count_tokens=pieces)
    assert len(ev.text.split()) == 5
    selected = select_evidence(CLAIM, ARTICLE, budget=40, count_tokens=pieces)
    assert selected.text == "من جهة أخرى نفت وزارة الصحة ما تم تداوله عن توزيع لقاح جديد مجانا في المدارس."


def test_sentences_end_at_line_breaks_and_marks_followed_by_space_only() -> None:
    text = "الأول. الثاني؟\r\n  الثالث\u00a0!  الرابع 3.5 مليون\n\n\tالخامس."
    assert split_sentences(text) == ["الأول.", "الثاني؟", "الثالث !", "الرابع 3.5 مليون", "الخامس."]
    assert split_sentences("") == [] and split_sentences("\n \n") == []


def _strip_one_proclitic(word: str) -> str:
    """The rule, word by word: the first prefix, in this order, that leaves at least two letters."""
    for prefix in ("وال", "بال", "فال", "كال", "لل", "ال", "و"):
        if word.startswith(prefix) and len(word) - len(prefix) >= 2:
            return word[len(prefix):]
    return word


def test_match_tokens_follow_the_prefix_rule_word_by_word_across_text_boundaries() -> None:
    texts = ["", "و ول وال والي والد بالبيت ككل لل للي الى", "", "فالأمر كالعادة 12 وو", "والحكومة", ""]
    expected = [[_strip_one_proclitic(w) for w in tokenize(t)] for t in texts]
    assert match_tokens_many(texts) == expected
    assert expected[1][:5] == ["و", "ول", "ال", "الي", "الد"]  # the rule itself, checked by hand
    assert match_tokens_many([]) == []


def test_match_tokens_strip_proclitics_per_text_and_feed_bm25() -> None:
    assert match_tokens_many(["والحكومة واللقاح للطلاب", "", "الوزارة"]) == [["حكومه", "لقاح", "طلاب"], [], ["وزاره"]]
    ev = select_evidence("الحكومة تعلن", "أعلنت الحكومة الخطة. والحكومة قالت. لا شيء هنا.")
    assert ev.scores[-1] == 0.0 and ev.ranked[-1] == "لا شيء هنا."
