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


_CLOSING_MARKS = {
    # nothing cut: the claim keeps its closing parenthesis, so its verb-phrase queries merge with the claim's
    "الحكومة تعلن إغلاق المدارس (فيديو)": (
        "1\tالحكومة\tحكومة\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
        "2\tتعلن\tأعلن\tVERB\t_\t_\t0\troot\t_\t_\n"
        "3\tإغلاق\tإغلاق\tNOUN\t_\t_\t2\tobj\t_\t_\n"
        "4\tالمدارس\tمدرسة\tNOUN\t_\t_\t3\tnmod\t_\t_\n"
        "5\t(\t(\tPUNCT\t_\t_\t6\tpunct\t_\tSpaceAfter=No\n"
        "6\tفيديو\tفيديو\tNOUN\t_\t_\t2\tdep\t_\tSpaceAfter=No\n"
        "7\t)\t)\tPUNCT\t_\t_\t6\tpunct\t_\t_\n"
    ),
    # ... and its closing quote
    'وزير المالية يعلن "لا زيادة"': (
        "1\tوزير\tوزير\tNOUN\t_\t_\t3\tnsubj\t_\t_\n"
        "2\tالمالية\tمالية\tNOUN\t_\t_\t1\tnmod\t_\t_\n"
        "3\tيعلن\tأعلن\tVERB\t_\t_\t0\troot\t_\t_\n"
        '4\t"\t"\tPUNCT\t_\t_\t5\tpunct\t_\tSpaceAfter=No\n'
        "5\tلا\tلا\tPART\t_\t_\t3\tccomp\t_\t_\n"
        "6\tزيادة\tزيادة\tNOUN\t_\t_\t5\tnsubj\t_\tSpaceAfter=No\n"
        '7\t"\t"\tPUNCT\t_\t_\t5\tpunct\t_\t_\n'
    ),
}


@pytest.mark.parametrize("text", list(_CLOSING_MARKS))
def test_an_uncut_claim_keeps_its_closing_marks(text: str) -> None:
    doc = CoNLL.conll2doc(input_str=_CLOSING_MARKS[text])
    assert first_verb_phrase(doc) == (text, "none")
    result = analysis_from_document(text, doc)
    assert (result.verb_phrase, result.cut_reason, result.was_cut) == (text, "none", False)


def test_a_cut_inside_a_quotation_leaves_no_quote_open() -> None:
    doc = CoNLL.conll2doc(input_str=(
        "1\tالوزير\tوزير\tNOUN\t_\t_\t2\tnsubj\t_\t_\n"
        "2\tيعلن\tأعلن\tVERB\t_\t_\t0\troot\t_\t_\n"
        '3\t"\t"\tPUNCT\t_\t_\t4\tpunct\t_\tSpaceAfter=No\n'
        "4\tسنرفع\tرفع\tVERB\t_\t_\t2\tccomp\t_\t_\n"
        "5\tالأسعار\tسعر\tNOUN\t_\t_\t4\tobj\t_\tSpaceAfter=No\n"
        "6\t،\t،\tPUNCT\t_\t_\t9\tpunct\t_\t_\n"
        "7-8\tونلغي\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
        "7\tو\tو\tCCONJ\t_\t_\t8\tcc\t_\t_\n"
        "8\tنلغي\tألغى\tVERB\t_\t_\t4\tconj\t_\t_\n"
        "9\tالدعم\tدعم\tNOUN\t_\t_\t8\tobj\t_\tSpaceAfter=No\n"
        '10\t"\t"\tPUNCT\t_\t_\t8\tpunct\t_\t_\n'
    ))
    assert first_verb_phrase(doc) == ("الوزير يعلن سنرفع الأسعار", "conj")


@pytest.mark.parametrize(
    ("token", "words", "entity"),
    [
        # the token's written form, not Stanza's words (حكومة + ها is no word): only ل is cut
        ("لحكومتها", [("ل", "ADP"), ("حكومة", "NOUN"), ("ها", "PRON")], "حكومتها الجديدة"),
        # ل+ال written لل gets the article's alef back
        ("للحكومة", [("ل", "ADP"), ("الحكومة", "NOUN")], "الحكومة الجديدة"),
        ("وبالحكومة", [("و", "CCONJ"), ("ب", "ADP"), ("الحكومة", "NOUN")], "الحكومة الجديدة"),
    ],
)
def test_an_entity_reads_as_written(token: str, words: list[tuple[str, str]], entity: str) -> None:
    n = len(words)
    lines = [f"2-{n + 1}\t{token}\t_\t_\t_\t_\t_\t_\t_\tner=B-ORG"]
    lines += [f"{k + 2}\t{w}\t{w}\t{upos}\t_\t_\t1\tdep\t_\t_" for k, (w, upos) in enumerate(words)]
    doc = CoNLL.conll2doc(input_str="1\tأعلن\tأعلن\tVERB\t_\t_\t0\troot\t_\t_\n" + "\n".join(lines)
                          + f"\n{n + 2}\tالجديدة\tجديد\tADJ\t_\t_\t{n + 1}\tamod\t_\tner=E-ORG\n")
    assert document_entities(doc) == (Entity(entity, "ORG"),)
