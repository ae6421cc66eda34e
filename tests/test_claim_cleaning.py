"""Claim preprocessing: every debunk framing stripped, exclusions and the review queue."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasks.claim_cleaning import PatternConfigError, clean_claim, load_patterns


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        ("لا صحة لما يتم تداوله حول إغلاق المدارس في دبي", "إغلاق المدارس في دبي", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تداولته مواقع التواصل الاجتماعي بشأن رفع أسعار الوقود", "رفع أسعار الوقود", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء المتداولة عن وفاة الفنان سامي", "وفاة الفنان سامي", "la_sihha_ma_yutadawal"),
        ("لا صحة لخبر إلغاء امتحانات الثانوية العامة", "إلغاء امتحانات الثانوية العامة", "la_sihha_li_khabar"),
        ("لا صحة للقرار المنسوب لوزارة التعليم", "القرار المنسوب لوزارة التعليم", "la_sihha_lil"),
        ("لا صحة لوفاة الفنان سامي يوسف", "وفاة الفنان سامي يوسف", "la_sihha_li"),
        ("غير صحيح ما يتم تداوله عن زيادة الرواتب", "زيادة الرواتب", "ghayr_sahih_ma"),
        ("غير صحيح أن الوزارة قررت تأجيل الدراسة", "الوزارة قررت تأجيل الدراسة", "ghayr_sahih_anna"),
        ("ليس صحيحاً أن البنك سيطبع عملة جديدة", "البنك سيطبع عملة جديدة", "laysa_sahihan"),
        ("الحقيقة الكاملة وراء اختفاء الطائرة الماليزية", "اختفاء الطائرة الماليزية", "al_haqiqa_al_kamila"),
        ("حقيقة ما يتردد حول إصابة اللاعب محمد", "إصابة اللاعب محمد", "haqiqat_ma_yutadawal"),
        ("ما حقيقة إغلاق المدارس في الرياض؟", "إغلاق المدارس في الرياض", "ma_haqiqa"),
        ("هل صحيح أن البنك المركزي سيطبع عملة جديدة؟", "البنك المركزي سيطبع عملة جديدة", "hal_sahih"),
        ("حقيقة وفاة الفنان سامي يوسف", "وفاة الفنان سامي يوسف", "haqiqa"),
        ("حقيقة: الحكومة تلغي دعم الخبز", "الحكومة تلغي دعم الخبز", "haqiqa"),
        ("شائعة: زيادة الرواتب 50%", "زيادة الرواتب 50%", "shaia"),
        ("الشائعة: الكهرباء ستنقطع عن جازان ثلاثة أيام", "الكهرباء ستنقطع عن جازان ثلاثة أيام", "shaia"),
        ("إشاعة حول إفلاس شركة الطيران", "إفلاس شركة الطيران", "shaia"),
        ("نفي ما تردد عن إصابة اللاعب محمد بقطع في الرباط", "إصابة اللاعب محمد بقطع في الرباط", "nafy_ma"),
        ("نفي خبر استقالة وزير المالية", "استقالة وزير المالية", "nafy_ma"),
        ("نفي وفاة الفنان سامي", "وفاة الفنان سامي", "nafy"),
        ("خبر كاذب: وفاة الفنان سامي", "وفاة الفنان سامي", "khabar_kadhib"),
        ("مضلل: الإعصار سيضرب مسقط غدا", "الإعصار سيضرب مسقط غدا", "kadhib"),
        ("ما يتم تداوله عن حجب تطبيق فايبر في الإمارات غير صحيح", "حجب تطبيق فايبر في الإمارات", "ma_yutadawal"),
        ("الادعاء: الحكومة ستلغي الدعم", "الحكومة ستلغي الدعم", "claim_label"),
        ("إغلاق المدارس في دبي (شائعة)", "إغلاق المدارس في دبي", "verdict_in_brackets"),
        ("إغلاق المدارس في دبي.. شائعة", "إغلاق المدارس في دبي", "verdict_after_separator"),
        ("انتقال اللاعب من الوصل إلى الشارقة.. خبر كاذب", "انتقال اللاعب من الوصل إلى الشارقة", "verdict_after_separator"),
        ("زيادة الرواتب لا أساس لها من الصحة", "زيادة الرواتب", "verdict_after_separator"),
    ],
)
def test_each_debunk_framing_is_stripped(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert cleaned.cleaned_text == claim
    assert rule in cleaned.rules
    assert (cleaned.status, cleaned.status_reason) == ("active", None)


def test_framing_on_both_ends_and_spelling_variants() -> None:
    # "لا صحه" with taa marbuta as haa, and diacritics, still match the framing
    cleaned = clean_claim("لا صحه لما يتمّ تداوله حول إغلاقِ المدارس", veracity="false")
    assert cleaned.cleaned_text == "إغلاق المدارس"
    cleaned = clean_claim("«حقيقة: شائعة رفع أسعار الخبز»", veracity="false")
    assert cleaned.cleaned_text == "رفع أسعار الخبز"
    assert cleaned.rules == ("haqiqa", "shaia")


def test_normalized_text_is_for_matching_and_display_text_is_kept() -> None:
    cleaned = clean_claim("حقيقة إصابة ٣ آلاف طالب بالإنفلونزا", veracity="false")
    assert cleaned.cleaned_text == "إصابة ٣ آلاف طالب بالإنفلونزا"
    assert cleaned.normalized_text == "اصابه 3 الاف طالب بالانفلونزا"


@pytest.mark.parametrize("text", [None, "", "   ", "«»"])
def test_claims_without_text_are_excluded(text: str | None) -> None:
    cleaned = clean_claim(text, veracity="false")
    assert (cleaned.status, cleaned.status_reason, cleaned.cleaned_text) == ("excluded", "empty_text", None)


def test_claim_review_stands_in_for_a_missing_claim_block() -> None:
    cleaned = clean_claim("", veracity="false", claim_reviewed="الحكومة ستلغي دعم الوقود")
    assert (cleaned.cleaned_text, cleaned.status) == ("الحكومة ستلغي دعم الوقود", "active")


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("رفع أسعار الخبز", True),  # the site marks the post as a video/image post
        ("[فيديو]", False),
        ("فيديو: لحظة انهيار الجسر في جدة", False),
        ("حقيقة فيديو سقوط الطائرة", False),
        ("بالصور: حريق في سوق المدينة", False),
        ("شاهد المقطع", False),
    ],
)
def test_multimedia_claims_are_excluded(text: str, flag: bool) -> None:
    cleaned = clean_claim(text, veracity="false", is_multimedia=flag)
    assert (cleaned.status, cleaned.status_reason) == ("excluded", "multimedia")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("وزارة الصحة تنفي انتشار الوباء في الشارقة", "residual_framing"),
        ("حقيقة", "framing_only"),
        ("حقيقة الوباء", "too_short"),
        ("حقيقة " + " ".join(["كلمة"] * 70), "too_long"),
        ("حقيقة the minister resigned yesterday", "not_arabic"),
        ("ما حقيقة من يقف وراء الحريق؟ وما أسبابه", "question"),
    ],
)
def test_claims_the_rules_cannot_clean_go_to_review(text: str, reason: str) -> None:
    cleaned = clean_claim(text, veracity="false")
    assert (cleaned.status, cleaned.status_reason) == ("review", reason)
    assert cleaned.cleaned_text  # the reviewer sees what the rules made of it


def test_true_claims_keep_their_wording() -> None:
    headline = "حقيقة الأزمة: البنك المركزي يرفع سعر الفائدة"
    cleaned = clean_claim(headline, veracity="true")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.rules) == (headline, "active", ())


def test_patterns_are_configuration(tmp_path: Path) -> None:
    custom = tmp_path / "patterns.toml"
    custom.write_text(
        "[[prefix]]\nname = 'tanfid'\npattern = 'تفنيد\\s+'\n"
        "[multimedia]\npattern = '^فيديو'\n"
        "[review]\nmin_tokens = 1\nmax_tokens = 10\nmin_arabic_ratio = 0.5\nresidual_framing = ['كاذب']\n",
        encoding="utf-8",
    )
    patterns = load_patterns(custom)
    cleaned = clean_claim("تفنيد زيادة الرواتب", veracity="false", patterns=patterns)
    assert (cleaned.cleaned_text, cleaned.rules) == ("زيادة الرواتب", ("tanfid",))
    # the packaged framings are not in the custom file
    assert clean_claim("حقيقة زيادة الرواتب", veracity="false", patterns=patterns).cleaned_text == "حقيقة زيادة الرواتب"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[[prefix]]\nname = 'x'\npattern = '(unclosed'\n", "'x' has an invalid pattern"),
        ("[[prefix]]\npattern = 'a'\n", r"\[\[prefix\]\] entry 1 needs a 'name'"),
        ("[[prefix]\n", "cannot read debunk patterns"),
        ("[[prefix]]\nname = 'x'\npattern = 'a'\n", r"missing or invalid \[multimedia\]/\[review\]"),
        ("[[prefix]]\nname = 'x'\npattern = 'a{linker}'\n", r"'x' uses the part \{linker\}, which \[parts\] does not define"),
        ("[parts]\nlinker = '{free}'\nfree = 'a'\n", r"part 'linker' uses the part \{free\}"),
    ],
)
def test_bad_pattern_file_names_the_problem(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(PatternConfigError, match=message):
        load_patterns(bad)


def test_world_posts_clean_to_their_expected_claims() -> None:
    """The offline demo world states what each post's claim is; the rules must produce it."""
    world = pytest.importorskip("snapshots.world").build_world()
    for post in world.posts:
        cleaned = clean_claim(post.claim_text, veracity="false", is_multimedia=post.multimedia)
        got = cleaned.cleaned_text if cleaned.status != "excluded" else None
        assert got == post.expected_claim, (post.post_id, post.claim_text)
        assert cleaned.status != "review", (post.post_id, post.claim_text)


