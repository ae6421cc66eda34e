"""Arabic matching form: every fold, digits, diacritics and white space, as ``normalize`` promises."""

from __future__ import annotations

from arastance.base.arabic import normalize, tokenize, tokenize_many


def test_every_fold_digit_and_punctuation_mark_is_mapped() -> None:
    assert normalize("أإآٱ ىةؤئ") == "اااا يهوي"
    assert normalize("٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹") == "0123456789 0123456789"
    assert normalize("نعم، لا؛ لماذا؟ ٥٠٪") == "نعم, لا; لماذا? 50%"
    # the Arabic decimal and thousands separators: "٣٫٥" is the number "3.5", not 3 and 5
    assert normalize("٣٫٥ جنيه و١٬٠٠٠ ريال") == normalize("3.5 جنيه و1,000 ريال") == "3.5 جنيه و1,000 ريال"


def test_invisible_format_marks_leave_no_trace() -> None:
    # RLM (&rlm;), LRM, ALM, zero-width space / non-joiner / joiner, bidi isolates, word joiner, BOM
    marks = "\u200f\u200e\u061c\u200c\u200d\u2067\u2069\u2060\ufeff\u00ad"
    for mark in marks:
        assert normalize(f"{mark}إغلاق مدار{mark}س جدة{mark}") == "اغلاق مدارس جده", repr(mark)
    assert tokenize("\u200fوفاة\u200c الفنان") == ["وفاه", "الفنان"]
    # the zero-width space separates words: it becomes a space, not nothing
    assert tokenize("إغلاق\u200bالمدارس") == ["اغلاق", "المدارس"] and normalize("\u200bجدة\u200b") == "جده"


def test_diacritics_tatweel_case_and_white_space() -> None:
    assert normalize("  مُحَمَّـــد\u00a0\tقالَ\n\nHELLO  ") == "محمد قال hello"
    assert normalize("") == "" and normalize(None) == ""
    assert tokenize("قالت الوزارةُ: «لا صحة للخبر»!") == ["قالت", "الوزاره", "لا", "صحه", "للخبر"]


def test_tokenize_many_gives_each_text_its_own_tokens() -> None:
    texts = ["قالَ الوزيرُ: لا صحة.", "", "  ", "Σ ΣΑΣ ١٢ أمس", "وزارة الصحة"]
    assert tokenize_many(texts) == [tokenize(t) for t in texts]
    assert tokenize_many([]) == []
    assert tokenize_many(["a\x00b", "c"]) == [["a", "b"], ["c"]]  # the joining mark inside a text
