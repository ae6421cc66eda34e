"""Entities and the first-verb-phrase cut over real ``stanza.Document`` objects.

The Documents are read from CoNLL-U files we wrote (tests/conllu), the format a Stanza
Pipeline's output is written in, so the same functions run on a real Pipeline's output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stanza import Document
from stanza.utils.conll import CoNLL

from arastance.config.nlp import NlpSettings
from tasks.claim_analysis import analyzer, analyze_many
from tasks.claim_analysis.analysis import Entity
from tasks.claim_analysis.stanza_doc import analysis_from_document, document_entities, first_verb_phrase

from helpers_claim_analysis import conllu_doc, fake_models


@pytest.mark.parametrize(
    ("name", "phrase", "reason"),
    [
        ("cut_at_conj.conllu", "أعلنت وزارة الصحة إغلاق المدارس في دبي", "conj"),
        ("cut_at_parataxis.conllu", "الحكومة المصرية تنفي رفع أسعار الوقود", "parataxis"),
        ("cut_at_advcl.conllu", "قال الشيخ محمد بن راشد إن دبي ستستضيف المعرض", "advcl"),
        ("cut_at_acl.conllu", "نشرت صحيفة الأهرام صورة بالرياض", "acl"),
        ("no_verb.conllu", "وفاة الفنان عادل إمام في القاهرة", "conj"),
        ("no_cut.conllu", "يستقيل رئيس الوزراء اللبناني غدا", "none"),
        ("two_sentences.conllu", "بعد اجتماع طويل، أعلن الوزير استقالته", "sentence_end"),
    ],
)
def test_first_verb_phrase(name: str, phrase: str, reason: str) -> None:
    assert first_verb_phrase(conllu_doc(name)) == (phrase, reason)


@pytest.mark.parametrize(
    ("name", "entities"),
    [
        ("cut_at_conj.conllu", [Entity("وزارة الصحة", "ORG"), Entity("دبي", "LOC")]),  # BIOES
        ("cut_at_advcl.conllu", [Entity("محمد بن راشد", "PER"), Entity("دبي", "LOC")]),  # BIO
        ("cut_at_acl.conllu", [Entity("الأهرام", "ORG"), Entity("الرياض", "LOC")]),  # ب split off
        ("no_verb.conllu", [Entity("عادل إمام", "PER"), Entity("القاهرة", "LOC")]),
        ("cut_at_parataxis.conllu", []),  # no NER tags at all
    ],
)
def test_document_entities(name: str, entities: list[Entity]) -> None:
    assert list(document_entities(conllu_doc(name))) == entities


def test_entities_set_on_the_tokens_of_a_document() -> None:
    # As a Pipeline's NER processor does: tags on the tokens, then the spans built from them.
    doc = conllu_doc("no_cut.conllu")
    for token, tag in zip(doc.sentences[0].tokens, ["O", "B-ORG", "I-ORG", "E-ORG", "O"]):
        token.ner = tag
    doc.build_ents()
    assert document_entities(doc) == (Entity("رئيس الوزراء اللبناني", "ORG"),)


def test_the_cut_ignores_a_clause_branch_before_the_verb() -> None:
    # A conj attached before the first verb is part of "every token before it".
    doc = CoNLL.conll2doc(input_str=(
        "1\tالمعلمون\tمعلم\tNOUN\t_\t_\t5\tnsubj\t_\t_\n"
        "2-3\tوالأطباء\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "2\tو\tو\tCCONJ\t_\t_\t3\tcc\t_\t_\n"
        "3\tالأطباء\tطبيب\tNOUN\t_\t_\t1\tconj\t_\t_\n"
        "4\tجميعا\tجميع\tADV\t_\t_\t1\tadvmod\t_\t_\n"
        "5\tيضربون\tأضرب\tVERB\t_\t_\t0\troot\t_\t_\n"
        "6\tغدا\tغدا\tADV\t_\t_\t5\tadvmod\t_\t_\n"
    ))
    assert first_verb_phrase(doc) == ("المعلمون والأطباء جميعا يضربون غدا", "none")


def test_analysis_from_document_records_stanza() -> None:
    text = "أعلنت وزارة الصحة إغلاق المدارس في دبي وقررت تأجيل الامتحانات"
    result = analysis_from_document(text, conllu_doc("cut_at_conj.conllu"))
    assert result.analyzer == "stanza"
    assert result.text == text
    assert result.verb_phrase == "أعلنت وزارة الصحة إغلاق المدارس في دبي"
    assert result.was_cut and result.cut_reason == "conj"
    assert result.entity_texts() == ["وزارة الصحة", "دبي"]


def test_an_empty_document_keeps_the_whole_claim() -> None:
    result = analysis_from_document("نص", Document([]))
    assert (result.verb_phrase, result.cut_reason, result.entities) == ("نص", "none", ())


@pytest.mark.parametrize(("batch", "calls_expected"), [(64, 1), (1, 2)])
def test_analyze_many_reads_the_pipeline_output_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int, calls_expected: int
) -> None:
    # No Arabic models can be installed here, so the loaded Pipeline is stood in for by one that
    # returns the Documents a real one would (our CoNLL-U parses of the same claims); everything
    # around it (model detection, batching, post-processing) is the real code.
    parsed = {
        "أعلنت وزارة الصحة إغلاق المدارس في دبي وقررت تأجيل الامتحانات": conllu_doc("cut_at_conj.conllu"),
        "وفاة الفنان عادل إمام في القاهرة، والأسرة في حالة صدمة": conllu_doc("no_verb.conllu"),
    }
    calls: list[list[str]] = []

    def pipeline(docs: list[Document]) -> list[Document]:
        calls.append([d.text for d in docs])
        return [parsed[d.text] for d in docs]

    monkeypatch.setattr(analyzer, "load_pipeline", lambda model_dir, use_gpu: pipeline)
    monkeypatch.setattr(analyzer, "STANZA_BATCH", batch)
    settings = NlpSettings(stanza_dir=fake_models(tmp_path / "models"))
    results = analyze_many(list(parsed), settings)
    assert len(calls) == calls_expected
    assert [text for call in calls for text in call] == list(parsed)
    assert [r.analyzer for r in results] == ["stanza", "stanza"]
    assert [r.verb_phrase for r in results] == [
        "أعلنت وزارة الصحة إغلاق المدارس في دبي",
        "وفاة الفنان عادل إمام في القاهرة",
    ]
    assert results[1].entity_texts() == ["عادل إمام", "القاهرة"]