@pytest.mark.parametrize(
    ("published", "noun_phrase"),
    [
        ("حقيقة وفاة الفنان محمود في المستشفى", True),
        ("لا صحة لخبر انهيار سد النهضة", True),                 # انفعال
        ("حقيقة تعطيل الدوام في المدارس غدا", True),            # تفعيل
        ("لا صحة لما يتم تداوله حول اختراق حسابات العملاء", True),  # افتعال
        ("حقيقة: الحكومة تقرر رفع أسعار الوقود", False),       # a sentence: subject and verb
        ("شائعة: وزارة الصحة سحبت دواء من الصيدليات", False),  # opens with a noun that is no verbal noun
        ("حقيقة إغلاق المدارس وتعلن الوزارة التفاصيل", False),  # a verb follows
    ],
)
def test_bare_noun_phrases_after_the_framing_go_to_review_when_asked(published: str, noun_phrase: bool) -> None:
    assert clean_claim(published, veracity="false").status == "active"  # the default keeps them
    cleaned = clean_claim(published, veracity="false", noun_phrases="review")
    assert (cleaned.status, cleaned.status_reason) == (("review", "noun_phrase") if noun_phrase else ("active", None))
    # a headline, or a claim that never had a framing, is never one
    assert clean_claim("وفاة الفنان محمود", veracity="false", noun_phrases="review").status == "active"


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # after "لخبر / لأنباء / لأخبار" the claim follows: its own "من / عن" is not the framing's
        ("لا صحة لأنباء إغلاق المدارس في جدة من الأسبوع المقبل", "إغلاق المدارس في جدة من الأسبوع المقبل"),
        ("لا صحة لأخبار تأجيل الامتحانات عن موعدها في مصر", "تأجيل الامتحانات عن موعدها في مصر"),
        ("لا صحة لخبر إغلاق المدارس في جدة من الأسبوع المقبل", "إغلاق المدارس في جدة من الأسبوع المقبل"),
        # ... unless a word of circulation says the framing goes on to "حول / عن"
        ("لا صحة لأخبار متداولة حول إغلاق المدارس من الأسبوع المقبل", "إغلاق المدارس من الأسبوع المقبل"),
        ("لا صحة لأنباء يتم تداولها عن وفاة الفنان سامي", "وفاة الفنان سامي"),
    ],
)
def test_the_claim_own_preposition_is_not_taken_for_the_framing(published: str, claim: str) -> None:
    assert clean_claim(published, veracity="false").cleaned_text == claim


@pytest.mark.parametrize(
    ("published", "kept", "status"),
    [
        # a verdict word inside a word, or the claim's own closing words, is not a verdict
        ("وزارة التجارة تحذر من الإعلان المضلل", "وزارة التجارة تحذر من الإعلان المضلل", "active"),
        ("الحكومة تغرم الشركات بسبب الإعلان المضلل", "الحكومة تغرم الشركات بسبب الإعلان المضلل", "active"),
        # the verdict's word without a separator: kept whole, and a person decides
        ("مواطن يقاضي صحيفة بسبب خبر كاذب", "مواطن يقاضي صحيفة بسبب خبر كاذب", "review"),
        # still verdicts: after a separator, after "هو / هي", or a phrase that is only ever one
        ("إغلاق المدارس في دبي - مضلل", "إغلاق المدارس في دبي", "active"),
        ("إغلاق المدارس في دبي هو شائعة", "إغلاق المدارس في دبي", "active"),
        ("ما يتم تداوله عن رفع أسعار الخبز غير صحيح", "رفع أسعار الخبز", "active"),
    ],
)
def test_verdict_suffixes_are_whole_words_after_a_separator(published: str, kept: str, status: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (kept, status)


@pytest.mark.parametrize("mark", ["\u200f", "\u200e", "\u200b", "\ufeff", "\u061c"])
def test_an_invisible_mark_before_the_framing_hides_nothing(mark: str) -> None:
    cleaned = clean_claim(f"{mark}حقيقة إغلاق\u200c مدارس جدة", veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == ("إغلاق مدارس جدة", "active")
    assert cleaned.normalized_text == clean_claim("إغلاق مدارس جدة", veracity="false").normalized_text
    video = clean_claim(f"{mark}فيديو: لحظة انهيار جسر في جدة", veracity="false")
    assert (video.status, video.status_reason) == ("excluded", "multimedia")


@pytest.mark.parametrize(
    ("published", "veracity", "claim"),
    [
        ('لا صحة لما يتم تداوله حول "إغلاق المدارس" في الرياض', "false", '"إغلاق المدارس" في الرياض'),
        ("حقيقة «وفاة الفنان» محمد علي", "false", "«وفاة الفنان» محمد علي"),
        ('وزير الصحة: "اللقاح آمن تماما"', "true", 'وزير الصحة: "اللقاح آمن تماما"'),
        # quotation marks around the whole claim, or left without their partner, go
        ("حقيقة: «الحكومة تلغي دعم الخبز»", "false", "الحكومة تلغي دعم الخبز"),
        ('"الحكومة تلغي دعم الخبز', "false", "الحكومة تلغي دعم الخبز"),
        ("الحكومة تلغي دعم الخبز»", "false", "الحكومة تلغي دعم الخبز"),
    ],
)
def test_quotation_marks_stay_paired(published: str, veracity: str, claim: str) -> None:
    assert clean_claim(published, veracity=veracity).cleaned_text == claim  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "multimedia"),
    [
        ("شاهد عيان: انفجار قرب السفارة في بيروت", False),   # an eyewitness
        ("صور تستقبل آلاف النازحين من الجنوب", False),        # the city of Tyre
        ("مقطع من خط أنابيب النفط يتعرض لهجوم", False),       # a section of a pipeline
        ("شاهد لحظة انهيار الجسر", True),
        ("صور مسربة من داخل السجن", True),
        ("مقطع يظهر سقوط الطائرة", True),
        ("صورة: الرئيس في المستشفى", True),
    ],
)
def test_multimedia_words_that_name_something_else_are_statements(text: str, multimedia: bool) -> None:
    for veracity in ("false", "true"):
        cleaned = clean_claim(text, veracity=veracity)  # type: ignore[arg-type]
        assert (cleaned.status_reason == "multimedia") is multimedia, (text, veracity)


@pytest.mark.parametrize("block", ["-", "…", "ـــ", "\u200f", "«»"])
def test_claim_review_stands_in_for_a_claim_block_of_marks_alone(block: str) -> None:
    cleaned = clean_claim(block, veracity="false", claim_reviewed="الحكومة ستلغي دعم الوقود")
    assert (cleaned.cleaned_text, cleaned.status) == ("الحكومة ستلغي دعم الوقود", "active")


def test_a_post_that_asks_a_question_goes_to_review_but_a_question_framing_does_not() -> None:
    asked = clean_claim("هل تغلق الحكومة المدارس غدا؟", veracity="false")
    assert (asked.status, asked.status_reason) == ("review", "question")
    assert clean_claim("«هل تغلق الحكومة المدارس غدا؟»", veracity="false").status_reason == "question"
    framed = clean_claim("ما حقيقة إغلاق المدارس في الرياض؟", veracity="false")
    assert (framed.cleaned_text, framed.status) == ("إغلاق المدارس في الرياض", "active")
    assert clean_claim("هل تغلق الحكومة المدارس غدا؟", veracity="true").status == "active"  # headlines never


@pytest.mark.parametrize("text", ["صورة للرئيس يرتدي زيا عسكريا", "صورة قديمة للرئيس", "الصورة المتداولة للرئيس",
                                  "المقطع المتداول لسقوط الطائرة", "مقطع لسقوط الطائرة", "صور لسقوط الطائرة"])
def test_picture_and_clip_claims_stay_multimedia(text: str) -> None:
    assert clean_claim(text, veracity="false").status_reason == "multimedia"


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        ('«قال الوزير "لا زيادة" في الأسعار»', 'قال الوزير "لا زيادة" في الأسعار'),
        ("«الحكومة «تغلق» المدارس غدا»", "الحكومة «تغلق» المدارس غدا"),
        ('"الأول" و"الثاني" في الخبر', '"الأول" و"الثاني" في الخبر'),  # two quotations, not one around all
        ("لا صحة لأخبار بشأن إغلاق المدارس في جدة", "إغلاق المدارس في جدة"),
        ("لا صحة لأنباء تتحدث عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة"),
    ],
)
def test_quotations_inside_an_enclosing_pair_and_framings_of_report(published: str, claim: str) -> None:
    assert clean_claim(published, veracity="false").cleaned_text == claim


