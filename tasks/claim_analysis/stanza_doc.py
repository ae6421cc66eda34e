"""Entities and the first-verb-phrase cut, read from an annotated ``stanza.Document``.

These functions only read a Document (UD words with upos/head/deprel, tokens with BIOES or BIO
NER tags), so they run the same on the output of a real Stanza Pipeline and on a Document read
from CoNLL-U text with ``stanza.utils.conll.CoNLL.conll2doc`` (NER given as ``ner=B-LOC`` in
the MISC column), which is how they are tested without the models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arastance.base.arabic import strip_diacritics
from tasks.claim_analysis.analysis import ClaimAnalysis, Entity
from tasks.claim_analysis.tokens import is_separator, stem_surface, trim_phrase

if TYPE_CHECKING:  # stanza pulls in torch: import it only where a Document is really built
    from stanza import Document

# Dependency relations that open a new clause after the first verb: the method keeps the claim
# up to its first verb phrase, so these branches (and everything after them) are cut.
CUT_RELATIONS = frozenset({"conj", "parataxis", "advcl", "acl"})
# Function words that Arabic writes as proclitics (و، ف، ب، ل، ك) and that Stanza's MWT step
# splits off a token; they are not part of an entity's name.
_PROCLITIC_UPOS = frozenset({"CCONJ", "SCONJ", "ADP", "PART"})


@dataclass(frozen=True)
class _Position:
    """A word of the document with its linear index over all sentences."""

    index: int
    sentence: int
    word: Any


def _base_relation(deprel: str | None) -> str:
    """``acl:relcl`` -> ``acl``: UD sub-types cut like their base relation."""
    return (deprel or "").split(":", 1)[0]


def _positions(doc: Document) -> list[_Position]:
    out: list[_Position] = []
    for s_idx, sentence in enumerate(doc.sentences):
        for word in sentence.words:
            out.append(_Position(len(out), s_idx, word))
    return out


def _first_head(positions: list[_Position]) -> _Position | None:
    """The first verb; for a verbless (nominal) claim the root of its first sentence."""
    for pos in positions:
        if pos.word.upos == "VERB":
            return pos
    first_sentence = [p for p in positions if p.sentence == 0]
    for pos in first_sentence:
        if pos.word.head == 0:
            return pos
    return first_sentence[0] if first_sentence else None


def _pruned_subtree(sentence_words: list[Any], head_id: int) -> tuple[set[int], dict[int, str]]:
    """Word ids in the head's subtree without the clause branches that follow the head.

    Returns the kept ids and, for every id inside a cut branch, the relation that cut it.
    """
    children: dict[int, list[Any]] = {}
    for word in sentence_words:
        children.setdefault(word.head, []).append(word)
    kept: set[int] = set()
    cut: dict[int, str] = {}

    def mark_cut(word: Any, relation: str) -> None:
        stack = [word]
        while stack:
            w = stack.pop()
            cut[w.id] = relation
            stack.extend(children.get(w.id, []))

    stack = [head_id]
    while stack:
        wid = stack.pop()
        kept.add(wid)
        for child in children.get(wid, []):
            relation = _base_relation(child.deprel)
            if relation in CUT_RELATIONS and child.id > head_id:
                mark_cut(child, relation)
            else:
                stack.append(child.id)
    return kept, cut


def _stop(positions: list[_Position], head: _Position, doc: Document) -> tuple[int, str]:
    """Linear index of the first word after the verb phrase, and why the phrase ends there."""
    sentence_words = doc.sentences[head.sentence].words
    kept, cut = _pruned_subtree(sentence_words, head.word.id)
    for pos in positions[head.index + 1 :]:
        if pos.sentence != head.sentence:
            return pos.index, "sentence_end"
        if pos.word.id not in kept:
            return pos.index, cut.get(pos.word.id, "clause_end")
    return len(positions), "none"


def _token_text(tokens: list[Any]) -> str:
    return "".join(t.text + (t.spaces_after or "") for t in tokens).strip()


def first_verb_phrase(doc: Document) -> tuple[str, str]:
    """The claim up to the end of its first verb phrase, and the reason it was cut there.

    Kept: every token before the first verb, the verb, and its dependents, except branches
    attached by ``conj``, ``parataxis``, ``advcl`` or ``acl`` (at any depth) that follow the
    verb; the phrase ends at the first word after the verb that is not kept, so a long claim
    that goes on after a comma, a و-coordinated clause or a relative clause is cut there. A
    multi-word token (e.g. و+أعلن) is kept only when all its words are. What the cut leaves
    dangling goes (a conjunction, a separator, a quotation mark or bracket left open:
    :func:`~tasks.claim_analysis.tokens.trim_phrase`); a closing mark whose opener is kept stays.
    """
    positions = _positions(doc)
    head = _first_head(positions)
    if head is None:
        return "", "none"
    stop, reason = _stop(positions, head, doc)
    linear = {(p.sentence, p.word.id): p.index for p in positions}
    tokens: list[Any] = []
    for s_idx, sentence in enumerate(doc.sentences):
        for token in sentence.tokens:
            if all(linear[(s_idx, w.id)] < stop for w in token.words):
                tokens.append(token)
    while tokens and _dangles(tokens[-1]):
        tokens.pop()
    return trim_phrase(_token_text(tokens)), reason


def _dangles(token: Any) -> bool:
    """A token that cannot end a verb phrase: a conjunction ("و", "ثم") or a separator ("،")."""
    upos = {w.upos for w in token.words}
    return upos == {"CCONJ"} or (upos == {"PUNCT"} and is_separator(token.text))


def _entity_text(tokens: list[Any]) -> str:
    """The span's text as written, without the proclitics (و، ب، ل ...) Stanza split off its first token.

    Only the proclitics' letters are cut from the token's surface: the words Stanza split it into
    are no written form ("لحكومتها" is ل + حكومة + ها; the entity reads "حكومتها").
    """
    first = tokens[0]
    words = list(first.words)
    k = 0
    while k < len(words) - 1 and words[k].upos in _PROCLITIC_UPOS:
        k += 1
    prefix = "".join(strip_diacritics(w.text) for w in words[:k])
    head_text = stem_surface(first.text, prefix, "".join(w.text for w in words[k:]))
    return (head_text + (first.spaces_after or "") + _token_text(tokens[1:])).strip()


def document_entities(doc: Document) -> tuple[Entity, ...]:
    """Named entities in document order, from the Pipeline's spans or the tokens' NER tags."""
    entities: list[Entity] = []
    for sentence in doc.sentences:
        if not any(t.ner for t in sentence.tokens):
            continue
        spans = sentence.ents or sentence.build_ents()
        for span in spans:
            text = _entity_text(list(span.tokens))
            if text:
                entities.append(Entity(text=text, label=span.type))
    return tuple(entities)


def analysis_from_document(text: str, doc: Document) -> ClaimAnalysis:
    """The :class:`ClaimAnalysis` of ``text`` from its annotated Document."""
    verb_phrase, reason = first_verb_phrase(doc)
    if not verb_phrase or reason == "none":
        verb_phrase, reason = text, "none"  # nothing cut: the claim itself, so its queries merge
    return ClaimAnalysis(
        text=text,
        entities=document_entities(doc),
        verb_phrase=verb_phrase,
        cut_reason=reason,
        analyzer="stanza",
    )
