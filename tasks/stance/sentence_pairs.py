"""Sentence pairs read both ways: for an encoder, a pair of two sentences has no first and second.

Some corpora pair two sentences rather than a claim and an article: Khouja's (ANS) pairs a headline
with a claim rewritten from it. Whether one restates, contradicts or is unrelated to the other does not
depend on which is read first, but a cross-encoder reads the two in order, and on 2,652 training pairs
it learns their order as well as their relation. So, for a pair of two sentences:

* training reads each pair in both orders (:func:`swapped`), and
* a shared sentence implies pairs the corpus does not list (:func:`implied_pairs`): if claim ``x``
  agrees with (restates) headline ``h``, every other claim ``y`` written from ``h`` stands to ``x``
  as it stands to ``h``. Khouja's train split already lists 566 of the pairs its headlines imply, 561
  of them with the implied label, and implies 143 more (108 disagree, 23 other, 12 agree);
* prediction averages the encoder's probabilities over both orders.

Measured on Khouja's dev split (e5-small fine-tuned on the CPU; the ``other`` class has 16 dev pairs,
so differences under .02 are noise): the encoder alone went from .784-.801 to .805-.824 (five runs),
the ensemble's from .819 and .828 to .820 and .842 (README, "The ensemble"). Averaging the two orders
is what counts: three of those encoders, read in one order, scored .780-.809.

Only a pair of two headlines or sentences is turned around (:func:`is_sentence_pair`): a claim does not
stand in for an article, and evidence selection needs the article second. A headline joins its parts
with "..", as Arabic headlines do, so that is not a sentence break; of Khouja's 3,407 train and dev
pairs one (a headline of two questions) is not a sentence pair; of Baly's 2,429 pairs three are (a claim
and an article of one short sentence).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from tasks.stance.examples import StanceExample

# the longest text still read as a headline (Khouja's longest has 19 words)
HEADLINE_MAX_WORDS = 30
# a sentence's end with more text after it; the ".." that joins a headline's parts is not one
_SENTENCE_BREAK = re.compile(r"(?<!\.)[.!?؟۔](?!\.)\s+\S")


def is_headline(text: str) -> bool:
    """One sentence or headline: at most :data:`HEADLINE_MAX_WORDS` words, no sentence break inside."""
    return len(text.split()) <= HEADLINE_MAX_WORDS and _SENTENCE_BREAK.search(text) is None


def is_sentence_pair(example: StanceExample) -> bool:
    """Whether the claim and the article are both one sentence or headline, so that the pair reads the
    same both ways."""
    return is_headline(example.claim) and is_headline(example.article)


def swapped(example: StanceExample) -> StanceExample:
    """The pair with its two sentences exchanged; it keeps its claim id, so splits by claim keep both orders together."""
    return replace(example, claim=example.article, article=example.claim, article_title=None, article_url=None)


def implied_pairs(examples: Sequence[StanceExample]) -> list[StanceExample]:
    """The sentence pairs that a shared sentence implies and ``examples`` do not already list.

    For each article, every claim that agrees with it is paired with each other claim of that
    article, which keeps its own label. The new pair belongs to the other claim (its claim id), so
    a split by claim never puts a claim's implied pairs on the other side.
    """
    by_article: dict[str, list[StanceExample]] = defaultdict(list)
    for example in examples:
        if example.label is not None and is_sentence_pair(example):
            by_article[example.article].append(example)
    listed = {(ex.claim, ex.article) for ex in examples}
    implied: dict[tuple[str, str], StanceExample] = {}
    for pairs in by_article.values():
        for restating in (ex for ex in pairs if ex.label == "agree"):
            for other in pairs:
                key = (other.claim, restating.claim)
                if other.claim != restating.claim and key not in listed and key not in implied:
                    implied[key] = replace(other, article=restating.claim, article_id=None, article_title=None,
                                           article_url=None)
    return list(implied.values())


def symmetric_training_pairs(examples: Sequence[StanceExample]) -> list[StanceExample]:
    """``examples``, the pairs they imply, and each sentence pair among them also turned around."""
    pairs = [*examples, *implied_pairs(examples)]
    listed = {(ex.claim, ex.article) for ex in pairs}
    # a pair listed in both orders (two claims that both restate one headline) is not added twice
    return pairs + [swapped(ex) for ex in pairs if is_sentence_pair(ex) and (ex.article, ex.claim) not in listed]