def test_a_question_ending_in_an_invisible_mark_is_still_asked() -> None:
    assert clean_claim("هل تغلق الحكومة المدارس غدا؟\u200f", veracity="false").status_reason == "question"


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # the framing ends in "بأن / أن / إن" or in a verb that states the claim: the claim's own
        # "من / عن" is not taken for the framing's end
        ("لا صحة لما يتم تداوله بأن الجيش انسحب من مدينة حلب شمال سوريا", "الجيش انسحب من مدينة حلب شمال سوريا", "la_sihha_ma_yutadawal"),
        ("لا صحة للأخبار التي تزعم انسحاب الجيش من مدينة حلب شمال سوريا", "انسحاب الجيش من مدينة حلب شمال سوريا", "la_sihha_ma_yutadawal"),
        ("لا صحة للمعلومات التي تقول إن الحكومة ستفرض ضريبة من الشهر المقبل", "الحكومة ستفرض ضريبة من الشهر المقبل", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء بأن الحكومة ستفرض ضريبة جديدة على السكر", "الحكومة ستفرض ضريبة جديدة على السكر", "la_sihha_ma_yutadawal"),
        ("لا صحة لأنباء تزعم أن الجيش انسحب من حلب", "الجيش انسحب من حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء التي تفيد بإغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("غير صحيح ما يتم تداوله بأن الجيش انسحب من مدينة حلب شمال سوريا", "الجيش انسحب من مدينة حلب شمال سوريا", "ghayr_sahih_ma"),
        ("حقيقة ما نشر بأن الجيش انسحب من مدينة حلب شمال سوريا", "الجيش انسحب من مدينة حلب شمال سوريا", "haqiqat_ma_yutadawal"),
        ("نفي ما تردد بأن الجيش انسحب من مدينة حلب شمال سوريا", "الجيش انسحب من مدينة حلب شمال سوريا", "nafy_ma"),
        ("ما يتم تداوله بأن الجيش انسحب من سوريا غير صحيح", "الجيش انسحب من سوريا", "ma_yutadawal"),
        # the framing's source, where it circulated, and other linkers
        ("لا صحة لما نشره عدد من المواقع حول إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يتم تداوله: الجيش انسحب من مدينة حلب", "الجيش انسحب من مدينة حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يتم تداوله فيما يتعلق بإغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("نفي الأنباء المتداولة عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "nafy_ma"),
    ],
)
def test_a_framing_is_stripped_to_its_own_end_and_no_further(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert rule in cleaned.rules


@pytest.mark.parametrize(
    ("published", "kept"),
    [
        # "خبر كاذب عن" does not say what the report claimed: nothing more is stripped
        ("لا صحة لما يتم تداوله حول خبر كاذب عن الوزير", "خبر كاذب عن الوزير"),
        # no linker after the framing: where the claim begins is not known
        ("لا صحة لما يتم تداوله انسحاب الجيش من مدينة حلب شمال سوريا", "لا صحة لما يتم تداوله انسحاب الجيش من مدينة حلب شمال سوريا"),
        ("لا صحة للأنباء المتداولة انسحاب الجيش من مدينة حلب", "لا صحة للأنباء المتداولة انسحاب الجيش من مدينة حلب"),
    ],
)
def test_a_framing_whose_end_is_not_found_leaves_the_post_to_review(published: str, kept: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (kept, "review")


@pytest.mark.parametrize(
    ("text", "multimedia"),
    [
        # headline punctuation after the multimedia word, as after a colon
        ("بالفيديو.. لحظة انهيار المبنى", True),
        ("بالصور.. آثار السيول في جدة", True),
        ("فيديو.. لحظة انهيار المبنى", True),
        ("بالفيديو- لحظة انهيار المبنى", True),
        ("بالفيديو، لحظة انهيار المبنى", True),
        ("فيديو... لحظة انهيار المبنى", True),
        ("صور.. آثار السيول في جدة", True),
        # words that only start with those letters, or name something else, are statements
        ("صور - الجيش ينتشر في الجنوب اللبناني", False),  # a dateline from Tyre
        ("صور تستقبل آلاف النازحين من الجنوب", False),
        ("مقطع من خط أنابيب النفط يتعرض لهجوم", False),
        ("الحكومة تنشر فيديوهات لتدريب الجيش", False),
    ],
)
def test_headline_punctuation_after_a_multimedia_word(text: str, multimedia: bool) -> None:
    cleaned = clean_claim(text, veracity="false")
    assert cleaned.cleaned_text == text
    assert (cleaned.status, cleaned.status_reason) == (("excluded", "multimedia") if multimedia else ("active", None))


def test_a_multimedia_claim_inside_a_framing_is_excluded() -> None:
    cleaned = clean_claim("لا صحة لما يتم تداوله حول بالفيديو.. لحظة انهيار المبنى", veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == ("بالفيديو.. لحظة انهيار المبنى", "excluded", "multimedia")


def test_framings_share_named_parts_and_a_claim_left_opening_with_a_linker_goes_to_review(tmp_path: Path) -> None:
    custom = tmp_path / "patterns.toml"
    custom.write_text(
        "[parts]\nreport = '(?:خبر|انباء)'\nlinker = '\\s+حول\\s+'\n"
        "[[prefix]]\nname = 'tafnid_khabar'\npattern = 'تفنيد\\s+{report}{linker}'\n"
        "[[prefix]]\nname = 'tafnid'\npattern = 'تفنيد\\s+{report}\\s+'\n"
        "[multimedia]\npattern = '^فيديو'\n"
        "[review]\nmin_tokens = 1\nmax_tokens = 10\nmin_arabic_ratio = 0.5\nresidual_framing = ['كاذب']\n"
        "fragment_openers = ['عن']\n",
        encoding="utf-8",
    )
    patterns = load_patterns(custom)
    cleaned = clean_claim("تفنيد أنباء حول زيادة الرواتب", veracity="false", patterns=patterns)
    assert (cleaned.cleaned_text, cleaned.status, cleaned.rules) == ("زيادة الرواتب", "active", ("tafnid_khabar",))
    # the file's linker does not know "عن": "تفنيد خبر" stops before it, and what is left is no claim yet
    cleaned = clean_claim("تفنيد خبر عن زيادة الرواتب", veracity="false", patterns=patterns)
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == ("عن زيادة الرواتب", "review", "fragment")


@pytest.mark.parametrize(
    ("published", "rule"),
    [
        # a verb of circulation or saying that carries the pronoun of what was circulated, attached
        # in any person ("نقلته / ينقلونه / تناقلوه") or after "عن / ب / ل" ("أعلن عنه / روجت له")
        ("لا صحة لما نقلته وسائل الإعلام عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تناولته بعض المواقع عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما بثته قناة الجزيرة عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أعلنته بعض الصفحات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما كتبه أحد النشطاء عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما ادعته بعض الحسابات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما ينقلونه عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما صرح به مصدر مجهول بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أعلن عنه أحد الحسابات حول زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما روجت له بعض الصفحات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يروجون له حول زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تحدثت عنه بعض المواقع من زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما كشفت عنه إحدى الصحف بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أدلى به مصدر مجهول بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أفادت به بعض المواقع بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أشاعته بعض الصفحات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما سربه أحد الحسابات بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أثاره البعض حول زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تناقلوه عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما ينقلونها عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أوردته بعض المواقع عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما ذكره أحد الحسابات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما قاله أحد النشطاء عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما رواه أحد النشطاء عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما ادعاه أحد النشطاء عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يدعونه عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما زعمه أحد النشطاء حول زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما بثه أحد الحسابات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما نشره أحد الحسابات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تداوله رواد مواقع التواصل عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما روت الصحف عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء التي روجت لها الصفحات عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        # a passive verb of reporting, with or without its vowels
        ("لا صحة لما نُقل بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما نقل على مواقع التواصل بشأن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        # the same verbs after the other verdicts, and after a report noun
        ("غير صحيح ما نقلته وسائل الإعلام عن زيادة أسعار الخبز", "ghayr_sahih_ma"),
        ("حقيقة ما تناولته بعض المواقع عن زيادة أسعار الخبز", "haqiqat_ma_yutadawal"),
        ("نفي ما بثته قناة الجزيرة عن زيادة أسعار الخبز", "nafy_ma"),
        ("لا صحة للأنباء التي نقلتها وسائل الإعلام عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لأنباء نقلتها وسائل الإعلام عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("ما نقلته وسائل الإعلام عن زيادة أسعار الخبز غير صحيح", "ma_yutadawal"),
        # "من" + the report noun before the linker is the framing's too, not the claim's start
        ("لا صحة لما تردد من أنباء عن زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يتم تداوله من أخبار متداولة حول زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        ("غير صحيح ما نشرته بعض المواقع من معلومات بأن زيادة أسعار الخبز", "ghayr_sahih_ma"),
        ("نفي ما تردد من شائعات عن زيادة أسعار الخبز", "nafy_ma"),
    ],
)
def test_any_verb_of_reporting_opens_a_framing(published: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == ("زيادة أسعار الخبز", "active", None)
    assert rule in cleaned.rules


@pytest.mark.parametrize(
    ("published", "claim", "status"),
    [
        # a verb with no pronoun of what was circulated may be the claim's own: left whole
        ("لا صحة لما حدث في مدينة حلب من انفجار", "لا صحة لما حدث في مدينة حلب من انفجار", "review"),
        # nor is a preposition with a pronoun a verb
        ("لا صحة لما فيه من اتهامات للوزير", "لا صحة لما فيه من اتهامات للوزير", "review"),
        # a report noun's own claim may open with a pronoun's ending ("ة" folds to "ه")
        ("لا صحة لأنباء وفاته في حادث سير من الأسبوع الماضي", "وفاته في حادث سير من الأسبوع الماضي", "active"),
        ("لا صحة لأنباء زيادة رواتب الموظفين من الشهر المقبل", "زيادة رواتب الموظفين من الشهر المقبل", "active"),
        # with no verdict before it, "ما" may ask
        ("ما قصة انسحاب الجيش من حلب؟", "ما قصة انسحاب الجيش من حلب", "review"),
        # "من" + what happened is the claim, and a report noun with no linker after it is no framing
        ("لا صحة لما يتم تداوله من انسحاب الجيش من حلب", "انسحاب الجيش من حلب", "active"),
        ("لا صحة لما يتم تداوله من أنباء", "أنباء", "review"),
        # after "نُقل / رُوي", "عن" may name whom it was quoted from: with no "أن" after the speaker
        # what was said is not given, and the post is left whole for a person
        ("لا صحة لما نُقل عن وزير الخارجية بشأن قطع العلاقات", "لا صحة لما نقل عن وزير الخارجية بشأن قطع العلاقات",
         "review"),
    ],
)
def test_a_word_that_only_looks_like_a_verb_of_reporting_opens_no_framing(published: str, claim: str, status: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, status)


@pytest.mark.parametrize(
    ("published", "claim", "status"),
    [
        # the pronoun refers back to "ما" whatever the verb: a verb that is not of circulation or saying
        # is the claim's own, and its subject is what the claim is about: left whole for a person
        ("لا صحة لما تعرض له الرئيس من محاولة اغتيال", "لا صحة لما تعرض له الرئيس من محاولة اغتيال", "review"),
        ("لا صحة لما أصيب به اللاعب محمد صلاح من كسر في القدم",
         "لا صحة لما أصيب به اللاعب محمد صلاح من كسر في القدم", "review"),
        ("لا صحة لما قامت به الشرطة من اعتقال للصحفيين", "لا صحة لما قامت به الشرطة من اعتقال للصحفيين", "review"),
        ("لا صحة لما يتعرض له المعتقلون من تعذيب في السجون", "لا صحة لما يتعرض له المعتقلون من تعذيب في السجون",
         "review"),
        ("غير صحيح ما تعرض له الطفل من اعتداء في المدرسة", "غير صحيح ما تعرض له الطفل من اعتداء في المدرسة", "review"),
        ("لا صحة لما تضمنه القرار من فرض ضرائب جديدة", "لا صحة لما تضمنه القرار من فرض ضرائب جديدة", "review"),
        ("لا صحة للأنباء التي تعرض لها الرئيس من محاولة اغتيال",
         "لا صحة للأنباء التي تعرض لها الرئيس من محاولة اغتيال", "review"),
        # after "حقيقة / نفي" alone the clause stays whole, its subject with it, and goes to review: it
        # names what circulated without stating it
        ("حقيقة ما تعرضت له الفنانة من اعتداء في القاهرة", "ما تعرضت له الفنانة من اعتداء في القاهرة", "review"),
        ("نفي ما تعرض له الرئيس من محاولة اغتيال", "ما تعرض له الرئيس من محاولة اغتيال", "review"),
        # "نسب" names whom the words were ascribed to after "إلى": with no "أن" after the speaker what
        # was said is not given (quoted_speaker), and the speaker is not cut as a publisher
        ("لا صحة لما نسبته بعض المواقع إلى وزير الصحة بشأن إغلاق المدارس",
         "لا صحة لما نسبته بعض المواقع إلى وزير الصحة بشأن إغلاق المدارس", "review"),
    ],
)
def test_a_verb_that_is_not_of_reporting_keeps_the_claims_subject(published: str, claim: str, status: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, status)


@pytest.mark.parametrize("published", [
    "لا صحة لما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس",  # it was: "وزير الصحة بشأن إغلاق المدارس", active
    "لا صحة لما رواه أحد الحسابات عن الوزير حول إغلاق المدارس",
    "غير صحيح ما يروى عن الوزير حول إغلاق المدارس",
    "لا صحة لما روته الصحف عن الوزير بشأن إغلاق المدارس",
    "لا صحة لما نقلت الصحف عن وزير الصحة بشأن إغلاق المدارس",
    "غير صحيح ما نسبته بعض المواقع إلى الوزير حول إغلاق المدارس",
    # a verb that circulates without quoting, then a person or a body and a topic (it was: "وزير الصحة
    # بشأن إغلاق المدارس", active)
    "لا صحة لما يتم تداوله عن وزير الصحة بشأن إغلاق المدارس",
    "لا صحة لما تردد عن الرئيس حول الانتخابات المقبلة",
    "لا صحة لما يتم تداوله حول وزارة الصحة بشأن لقاحات الأطفال",
    "غير صحيح ما نشرته بعض المواقع عن الفنانة أحلام بخصوص اعتزالها",
    "لا صحة لما تم نقله عن الوزير بشأن إغلاق المدارس",
    "لا صحة لما تردد من أنباء عن وزير الصحة بشأن إغلاق المدارس",
    # the same after a report noun (it was: "الوزير بشأن إغلاق المدارس", active)
    "لا صحة للأنباء التي نقلتها الصحف عن الوزير بشأن إغلاق المدارس",
    "لا صحة للأخبار المتداولة عن وزير الصحة بشأن إغلاق المدارس",
    "لا صحة لأنباء نقلتها الصحف عن الوزير بشأن إغلاق المدارس",
    "لا صحة لأخبار متداولة عن وزير الصحة بشأن إغلاق المدارس",
    "لا صحة للأنباء عن وزير الصحة بشأن إغلاق المدارس",
    "نفي الأنباء التي نقلتها الصحف عن الوزير بشأن إغلاق المدارس",
    "حقيقة الأخبار المتداولة عن الوزير بشأن إغلاق المدارس",
    "نفي أنباء عن وزير الصحة بشأن إغلاق المدارس",
    # "على / عن لسان" ("in the words of") quotes as "عن" does
    "لا صحة لما ورد على لسان وزير الصحة بشأن إغلاق المدارس",
    "لا صحة لما نقل عن لسان وزير الصحة حول إغلاق المدارس",
])
def test_whom_a_report_is_about_then_its_topic_is_left_whole(published: str) -> None:
    """The report names whom it quotes or is about, then "بشأن / حول" its topic: no claim is stated, and
    cut at "عن" the person and the topic were stored as one. Whom a verb of quoting names is always a
    speaker; after any other verb or a report noun, a listed person or body (`person`) is."""
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (published, "review")
    assert clean_claim("لا صحة لما نقلته وسائل الإعلام عن زيادة أسعار الخبز", veracity="false").cleaned_text == (
        "زيادة أسعار الخبز")  # what was reported, with no topic after it, is still the claim


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # a verb of circulation with no pronoun, its subject a publisher: the pronoun may be dropped
        ("لا صحة لما نشرت الصحف عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أوردت بعض الحسابات حول رفع أسعار الوقود", "رفع أسعار الوقود", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تناقلت وسائل الإعلام المحلية بشأن إغلاق المدارس في جدة", "إغلاق المدارس في جدة",
         "la_sihha_ma_yutadawal"),
        ("لا صحة لما ذكرت إحدى الصحف من أن الجيش انسحب من حلب", "الجيش انسحب من حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تنشر الحسابات من أنباء عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء التي نشرت الصحف حول إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("غير صحيح ما نشرت صحيفة محلية عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "ghayr_sahih_ma"),
        ("حقيقة ما تداولت مواقع التواصل الاجتماعي حول إغلاق المدارس في جدة", "إغلاق المدارس في جدة",
         "haqiqat_ma_yutadawal"),
        ("نفي ما نشرت الصحف عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "nafy_ma"),
        ("ما نشرت الصحف عن إغلاق المدارس في جدة غير صحيح", "إغلاق المدارس في جدة", "ma_yutadawal"),
        # the same with the pronoun, as before
        ("لا صحة لما نشرته بعض المواقع عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أوردته الصحف بشأن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
        # a quotation: who said it stays, the verb that carried it goes, and the words follow a colon
        ("لا صحة لما نُقل عن وزير الصحة أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا", "quoted_speaker"),
        ("لا صحة لما نقل عن وزير الصحة من أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا", "quoted_speaker"),
        ("لا صحة لما نُسب إلى وزير الصحة بأن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا", "quoted_speaker"),
        ("لا صحة لما نقلته الصحف عن وزير الصحة قوله إن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة لما نقلت وسائل الإعلام عن وزير الصحة أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة لما نسبته بعض المواقع إلى وزير الصحة من أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة لما نقل عن الرئيس من أنه سيترشح لولاية ثانية", "الرئيس: سيترشح لولاية ثانية", "quoted_speaker"),
        ("لا صحة لما نقل عن مصدر في وزارة الصحة، أن المدارس ستغلق غدا", "مصدر في وزارة الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("غير صحيح ما يروى عن المفتي أنه أجاز الإفطار في رمضان", "المفتي: أجاز الإفطار في رمضان", "quoted_speaker"),
        ("نفي ما نُقل عن المتحدث باسم الوزارة أن المدارس ستغلق غدا", "المتحدث باسم الوزارة: المدارس ستغلق غدا",
         "quoted_speaker"),
        # "عن / على لسان" is "in the words of": the speaker is who follows it (it was: "لسان وزير الصحة: ...",
        # or the speaker dropped: "المدارس ستغلق غدا")
        ("لا صحة لما نقل عن لسان وزير الصحة أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا", "quoted_speaker"),
        ("لا صحة لما نقلته الصحف على لسان وزير الصحة أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة لما ورد على لسان وزير الصحة بأن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا", "quoted_speaker"),
        # a report noun quotes as "ما" does (it was: "وزير الصحة أن المدارس ستغلق غدا", active)
        ("لا صحة للأنباء التي نقلتها الصحف عن وزير الصحة أن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة لأخبار نقلتها الصحف عن وزير الصحة قوله إن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("لا صحة للتصريحات المنسوبة إلى وزير الصحة بأن المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا",
         "quoted_speaker"),
        ("نفي الأنباء المنقولة عن لسان الرئيس أنه سيترشح لولاية ثانية", "الرئيس: سيترشح لولاية ثانية", "quoted_speaker"),
        ("حقيقة الأخبار التي نقلتها الصحف على لسان الوزير أن المدارس ستغلق", "الوزير: المدارس ستغلق", "quoted_speaker"),
        # "قيل عن" + "أنه / أنها": what was said about the person, who is the claim's subject, with
        # what was said after it ("أنه تم" too), never as the person's own words
        ("لا صحة لما قيل عن وزير الصحة أنه سيستقيل من منصبه", "وزير الصحة سيستقيل من منصبه", "said_about"),
        ("لا صحة لما قيل عن الشركة بأنها أعلنت إفلاسها", "الشركة أعلنت إفلاسها", "said_about"),
        ("لا صحة لما قيل عن الوزير أنه تم إعفاؤه من منصبه", "الوزير تم إعفاؤه من منصبه", "said_about"),
        # "عن" + what was reported, with no "أن" after it, still opens the claim
        ("لا صحة لما قيل عن إغلاق المدارس في جدة", "إغلاق المدارس في جدة", "la_sihha_ma_yutadawal"),
    ],
)
def test_a_publisher_or_a_quoted_speaker_in_the_framing_is_stated_as_the_claim(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert rule in cleaned.rules


@pytest.mark.parametrize(
    ("published", "claim", "status"),
    [
        # a claim that only contains "الصحف" or "نقل" is not cut
        ("الصحف نشرت أن المدارس ستغلق في جدة", "الصحف نشرت أن المدارس ستغلق في جدة", "active"),
        ("نُقل عن وزير الصحة أن المدارس ستغلق غدا", "نقل عن وزير الصحة أن المدارس ستغلق غدا", "active"),
        ("لا صحة لإغلاق الصحف المحلية في جدة", "إغلاق الصحف المحلية في جدة", "active"),
        ("لا صحة لنقل الموظفين عن مكاتبهم إلى فرع جدة", "نقل الموظفين عن مكاتبهم إلى فرع جدة", "active"),
        ("لا صحة لما يتم تداوله حول نقل وزير الصحة إلى المستشفى", "نقل وزير الصحة إلى المستشفى", "active"),
        ("لا صحة لما يتم تداوله عن منع الصحف من نشر أن المدارس ستغلق",
         "منع الصحف من نشر أن المدارس ستغلق", "active"),
        # "عن" + what the media carried, with no "أن" after it: no speaker, the claim follows "عن"
        ("لا صحة لما نقلته وسائل الإعلام عن زيادة أسعار الخبز", "زيادة أسعار الخبز", "active"),
        # "لسان" that is the claim's own word, not "in the words of"
        ("لا صحة لما يتم تداوله عن قطع لسان طفل في المدرسة", "قطع لسان طفل في المدرسة", "active"),
        # a subject that is no publisher, or a verb that is no verb of circulation: left whole
        ("لا صحة لما قررت الحكومة بشأن إغلاق المدارس", "لا صحة لما قررت الحكومة بشأن إغلاق المدارس", "review"),
        ("لا صحة لما يخص الصحف من ضرائب جديدة", "لا صحة لما يخص الصحف من ضرائب جديدة", "review"),
        # no linker after the publisher, or no words after the speaker: nothing to state
        ("لا صحة لما نشرت الصحف", "لا صحة لما نشرت الصحف", "review"),
        ("لا صحة لما نسب إلى وزير الصحة بشأن إغلاق المدارس", "لا صحة لما نسب إلى وزير الصحة بشأن إغلاق المدارس", "review"),
    ],
)
def test_a_publisher_or_quoting_word_outside_a_framing_is_not_cut(published: str, claim: str, status: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, status)


@pytest.mark.parametrize(("published", "claim"), [
    # after a label, "ما" opens the claim, a dialect's negation more often than not (it was: review, "fragment")
    ("إشاعة: ما فيه دراسة يوم الأحد بسبب الأمطار", "ما فيه دراسة يوم الأحد بسبب الأمطار"),
    ("غير صحيح: ما حد راح يدفع رسوم الكهرباء بعد اليوم", "ما حد راح يدفع رسوم الكهرباء بعد اليوم"),
    ("شائعة: ما تم صرف معاش شهر مايو", "ما تم صرف معاش شهر مايو"),
    # "ما قيل عن X أنه ..." with the verdict after it is about X, as with the verdict before it (it was: review,
    # and "عار عن الصحة" was not read as a verdict: the whole post stored active)
    ("ما قيل عن الوزير أنه سيستقيل غير صحيح", "الوزير سيستقيل"),
    ("ما يقال عن الفنانة أحلام إنها تزوجت سرا غير صحيح", "الفنانة أحلام تزوجت سرا"),
    ("ما قيل عن الفنانة شيرين أنها اعتزلت الغناء عار عن الصحة", "الفنانة شيرين اعتزلت الغناء"),
])
def test_a_claim_opening_with_ma_after_a_label_or_before_a_verdict_is_stated(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, "active")


@pytest.mark.parametrize("published", [
    # a relative clause left by other framings than حقيقة / نفي alone (it was: active, after b3ae4b2)
    "الحقيقة الكاملة وراء ما تعرض له الرئيس من محاولة اغتيال",
    "هل صحيح ما نقلته الصحف عن وزير الصحة بشأن المدارس؟",
    "شائعات حول ما تعرض له الرئيس من محاولة اغتيال",
    # "ما في" is "what is in" as often as "there is no": after حقيقة / نفي it is a relative clause
    "حقيقة ما في الرسالة المنسوبة لوزارة الصحة عن اللقاح",
    "نفي ما في البيان المتداول عن إغلاق المدارس",
])
def test_a_relative_clause_left_by_any_framing_but_a_label_goes_to_review(published: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.status, cleaned.status_reason) == ("review", "fragment")
    assert cleaned.cleaned_text.startswith("ما ")


def test_a_replacement_names_groups_of_its_own_pattern(tmp_path: Path) -> None:
    rest = (
        "[multimedia]\npattern = '^فيديو'\n"
        "[review]\nmin_tokens = 1\nmax_tokens = 10\nmin_arabic_ratio = 0.5\nresidual_framing = ['كاذب']\n"
    )

    def pattern_file(name: str, prefixes: str) -> Path:  # one file each: load_patterns caches by path
        path = tmp_path / name
        path.write_text(prefixes + rest, encoding="utf-8")
        return path

    qala = pattern_file("qala.toml", "[[prefix]]\nname = 'qala'\npattern = 'قال (?P<who>\\S+) ان\\s+'\nreplace = '\\g<who>: '\n")
    cleaned = clean_claim("قال الوزير إن المدارس ستغلق", veracity="false", patterns=load_patterns(qala))
    assert (cleaned.cleaned_text, cleaned.rules) == ("الوزير: المدارس ستغلق", ("qala",))
    unnamed = pattern_file("unnamed.toml", "[[prefix]]\nname = 'qala'\npattern = 'قال\\s+'\nreplace = '\\g<who>: '\n")
    with pytest.raises(PatternConfigError, match=r"'qala' replaces with \\g<who>, a group its pattern does not name"):
        load_patterns(unnamed)
    twice = pattern_file(
        "twice.toml", "[[prefix]]\nname = 'a'\npattern = '(?P<who>ا)'\n[[prefix]]\nname = 'b'\npattern = '(?P<who>ب)'\n"
    )
    with pytest.raises(PatternConfigError, match=r"two \[\[prefix\]\] framings name the same group"):
        load_patterns(twice)


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # verbs of circulating, repeating, revealing or broadcasting with the pronoun of what circulated
        ("لا صحة لما روجته بعض الصفحات عن إغلاق المدارس غدا", "إغلاق المدارس غدا", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يروجه البعض عن انتشار الكوليرا في المدينة", "انتشار الكوليرا في المدينة", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يروجونه عن انتشار الكوليرا في المدينة", "انتشار الكوليرا في المدينة", "la_sihha_ma_yutadawal"),
        ("لا صحة لما تردده بعض المواقع عن انسحاب الجيش من حلب", "انسحاب الجيش من حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة لما يردده البعض حول انسحاب الجيش من حلب", "انسحاب الجيش من حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة لما رددته الصفحات من أن الجيش انسحب من حلب", "الجيش انسحب من حلب", "la_sihha_ma_yutadawal"),
        ("لا صحة لما كشفته صحيفة عكاظ عن إقالة الوزير", "إقالة الوزير", "la_sihha_ma_yutadawal"),
        ("لا صحة لما أذاعته قناة محلية عن وفاة الرئيس", "وفاة الرئيس", "la_sihha_ma_yutadawal"),
        ("لا صحة لما سرده أحد الحسابات عن انهيار السد", "انهيار السد", "la_sihha_ma_yutadawal"),
        ("لا صحة للأنباء التي روجتها بعض الصفحات عن إغلاق المدارس", "إغلاق المدارس", "la_sihha_ma_yutadawal"),
        ("لا صحة للأخبار التي كشفتها الصحيفة عن إقالة الوزير", "إقالة الوزير", "la_sihha_ma_yutadawal"),
        # a verb of presenting, before a publisher only
        ("لا صحة لما عرضته القناة عن انهيار السد", "انهيار السد", "la_sihha_ma_yutadawal"),
        ("لا صحة لما طرحته بعض الصفحات عن انتشار الكوليرا في المدينة", "انتشار الكوليرا في المدينة",
         "la_sihha_ma_yutadawal"),
        ("لا صحة لما طرحت بعض الصفحات عن انتشار الكوليرا في المدينة", "انتشار الكوليرا في المدينة",
         "la_sihha_ma_yutadawal"),
        ("لا صحة للأخبار التي عرضتها القناة عن انهيار السد", "انهيار السد", "la_sihha_ma_yutadawal"),
        # the same verbs after "نفي / حقيقة / ما حقيقة", and before the verdict: yesterday's claims
        ("نفي ما روجته الصفحات عن إغلاق المدارس", "إغلاق المدارس", "nafy_ma"),
        ("نفي ما تردده بعض المواقع عن انسحاب الجيش من حلب", "انسحاب الجيش من حلب", "nafy_ma"),
        ("حقيقة ما كشفته صحيفة عكاظ عن إقالة الوزير", "إقالة الوزير", "haqiqat_ma_yutadawal"),
        ("حقيقة ما يروجه البعض عن انتشار الكوليرا", "انتشار الكوليرا", "haqiqat_ma_yutadawal"),
        ("ما حقيقة ما روجته الصفحات عن إغلاق المدارس؟", "إغلاق المدارس", "haqiqat_ma_yutadawal"),
        ("ما روجته الصفحات عن إغلاق المدارس غير صحيح", "إغلاق المدارس", "ma_yutadawal"),
    ],
)
def test_verbs_of_circulating_revealing_and_broadcasting_open_a_framing(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert rule in cleaned.rules


@pytest.mark.parametrize(
    "published",
    [
        # "عرض / طرح" with a subject that is no publisher offer or put forward what the claim is about
        "لا صحة لما عرضته الشركة من تعويضات للمتضررين",
        "لا صحة لما طرحته الحكومة من مشروع قانون جديد",
    ],
)
def test_a_verb_of_presenting_whose_subject_is_no_publisher_opens_no_framing(published: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (published, "review")


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # "حقيقة / نفي / ما حقيقة" took only their word: what is left names what circulated, unstated
        ("حقيقة ما تعرض له الرئيس من محاولة اغتيال", "ما تعرض له الرئيس من محاولة اغتيال"),
        ("نفي ما تعرض له الرئيس من محاولة اغتيال", "ما تعرض له الرئيس من محاولة اغتيال"),
        ("حقيقة ما حدث في حلب", "ما حدث في حلب"),
        ("نفي ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس", "ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس"),
        ("حقيقة ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس", "ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس"),
        ("ما حقيقة ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس؟",
         "ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس"),
        ("ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس غير صحيح", "ما نقلته الصحف عن وزير الصحة بشأن إغلاق المدارس"),
        ("حقيقة ما يتم تداوله عن وزير الصحة بشأن إغلاق المدارس", "ما يتم تداوله عن وزير الصحة بشأن إغلاق المدارس"),
        ("ما يتم تداوله عن وزير الصحة بشأن إغلاق المدارس غير صحيح", "ما يتم تداوله عن وزير الصحة بشأن إغلاق المدارس"),
    ],
)
def test_a_claim_left_opening_with_a_relative_clause_goes_to_review(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "review", "fragment")


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # "ما" that is no relative pronoun: "still", "at least", "about"
        ("حقيقة: ما زال الرئيس في المستشفى", "ما زال الرئيس في المستشفى"),
        ("شائعة: ما تزال المدارس مغلقة في جدة", "ما تزال المدارس مغلقة في جدة"),
        ("شائعة: ما لا يقل عن 100 شخص قتلوا في الانفجار", "ما لا يقل عن 100 شخص قتلوا في الانفجار"),
        ("حقيقة ما يقرب من نصف السكان مصابون بالكوليرا", "ما يقرب من نصف السكان مصابون بالكوليرا"),
        # a post with no framing stripped is no framing's remainder
        ("ما تعرض له الرئيس كان محاولة اغتيال", "ما تعرض له الرئيس كان محاولة اغتيال"),
    ],
)
def test_a_claim_that_opens_with_ma_not_relative_stays_active(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # "قيل / يقال عن" names whom the words are about: the claim is about that person, never his quotation
        ("لا صحة لما قيل عن الوزير أنه تم إقالته من منصبه", "الوزير تم إقالته من منصبه", "said_about"),
        ("نفي ما قيل عن الوزير أنه سيستقيل", "الوزير سيستقيل", "said_about"),
        ("حقيقة ما قيل عن الفنانة أنها اعتزلت التمثيل", "الفنانة اعتزلت التمثيل", "said_about"),
        # with no one named before "أن", "عن أن" is the linker and the claim follows it
        ("لا صحة لما قيل عن أن الوزير استقال من منصبه", "الوزير استقال من منصبه", "la_sihha_ma_yutadawal"),
        # "نقل / روي عن" still quote the person
        ("لا صحة لما روته الصحف عن الوزير أن المدارس ستغلق", "الوزير: المدارس ستغلق", "quoted_speaker"),
    ],
)
def test_what_is_said_about_someone_is_not_stated_as_their_words(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert cleaned.rules == (rule,)


@pytest.mark.parametrize("published", [
    # after a bare "أن / إن", "قيل عن X" may name whom the words are about or whom they came from: it was
    # "X: ..." (his words), then "X ..." (words about him, "وزير الصحة المدارس ستغلق غدا")
    "لا صحة لما قيل عن وزير الصحة إن المدارس ستغلق غدا",
    "لا صحة لما قيل عن الفنان عادل إمام أن حالته الصحية متدهورة",
    "لا صحة لما يقال عن اللاعب محمد صلاح إن عقده انتهى",
])
def test_what_is_said_of_someone_before_a_bare_that_is_left_whole(published: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (published, "review")


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # after a verb that does not quote, "عن" opens what circulated, and a topic may follow it
        ("لا صحة لما تردد عن اتفاق بين مصر والسودان بشأن سد النهضة", "اتفاق بين مصر والسودان بشأن سد النهضة",
         "la_sihha_ma_yutadawal"),
        ("لا صحة لما يتم تداوله عن خلاف بين الوزراء حول الميزانية الجديدة", "خلاف بين الوزراء حول الميزانية الجديدة",
         "la_sihha_ma_yutadawal"),
        ("غير صحيح ما نشرته بعض المواقع عن خلافات داخل الحكومة بشأن رفع الدعم",
         "خلافات داخل الحكومة بشأن رفع الدعم", "ghayr_sahih_ma"),
        ("نفي ما تردد عن اتفاق بين مصر والسودان بشأن سد النهضة", "اتفاق بين مصر والسودان بشأن سد النهضة", "nafy_ma"),
        # a verb of quoting with no topic after whom it names: what was reported follows "عن"
        ("نفي ما نقلته الصحف عن زيادة أسعار الخبز", "زيادة أسعار الخبز", "nafy_ma"),
        ("لا صحة للأنباء التي نقلتها الصحف عن زيادة أسعار الخبز", "زيادة أسعار الخبز", "la_sihha_ma_yutadawal"),
        # after a report noun, and a person who is not the first word after "عن"
        ("لا صحة للأخبار المتداولة عن اتفاق بين مصر والسودان بشأن سد النهضة", "اتفاق بين مصر والسودان بشأن سد النهضة",
         "la_sihha_ma_yutadawal"),
        ("لا صحة لما يتم تداوله عن إقالة وزير الصحة بشأن صفقة اللقاحات", "إقالة وزير الصحة بشأن صفقة اللقاحات",
         "la_sihha_ma_yutadawal"),
    ],
)
def test_a_topic_after_what_circulated_is_the_claims_own(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert cleaned.rules == (rule,)


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # the quoted words after a colon, with or without "قوله" (they were left whole)
        ("لا صحة لما نسب إلى وزير الصحة: المدارس ستغلق غدا", "وزير الصحة: المدارس ستغلق غدا"),
        ("لا صحة لما نقل عن الوزير قوله: المدارس ستغلق غدا", "الوزير: المدارس ستغلق غدا"),
        # after "إلى / لسان", which name only a speaker, a quotation mark opens the words (left whole)
        ("لا صحة لما نسب إلى وزير الصحة «المدارس ستغلق غدا»", "وزير الصحة: «المدارس ستغلق غدا»"),
        ('لا صحة لما ورد على لسان الوزير "المدارس ستغلق غدا"', 'الوزير: "المدارس ستغلق غدا"'),
        # "عن أن" after the speaker (it was: "المدارس ستغلق غدا", the speaker dropped)
        ("لا صحة لما ورد على لسان الوزير عن أن المدارس ستغلق غدا", "الوزير: المدارس ستغلق غدا"),
    ],
)
def test_quoted_words_after_a_colon_or_a_quotation_mark_keep_their_speaker(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason, cleaned.rules) == (
        claim, "active", None, ("quoted_speaker",))


@pytest.mark.parametrize(
    ("published", "claim", "status"),
    [
        # after "عن" a quotation mark may be the claim's own: what was reported is the claim, as before
        ("لا صحة لما نقلته الصحف عن زيادة الأسعار «بنسبة 50%»", "زيادة الأسعار «بنسبة 50%»", "active"),
        # no colon, quotation mark or "أن" after the speaker: where the speaker ends is not known
        ("لا صحة لما نسب إلى وزير الصحة المدارس ستغلق غدا", "لا صحة لما نسب إلى وزير الصحة المدارس ستغلق غدا", "review"),
        # "على لسان" the speaker, then "عن" a topic: what he said is not given (it was: "إغلاق المدارس
        # غدا" or "لسان الوزير عن إغلاق المدارس", active, the speaker dropped or taken for the claim)
        ("لا صحة لما ورد على لسان وزير الصحة عن إغلاق المدارس غدا",
         "لا صحة لما ورد على لسان وزير الصحة عن إغلاق المدارس غدا", "review"),
        ("لا صحة لما ورد عن لسان الوزير عن إغلاق المدارس", "لا صحة لما ورد عن لسان الوزير عن إغلاق المدارس", "review"),
        ("غير صحيح ما نقلته الصحف على لسان الوزير عن إغلاق المدارس",
         "غير صحيح ما نقلته الصحف على لسان الوزير عن إغلاق المدارس", "review"),
        # a person named with no title is not told from what happened: after a verb that quotes, his name
        # and a topic are left whole, as a titled person's are
        ("لا صحة لما نسب عن محمد صلاح بشأن اعتزاله اللعب دوليا",
         "لا صحة لما نسب عن محمد صلاح بشأن اعتزاله اللعب دوليا", "review"),
    ],
)
def test_a_speaker_whose_words_are_not_given_is_not_dropped(published: str, claim: str, status: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, status)


@pytest.mark.parametrize(
    ("published", "claim", "rule"),
    [
        # any verb of circulation or report noun, then "عن" + a listed person and "أنه / أنها": said of
        # that person, as after "قيل عن" (it was: "الوزير من أنه سيستقيل من منصبه", active)
        ("لا صحة لما تردد عن الوزير من أنه سيستقيل من منصبه", "الوزير سيستقيل من منصبه", "said_about"),
        ("لا صحة لما يتم تداوله عن الفنانة أحلام من أنها اعتزلت الغناء", "الفنانة أحلام اعتزلت الغناء", "said_about"),
        ("لا صحة لما نشرته بعض المواقع عن وزير المالية بأنه سيستقيل", "وزير المالية سيستقيل", "said_about"),
        ("لا صحة لما قاله النائب عن الوزير أنه سيستقيل", "الوزير سيستقيل", "said_about"),
        ("لا صحة للأنباء المتداولة عن الوزير من أنه سيستقيل", "الوزير سيستقيل", "said_about"),
        ("نفي ما تردد عن الوزير من أنه سيستقيل", "الوزير سيستقيل", "said_about"),
        ("ما تردد عن الوزير من أنه سيستقيل غير صحيح", "الوزير سيستقيل", "said_about"),
        # "أنه" after a verb of saying is the claim's own, after "قيل عن" too (it was: "مسؤول قال سيستقيل")
        ("لا صحة لما يتم تداوله عن مسؤول قال إنه سيستقيل", "مسؤول قال إنه سيستقيل", "la_sihha_ma_yutadawal"),
        ("لا صحة لما قيل عن مسؤول قال إنه سيستقيل", "مسؤول قال إنه سيستقيل", "la_sihha_ma_yutadawal"),
        # so is "من أنه" after a word that is no listed person
        ("لا صحة لما يتم تداوله عن تحذير وزارة الصحة من أنه سيتم إغلاق المدارس",
         "تحذير وزارة الصحة من أنه سيتم إغلاق المدارس", "la_sihha_ma_yutadawal"),
    ],
)
def test_what_circulated_about_a_listed_person_is_stated_of_them(published: str, claim: str, rule: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)
    assert rule in cleaned.rules


@pytest.mark.parametrize("published", [
    # a listed person, then a bare "أن / إن": about him or his words, as after "قيل عن" (it was:
    # "وزير الصحة من أن المدارس ستغلق غدا", active)
    "لا صحة لما تردد عن وزير الصحة من أن المدارس ستغلق غدا",
    "لا صحة لما يتم تداوله عن الحكومة بأن الرواتب سترتفع",
    "لا صحة للأنباء المتداولة عن الوزير أن المدارس ستغلق",
])
def test_a_listed_person_before_a_bare_that_is_left_whole_after_any_verb(published: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (published, "review")


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # a report and its clause, whose verb is none of circulation: the reports are named, what they
        # claimed is not (it was: active, and after "نفي" the claim opened with "التي")
        ("حقيقة الأنباء التي تعرض لها الرئيس من محاولة اغتيال", "الأنباء التي تعرض لها الرئيس من محاولة اغتيال"),
        ("نفي الأنباء التي تعرض لها الرئيس من محاولة اغتيال", "الأنباء التي تعرض لها الرئيس من محاولة اغتيال"),
        ("ما حقيقة الأخبار التي تعرضت لها الفنانة من اعتداء؟", "الأخبار التي تعرضت لها الفنانة من اعتداء"),
        ("الحقيقة وراء الأنباء المتداولة التي تعرض لها الرئيس من محاولة اغتيال",
         "الأنباء المتداولة التي تعرض لها الرئيس من محاولة اغتيال"),
    ],
)
def test_a_report_and_its_relative_clause_left_by_a_framing_go_to_review(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "review", "fragment")


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # a report clause with a verb of circulation or saying still gives its claim
        ("حقيقة الأنباء التي تزعم أن الرئيس تعرض لمحاولة اغتيال", "الرئيس تعرض لمحاولة اغتيال"),
        ("نفي الأنباء التي نقلتها الصحف عن إغلاق المدارس", "إغلاق المدارس"),
        # after a label the report is the claim's own subject
        ("حقيقة: الرسائل التي تصل باسم البنك احتيال", "الرسائل التي تصل باسم البنك احتيال"),
    ],
)
def test_a_report_clause_that_states_its_claim_or_follows_a_label_stays_active(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ("'(التي'", r"\[review\] fragment_pattern is an invalid pattern"),
        ("['التي']", r"\[review\] fragment_pattern must be a pattern string"),
        ("'{report} التي'", r"\[review\] fragment_pattern uses the part \{report\}"),
    ],
)
def test_a_bad_fragment_pattern_is_named(tmp_path: Path, fragment: str, message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        "[[prefix]]\nname = 'x'\npattern = 'a'\n[multimedia]\npattern = '^فيديو'\n"
        "[review]\nmin_tokens = 1\nmax_tokens = 10\nmin_arabic_ratio = 0.5\nresidual_framing = ['كاذب']\n"
        f"fragment_pattern = {fragment}\n",
        encoding="utf-8",
    )
    with pytest.raises(PatternConfigError, match=message):
        load_patterns(bad)


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # a verbal noun of saying or refusing with its pronoun takes the "أن / إن" itself: the report's
        # claim, with that "أن" kept (it was: "لاعب الأهلي واعترافه تعاطى المنشطات", active, or whole for review)
        ("لا صحة لما تردد عن لاعب الأهلي واعترافه بأنه تعاطى المنشطات", "لاعب الأهلي واعترافه بأنه تعاطى المنشطات"),
        ("لا صحة لما يتم تداوله عن الوزير وقوله إنه سيستقيل", "الوزير وقوله إنه سيستقيل"),
        ("لا صحة لما يتم تداوله حول رئيس الوزراء وتصريحه بأنه لن يترشح", "رئيس الوزراء وتصريحه بأنه لن يترشح"),
        ("لا صحة لما تردد عن الوزيرة وتأكيدها أنها ستستقيل", "الوزيرة وتأكيدها أنها ستستقيل"),
        ("لا صحة لما يتم تداوله عن وزارة الصحة وإعلانها أن المدارس ستغلق", "وزارة الصحة وإعلانها أن المدارس ستغلق"),
        ("لا صحة لما يتم تداوله عن الحكومة ورفضها أن تدفع الرواتب", "الحكومة ورفضها أن تدفع الرواتب"),
        # so does a verb of saying after "و"
        ("لا صحة لما يتم تداوله عن الوزير وقال إنه سيستقيل", "الوزير وقال إنه سيستقيل"),
    ],
)
def test_a_that_after_a_noun_or_verb_of_saying_stays_with_it(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason, cleaned.rules) == (
        claim, "active", None, ("la_sihha_ma_yutadawal",))


