"""Sentence pairs read both ways: which pairs qualify, their swapped order, the pairs a shared headline implies."""

from __future__ import annotations

from tasks.stance.examples import StanceExample
from tasks.stance.sentence_pairs import (
    HEADLINE_MAX_WORDS,
    implied_pairs,
    is_sentence_pair,
    swapped,
    symmetric_training_pairs,
)

HEADLINE = "البنك المركزي يرفع سعر الفائدة نصف نقطة.. والأسواق تترقب"
RESTATED = "رفع سعر الفائدة نصف نقطة في البنك المركزي"
RESTATED_TOO = "المركزي يزيد الفائدة بمقدار نصف نقطة"
DENIED = "البنك المركزي يبقي سعر الفائدة دون تغيير"
ASIDE = "افتتاح معرض الكتاب في العاصمة"
ARTICLE = " ".join(["قال مسؤول في البنك المركزي إن القرار اتخذ بعد مراجعة مؤشرات التضخم للشهر الماضي."] * 4)


def pair(claim: str, label: str | None, article: str = HEADLINE) -> StanceExample:
    return StanceExample(claim=claim, article=article, label=label, claim_id=f"id-{claim}", article_id=f"a-{claim}",
                         article_title="عنوان" if article == ARTICLE else None)


def test_a_pair_of_two_headlines_reads_both_ways_and_a_claim_article_pair_does_not() -> None:
    assert is_sentence_pair(pair(RESTATED, "agree"))  # ".." joins a headline's parts: still one headline
    assert is_sentence_pair(pair(RESTATED + "؟", "agree", DENIED + "."))
    assert not is_sentence_pair(pair(RESTATED, "agree", ARTICLE))
    assert not is_sentence_pair(pair(RESTATED, "agree", "ارتفعت الأسعار. وتراجعت الأسهم"))  # short, but two sentences
    assert not is_sentence_pair(pair("هل ارتفعت الأسعار؟ ولماذا", "agree"))
    longest = " ".join(["كلمة"] * HEADLINE_MAX_WORDS)
    assert is_sentence_pair(pair(longest, "agree", longest))
    assert not is_sentence_pair(pair(longest + " أخرى", "agree"))


def test_swapping_exchanges_the_texts_and_keeps_the_claim_id_and_label() -> None:
    original = pair(DENIED, "disagree")
    turned = swapped(original)
    assert (turned.claim, turned.article, turned.label) == (HEADLINE, DENIED, "disagree")
    assert turned.claim_id == original.claim_id
    assert swapped(turned) == original


def test_a_restating_claim_implies_how_the_other_claims_of_its_headline_stand_to_it() -> None:
    examples = [pair(RESTATED, "agree"), pair(DENIED, "disagree"), pair(ASIDE, "other"), pair(RESTATED_TOO, "agree")]
    implied = {(ex.claim, ex.article): ex for ex in implied_pairs(examples)}
    assert {key: ex.label for key, ex in implied.items()} == {
        (DENIED, RESTATED): "disagree", (ASIDE, RESTATED): "other", (RESTATED_TOO, RESTATED): "agree",
        (DENIED, RESTATED_TOO): "disagree", (ASIDE, RESTATED_TOO): "other", (RESTATED, RESTATED_TOO): "agree",
    }
    # each implied pair belongs to its own claim, so a split by claim keeps it beside that claim's listed pair
    assert implied[(DENIED, RESTATED)].claim_id == "id-" + DENIED
    assert implied[(DENIED, RESTATED)].article_id is None


def test_pairs_already_listed_unlabelled_or_of_an_article_imply_nothing_new() -> None:
    listed = pair(DENIED, "disagree", article=RESTATED)  # the corpus already pairs the two claims
    examples = [pair(RESTATED, "agree"), pair(DENIED, "disagree"), listed]
    assert implied_pairs(examples) == []
    assert implied_pairs([pair(RESTATED, None), pair(DENIED, "disagree")]) == []
    assert implied_pairs([pair(RESTATED, "agree", ARTICLE), pair(DENIED, "disagree", ARTICLE)]) == []
    assert implied_pairs([pair(DENIED, "disagree"), pair(ASIDE, "other")]) == []  # no claim restates the headline


def test_training_pairs_are_the_listed_and_implied_ones_in_both_orders_once() -> None:
    examples = [pair(RESTATED, "agree"), pair(DENIED, "disagree"), pair(RESTATED_TOO, "agree"),
                pair(DENIED, "disagree", ARTICLE)]
    training = symmetric_training_pairs(examples)
    keys = [(ex.claim, ex.article) for ex in training]
    assert len(keys) == len(set(keys))
    assert training[:4] == examples
    # 3 headline pairs and 4 implied ones, of which RESTATED/RESTATED_TOO are listed both ways already:
    # 7 + 7 swapped - 2 already there; the article pair stays as it is, in one order
    assert len(training) == 4 + 4 + 5
    assert (HEADLINE, RESTATED) in keys and (RESTATED, DENIED) in keys
    assert (ARTICLE, DENIED) not in keys
