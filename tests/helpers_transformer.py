"""A toy Arabic stance task and a tiny randomly initialised BERT for the transformer tests.

Nothing is downloaded: the WordPiece vocabulary is learnt from the toy texts themselves and the
BERT weights are random (hidden 32, 2 layers, 2 heads), so a fine-tuning run takes seconds on two
shared cores. The task is learnable from cue phrases: a refutation phrase before the claim means
disagree, a confirmation phrase agree, a hedged report discuss, and an article about something
else unrelated.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
from tokenizers.pre_tokenizers import BertPreTokenizer
from transformers import BertConfig, BertModel, BertTokenizerFast

from tasks.stance.examples import StanceExample
from tasks.stance.labels import FOUR_WAY

PEOPLE = ("وزير الصحة", "محافظ المدينة", "رئيس النادي", "مدير الشركة", "وزير التعليم", "الفنان المعروف",
          "رئيس البلدية", "وزير المالية")
ACTIONS = ("أعلن إغلاق المدارس", "قرر رفع أسعار الوقود", "استقال من منصبه", "افتتح مستشفى جديدا",
           "منع السفر إلى الخارج", "وزع منحا مالية", "أوقف رحلات القطارات", "ألغى المهرجان السنوي")
PLACES = ("في دبي", "في القاهرة", "في الرياض", "في عمان", "في الكويت", "في جدة")
CUES = {
    "agree": ("أكدت مصادر رسمية صحة الخبر وأن", "أعلنت الجهات المختصة رسميا أن", "ثبت بالفعل أن"),
    "disagree": ("لا صحة لما يتم تداوله حول أن", "نفت الجهات الرسمية أن", "شائعة كاذبة تزعم أن"),
    "discuss": ("تتداول مواقع التواصل أنباء غير مؤكدة عن أن", "يتساءل متابعون عما إذا كان",
                "تناقلت صفحات أخبارا تقول إن"),
}
UNRELATED = ("انطلقت بطولة كرة السلة للشباب بمشاركة عشرة فرق", "شهد معرض الكتاب إقبالا كبيرا من الزوار",
             "توقعت الأرصاد طقسا معتدلا مع رياح خفيفة", "افتتحت حديقة الحيوان جناحا للطيور النادرة")
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
FILLER = ("وتابع الجمهور التفاصيل عبر الشاشات", "وتستمر التغطية خلال الأيام المقبلة",
          "وذكر التقرير أرقاما عن العام الماضي", "ونشرت الصحيفة صورا من المكان")


def toy_claim(rng: random.Random) -> str:
    return f"{rng.choice(PEOPLE)} {rng.choice(ACTIONS)} {rng.choice(PLACES)}"


def toy_article(claim: str, label: str, rng: random.Random) -> str:
    """An article whose stance towards ``claim`` is ``label``, with filler sentences around it."""
    if label == "unrelated":
        core = f"{rng.choice(UNRELATED)} {rng.choice(PLACES)}."
    else:
        core = f"{rng.choice(CUES[label])} {claim}."
    filler = [f"{s}." for s in rng.sample(FILLER, 2)]
    return " ".join([filler[0], core, filler[1]])


def toy_examples(n: int, seed: int, prefix: str = "c") -> list[StanceExample]:
    """``n`` labelled pairs, labels in a balanced rotation."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = FOUR_WAY[i % len(FOUR_WAY)]
        claim = toy_claim(rng)
        out.append(StanceExample(claim=claim, article=toy_article(claim, label, rng), label=label,
                                 claim_id=f"{prefix}{i}", article_id=f"{prefix}{i}-a"))
    return out


def toy_vocabulary_texts() -> list[str]:
    """Every phrase of the toy world (with its punctuation), so the trained vocabulary covers the task."""
    phrases = [*PEOPLE, *ACTIONS, *PLACES, *(c for cues in CUES.values() for c in cues), *UNRELATED, *FILLER]
    return [f"{p}." for p in phrases]


def toy_wordpiece_vocabulary(texts: list[str]) -> dict[str, int]:
    """A WordPiece vocabulary learnt from ``texts``: special tokens, every character (word-initial
    and ``##`` continuation, so nothing is unknown) and every whole word, in sorted order.

    Not the ``tokenizers`` trainer: it breaks ties between equally frequent merges in hash order,
    which differs between processes, so the vocabulary (and with it the whole run) would too.
    """
    pre_tokenizer = BertPreTokenizer()
    words = sorted({word for text in texts for word, _ in pre_tokenizer.pre_tokenize_str(text)})
    chars = sorted({c for word in words for c in word})
    tokens = [*SPECIAL_TOKENS, *chars, *(f"##{c}" for c in chars), *(w for w in words if len(w) > 1)]
    return {token: i for i, token in enumerate(tokens)}


def build_tiny_encoder(directory: Path, *, seed: int = 0) -> Path:
    """Save a WordPiece tokenizer of the toy texts with a random tiny BERT (hidden 32, 2 layers, 2 heads)."""
    tokenizer = BertTokenizerFast(vocab=toy_wordpiece_vocabulary(toy_vocabulary_texts()), do_lower_case=False,
                                  strip_accents=False)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, pad_token_id=tokenizer.pad_token_id,
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(seed)
    BertModel(config, add_pooling_layer=True).save_pretrained(directory)  # a 'pre-trained' encoder, no head
    tokenizer.save_pretrained(directory)
    return directory


@contextmanager
def single_torch_thread() -> Iterator[None]:
    """Run torch on one thread: on a shared two-core machine, two OpenMP threads spin against other
    processes and a tiny BERT step takes 40 times longer."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