@pytest.mark.parametrize("published", [
    # "أنه" before "سيتم / لن يتم / من المقرر" refers back to no one: a bare "أن", about the person or
    # body or their words (it was: "مصدر حكومي سيتم رفع الأسعار", active)
    "لا صحة لما تردد عن مصدر حكومي من أنه سيتم رفع الأسعار",
    "لا صحة لما يتم تداوله عن وزارة التعليم من أنه سيتم تأجيل الدراسة",
    "لا صحة لما قيل عن وزارة الصحة أنه لن يتم فتح المدارس",
    "لا صحة لما تردد عن وزارة التعليم أنه من المقرر تأجيل الدراسة",
    # a bare "أن" after a listed person or body, as before
    "لا صحة لما يتم تداوله عن جامعة الملك سعود أن الدراسة ستكون عن بعد",
    "لا صحة لما يتم تداوله عن وزير الحج بأن الحج سيلغى",
])
def test_an_impersonal_that_after_a_listed_person_is_left_whole(published: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.rules) == (published, "review", ())


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # "يتم" before a noun whose pronoun refers back: said of the person
        ("لا صحة لما تردد عن الوزير من أنه سيتم إقالته", "الوزير سيتم إقالته"),
        ("لا صحة لما قيل عن الوزيرة أنها سيتم تعيينها سفيرة", "الوزيرة سيتم تعيينها سفيرة"),
    ],
)
def test_a_that_whose_pronoun_is_taken_up_again_is_said_of_the_person(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.rules) == (claim, "active", ("said_about",))


