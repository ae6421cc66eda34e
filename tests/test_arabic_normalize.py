"""Arabic matching form: every fold, digits, diacritics and white space, as ``normalize`` promises."""

from __future__ import annotations

from arastance.base.arabic import normalize, tokenize


def test_every_fold_digit_and_punctuation_mark_is_mapped() -> None:
    assert normalize("أإآٱ ىةؤئ") == "اااا يهوي"
    assert normalize("٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹") == "0123456789 0123456789"
    assert normalize("نعم، لا؛ لماذا؟ ٥٠٪") == "نعم, لا; لماذا? 50%"


def test_diacritics_tatweel_case_and_white_space() -> None:
    assert normalize("  مُحَمَّـــد\u00a0\tقالَ\n\nHELLO  ") == "محمد قال hello"
    assert normalize("") == "" and normalize(None) == ""
    assert tokenize("قالت الوزارةُ: «لا صحة للخبر»!") == ["قالت", "الوزاره", "لا", "صحه", "للخبر"]