@pytest.mark.parametrize(
    ("published", "claim", "reason"),
    [
        # after the colon someone answers, in the fact-check's own headline: the words ascribed are not
        # given (it was: "وزير التعليم: الوزارة توضح", active)
        ("لا صحة لما نسب إلى وزير التعليم: الوزارة توضح", "لا صحة لما نسب إلى وزير التعليم: الوزارة توضح",
         "residual_framing"),
        ("لا صحة لما نُسب إلى وزير الصحة: مصدر بالوزارة يرد", "لا صحة لما نسب إلى وزير الصحة: مصدر بالوزارة يرد",
         "residual_framing"),
        ("لا صحة لما نسب إلى وزير الصحة: التفاصيل", "لا صحة لما نسب إلى وزير الصحة: التفاصيل", "residual_framing"),
        ("نفي ما نسب إلى رئيس الجامعة: الجامعة تصدر بيانا", "ما نسب إلى رئيس الجامعة: الجامعة تصدر بيانا", "fragment"),
        # an answer "على / عن" something, and "تفاصيل وحقيقة ما …" (they were stored active in d5a873f)
        ("لا صحة لما نسب إلى وزير الصحة: المتحدث باسم الوزارة يرد على الشائعة",
         "لا صحة لما نسب إلى وزير الصحة: المتحدث باسم الوزارة يرد على الشائعة", "residual_framing"),
        ("لا صحة لما نسب إلى محافظ القاهرة: تفاصيل وحقيقة ما جرى في الاجتماع",
         "لا صحة لما نسب إلى محافظ القاهرة: تفاصيل وحقيقة ما جرى في الاجتماع", "residual_framing"),
        # a quotation mark whose quotation is one word, or does not run to the end, names what was ascribed
        # (it was: 'الأزهر: "فتوى" بتحريم التطعيم', active)
        ('لا صحة لما نُسب إلى الأزهر "فتوى" بتحريم التطعيم', 'لا صحة لما نسب إلى الأزهر "فتوى" بتحريم التطعيم',
         "residual_framing"),
        ('لا صحة لما نسب إلى وزارة الصحة "كورونا" انتهى', 'لا صحة لما نسب إلى وزارة الصحة "كورونا" انتهى',
         "residual_framing"),
        ('لا صحة لما نسب إلى الأزهر "فتوى رسمية" بتحريم التطعيم',
         'لا صحة لما نسب إلى الأزهر "فتوى رسمية" بتحريم التطعيم', "residual_framing"),
    ],
)
def test_an_answer_after_a_colon_or_a_named_thing_in_quotes_is_no_quotation(published: str, claim: str,
                                                                             reason: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "review", reason)
    assert "quoted_speaker" not in cleaned.rules


def test_a_quotation_that_runs_to_a_stripped_verdict_keeps_its_speaker() -> None:
    cleaned = clean_claim("لا صحة لما نسب إلى وزير الصحة «المدارس ستغلق غدا» - شائعة", veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == ("وزير الصحة: «المدارس ستغلق غدا»", "active")
    assert set(cleaned.rules) == {"quoted_speaker", "verdict_after_separator"}


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # a message or post that asks, warns or calls for something: the clause states what circulated
        # (it was: review, "fragment")
        ("حقيقة الرسالة التي تطلب من المواطنين تحديث بياناتهم البنكية",
         "الرسالة التي تطلب من المواطنين تحديث بياناتهم البنكية"),
        ("الحقيقة وراء الرسالة التي تحذر من شرب الماء البارد", "الرسالة التي تحذر من شرب الماء البارد"),
        ("نفي الرسالة التي تطلب من المواطنين تحديث بياناتهم البنكية",
         "الرسالة التي تطلب من المواطنين تحديث بياناتهم البنكية"),
        ("حقيقة المنشور الذي يدعو إلى مقاطعة الانتخابات", "المنشور الذي يدعو إلى مقاطعة الانتخابات"),
        # more verbs that say what a message holds (they went to review as fragments in d5a873f)
        ("حقيقة الرسالة التي تبشر المواطنين بصرف منحة 500 جنيه", "الرسالة التي تبشر المواطنين بصرف منحة 500 جنيه"),
        ("حقيقة الرسالة التي تتضمن رابطا لتحديث البيانات", "الرسالة التي تتضمن رابطا لتحديث البيانات"),
        ("حقيقة الرسالة التي تعد المشتركين بإنترنت مجاني", "الرسالة التي تعد المشتركين بإنترنت مجاني"),
    ],
)
def test_a_message_and_what_it_says_is_the_claim(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "active", None)


@pytest.mark.parametrize(
    ("published", "claim"),
    [
        # the report is its clause's object: what happened to someone, or what someone did, is not stated
        ("حقيقة الرسالة التي تحذر منها وزارة الصحة", "الرسالة التي تحذر منها وزارة الصحة"),
        ("حقيقة الخبر الذي تعرض له الرئيس من محاولة اغتيال", "الخبر الذي تعرض له الرئيس من محاولة اغتيال"),
        ("حقيقة الرسائل التي أرسلها البنك للعملاء", "الرسائل التي أرسلها البنك للعملاء"),
        # a report noun other than a message, or a message that says nothing, with any clause: names the
        # reports and states nothing (it was: active, framing and all)
        ("حقيقة الأخبار التي انتشرت عن وفاة الفنان", "الأخبار التي انتشرت عن وفاة الفنان"),
        ("حقيقة التصريحات التي نسبت للوزير", "التصريحات التي نسبت للوزير"),
        ("حقيقة الخبر الذي انتشر على مواقع التواصل", "الخبر الذي انتشر على مواقع التواصل"),
        ("حقيقة الرسائل التي وصلت إلى هواتف المواطنين", "الرسائل التي وصلت إلى هواتف المواطنين"),
    ],
)
def test_a_report_that_is_its_clauses_object_goes_to_review(published: str, claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status, cleaned.status_reason) == (claim, "review", "fragment")


@pytest.mark.parametrize(("published", "claim"), [
    # a colon before words that hold a verb or a noun of answering, but go on: the words ascribed
    # (it was: review, the whole post)
    ("لا صحة لما نسب إلى وزير الطيران: مصر تعلق الرحلات مع الصين", "وزير الطيران: مصر تعلق الرحلات مع الصين"),
    ("لا صحة لما نسب إلى رئيس الوزراء: الحكومة تصدر قرارا بحظر التجول الشامل",
     "رئيس الوزراء: الحكومة تصدر قرارا بحظر التجول الشامل"),
    ("لا صحة لما نسب إلى وزير الداخلية: بيان رسمي بحظر التجول", "وزير الداخلية: بيان رسمي بحظر التجول"),
    # "أنه يتم" with his pronoun after a preposition: the pronoun refers back (it was: review, the whole post)
    ("لا صحة لما تردد عن الفنان محمد رمضان من أنه سيتم التحقيق معه", "الفنان محمد رمضان سيتم التحقيق معه"),
    ("لا صحة لما تردد عن الوزير من أنه سيتم القبض عليه", "الوزير سيتم القبض عليه"),
])
def test_words_that_go_on_after_an_answer_verb_and_a_pronoun_after_yutam_keep_the_claim(published: str,
                                                                                        claim: str) -> None:
    cleaned = clean_claim(published, veracity="false")
    assert (cleaned.cleaned_text, cleaned.status) == (claim, "active")
