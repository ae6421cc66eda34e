"""The rule-based analyzer used when Stanza's Arabic models are not installed.

Entities come from the gazetteers (countries, cities, organisations, public figures), from
organisation-name patterns (a head noun such as وزارة، هيئة، جامعة with its construct chain:
وزارة الصحة والسكان، جامعة زايد، الاتحاد السعودي لكرة القدم) and from person-name patterns: a
title (الرئيس، الأمير، الشيخ، الوزير ...) followed by a name, and compound names (عبد الله،
أبو بكر، محمد بن سلمان; after a title also the listed two-word given names: هبة الله، نور الدين).
The first verb phrase is approximated by cutting the claim at the first clause boundary: a comma (، or ,), a semicolon (؛ ;), a
sentence end (. ؟ ? !), the proclitic و when it opens a new clause (و + a verb or a clause
particle: "وأعلن", "وقد", "وهو"; never a word that merely begins with و such as وزير) or a
relative pronoun (الذي، التي، الذين ...). The method cuts the claim after its first verb
phrase, so once a verb has been read, و + any present-tense verb opens the next clause even when
the verb is not listed ("... تقرر إلغاء الدعم وتستبدله بمبالغ نقدية"): a word shaped like a
present-tense verb (ي/ت/ست/سي + a stem, an object pronoun allowed), not a verbal noun of the
تفعيل or تفاعل shapes (وتعيين، وتعاون), no noun written with ة or plural with its possessive
(وتغطية، وتعويضاتهم: the normal form reads ة as the object pronoun ه) and no listed name (يوسف، ياسر
are given names); so does و + a definite noun that such a verb follows at once, the subject of the
next clause, with or without a comma ("... في الرياض والحكومة تقرر حظر التجول"; not "إغلاق المدارس
والجامعات في الرياض"). A comma before the claim's first verb is passed over (an apposition:
"محمد صلاح، لاعب نادي ليفربول، يعلن ..."), so the cut keeps the verb
(in a claim with no verb of a verb's shape, a past-tense verb, which has no shape of its own,
is read in the first word after the apposition's second comma that cannot be a noun: "...، اعتزل
..."); so is a boundary that would
leave fewer than ``min_cut_words`` words. A cut inside a quotation or brackets drops the mark
left open.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from arastance.base.arabic import strip_diacritics
from tasks.claim_analysis.analysis import ClaimAnalysis, Entity
from tasks.claim_analysis.gazetteer import Gazetteer, GazetteerError, default_gazetteer, load_list, word_set
from tasks.claim_analysis.tokens import Token, proclitic_readings, stem_surface, trim_phrase, word_tokens

# Punctuation that ends a clause, and the reason recorded for a cut there. A Latin comma or
# period between two letters or digits (1,000 / 3.5 / example.com) is no boundary.
_PUNCTUATION_REASONS = {"،": "comma", ",": "comma", "؛": "semicolon", ";": "semicolon",
                        ".": "sentence_end", "؟": "sentence_end", "?": "sentence_end",
                        "!": "sentence_end", "…": "sentence_end"}
_PUNCTUATION = re.compile("[" + re.escape("".join(_PUNCTUATION_REASONS)) + "]")
# Names are at most this many words (محمد بن سلمان بن عبد العزيز).
_MAX_NAME_TOKENS = 5
# Third-person pronouns a verb or a noun may carry (وتستبدله، استقالته، قرارها).
_PRONOUN_SUFFIXES = ("هما", "هم", "هن", "ها", "ه")
# Object pronouns a present-tense verb may carry (وتستبدله، ويطالبهم).
_OBJECT_SUFFIXES = (*_PRONOUN_SUFFIXES, "كم", "نا")
# والد (father), والدة (mother) with their suffixes, normal form: و + الد is no و + the article.
_PARENT = re.compile("والد(?:ت|ي|ين|ان)?(?:" + "|".join((*_OBJECT_SUFFIXES, "ي")) + ")?")
# The broken plural تفاعيل (تقارير، تصاميم), shaped like a present-tense verb; matched once a pronoun
# suffix is dropped (تقاريرهم -> تقارير، while the verb تحاكيه leaves تحاكي).
_BROKEN_PLURAL = re.compile("ت[^ا]ا[^ا]ي[^اي]")
# Tanween fath, the mark of an indefinite accusative (قرارًا).
_TANWEEN_FATH = "\u064b"
# Words shaped like a present-tense verb that are nouns (يوم، يد) or months.
_NOT_VERBS = frozenset({"يوم", "يومي", "يوميا", "يد", "يدي", "يمين", "يسار", "يناير", "يونيو", "يوليو",
                        "تموز", "تشرين", "ترليون", "تريليون", "تلفزيون", "تذاكر", "تجار", "تجاره"})
# Words that join a name to the next word of the name.
_NAME_LINKS = frozenset({"عبد", "ابو", "ابي", "ابا", "بن", "ابن", "بنت"})
_NAME_STARTERS = frozenset({"عبد", "ابو"})
# Words that join a name's words inside it, never first (محمد ولد الغزواني، لولا دا سيلفا).
_NAME_PARTICLES = frozenset({"ولد", "دا", "دي", "دو", "فون", "فان"})
# What follows a verb's subject and opens its clause (أكد الشيخ سلامة أن ...), normal form.
_CLAUSE_AFTER_SUBJECT = frozenset({"ان"})
# Prepositions (normal form) after which a name has ended (وفاة الفنانة نانسي عجرم في المستشفى).
_PREPOSITIONS = frozenset({"في", "من", "الي", "علي", "عن", "مع", "بعد", "قبل", "خلال", "منذ", "بسبب", "اثر"})
# Prepositions (normal form) that open a verbal noun's own complement (زيارة ... إلى ألمانيا، لقاء ... مع
# نظيره): no direct object came before them, so a definite word there ends the titled name.
_COMPLEMENT_PREPOSITIONS = frozenset({"الي", "مع"})
# Letters before a pronoun suffix that make a word after a verb + title + given name an object,
# not a family name: a verbal noun (أعلن الوزير خالد استقالته), longer than most family names
# written with ه for ة (محمد شحاته، محمود حماده).
_MIN_OBJECT_STEM_AFTER_NAME = 5


def _expand_verbs(name: str) -> frozenset[str]:
    """Inflected forms of the verbs in ``<name>.txt`` (normalised), future prefix included."""
    forms: set[str] = set()
    for entry in load_list(name):
        if len(entry.words) != 2:
            raise GazetteerError(f"{entry.file} line {entry.line}: expected 'perfect imperfect', got {entry.text!r}")
        perfect, imperfect = entry.words
        forms.update({perfect, perfect + "ت", perfect + "وا", perfect + "ا"})
        if perfect.endswith("ي"):  # defective: نفى -> نفت، نفوا
            forms.update({perfect[:-1] + "ت", perfect[:-1] + "وا"})
        stem = imperfect[1:]
        present = {p + stem for p in ("ي", "ت", "ن", "ا")}
        present |= {f + "ون" for f in present if f[0] in "يت"} | {f + "ان" for f in present if f[0] in "يت"}
        if imperfect.endswith("ي"):  # ينفي -> ينفون
            present |= {p + stem[:-1] + "ون" for p in ("ي", "ت")}
        forms |= present | {"س" + f for f in present}
    return frozenset(forms)


def _compound_names() -> frozenset[tuple[str, ...]]:
    """The two-word given names of ``compound_names.txt`` (هبة الله، نور الدين), normalised."""
    pairs: set[tuple[str, ...]] = set()
    for entry in load_list("compound_names"):
        if len(entry.words) != 2:
            raise GazetteerError(f"{entry.file} line {entry.line}: expected 'first second', got {entry.text!r}")
        pairs.add(entry.words)
    return frozenset(pairs)


@dataclass(frozen=True)
class Lexicon:
    """The word lists the rules need, loaded once."""

    gazetteer: Gazetteer
    verbs: frozenset[str]
    clause_starts: frozenset[str]
    relatives: frozenset[str]
    titles: tuple[tuple[str, ...], ...]
    given_names: frozenset[str]
    stopwords: frozenset[str]
    organisation_heads: frozenset[str]
    compound_names: frozenset[tuple[str, ...]]
    object_leads: frozenset[str]  # informing verbs and verbal nouns: see RuleAnalyzer._object_lead

    @classmethod
    @cache
    def default(cls) -> "Lexicon":
        informing = _expand_verbs("informing_verbs")
        verbs = _expand_verbs("verbs") | informing
        return cls(
            gazetteer=default_gazetteer(),
            verbs=verbs,
            clause_starts=verbs | word_set("clause_openers"),
            relatives=word_set("relative_pronouns"),
            titles=tuple(sorted({e.words for e in load_list("titles")}, key=lambda t: (-len(t), t))),
            given_names=word_set("given_names"),
            stopwords=word_set("stopwords") | word_set("clause_openers"),
            organisation_heads=word_set("organisation_heads"),
            compound_names=_compound_names(),
            object_leads=informing | word_set("verbal_nouns"),
        )


class RuleAnalyzer:
    """Entities and the clause cut of a claim, from word lists and punctuation only."""

    def __init__(self, lexicon: Lexicon | None = None, *, min_cut_words: int = 2) -> None:
        self.lexicon = lexicon or Lexicon.default()
        self.min_cut_words = min_cut_words
        heads = self.lexicon.organisation_heads
        self._organisation_words = heads | {"ال" + h for h in heads}
        self._name_words = _NAME_STARTERS | self.lexicon.given_names
        # Words with the article that are no family name: function, time and relative words, verbs
        # (التقى), organisation words (الوزارة) and the second words of compound names (الله، الدين).
        lex = self.lexicon
        self._not_family_names = (lex.stopwords | lex.clause_starts | lex.relatives | self._organisation_words
                                  | {second for _, second in lex.compound_names})
        self._titles_by_first: dict[str, list[tuple[str, ...]]] = {}
        for title in self.lexicon.titles:  # longest first, as the lexicon orders them
            self._titles_by_first.setdefault(title[0], []).append(title)

    def analyze(self, text: str) -> ClaimAnalysis:
        tokens = word_tokens(text)
        verb_phrase, reason = self.cut(text, tokens)
        return ClaimAnalysis(
            text=text,
            entities=tuple(self.entities(text, tokens)),
            verb_phrase=verb_phrase,
            cut_reason=reason,
            analyzer="rules",
        )

    # -- the clause cut --------------------------------------------------------------------
    def _opens_clause(self, tokens: Sequence[Token], i: int) -> str | None:
        """Why a clause starts at token ``i`` (``coordination``, ``relative_pronoun``), or None."""
        norm = tokens[i].norm
        if norm in self.lexicon.relatives or (norm[:1] in "وف" and norm[1:] in self.lexicon.relatives):
            return "relative_pronoun"
        if norm == "و":
            nxt = tokens[i + 1].norm if i + 1 < len(tokens) else ""
            return "coordination" if nxt in self.lexicon.clause_starts else None
        if norm.startswith("و") and len(norm) > 2 and norm[1:] in self.lexicon.clause_starts:
            return "coordination"
        if norm.startswith("و") \
                and (self._is_written_verb(tokens[i], norm[1:]) or self._opens_subject_clause(tokens, i)) \
                and self._verb_before(tokens, i):
            return "coordination"  # و + a verb, or + the subject of the next clause, once the first has begun
        return None

    def _opens_subject_clause(self, tokens: Sequence[Token], i: int) -> bool:
        """Whether token ``i`` is و + a definite noun that a verb follows at once: the subject of a new
        clause, comma or none ("... في الرياض والحكومة تقرر حظر التجول").

        A noun coordinated inside the phrase has no verb right after it ("إغلاق المدارس والجامعات في
        الرياض"، "التقى الرئيس والوزير"), nor one in the accusative, an adverb shaped like a verb
        (والجامعات تمهيدا لـ); the caller asks for a verb before, as a subject coordinated before the
        claim's verb is none ("وزير الصحة والسكان يعلن"). The article must be written as such: وإلغاء is
        a verbal noun, whose object may be shaped like a verb (وإلغاء تراخيص المحلات); and والد (father,
        mother: "أن والدته تتلقى العلاج") is no و + ال. A noun shaped like a verb is no verb (see
        :meth:`_is_written_verb`): a second object of a verb that takes two ("تمنح الأطباء والممرضين
        تعويضات مالية / تقاريرهم الطبية / تغطية صحية").
        """
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        return (
            nxt is not None
            and strip_diacritics(token.text).startswith("وال")
            and self._is_definite_noun(token.norm[1:])
            and not _PARENT.fullmatch(token.norm)
            and self._is_written_verb(nxt, nxt.norm)
            and not _is_accusative(nxt)
        )

    def _is_written_verb(self, token: Token, norm: str) -> bool:
        """Whether ``token``, of normal form ``norm`` once its proclitic is dropped, is a verb as written:
        a listed verb form (بدأت، مات), or a word of a present-tense verb's shape (:meth:`_is_present_verb`)
        that is no noun. The shape alone reads nouns as verbs with an object pronoun: a word written with
        a final ة (تغطية، تذكرة، تسوية), which the normal form folds into the pronoun ه (تغطيه), and a
        plural with or without a possessive (:func:`_is_plural_shaped`: تعويضاتهم، تقاريره)."""
        if _ends_in_taa_marbuta(token):
            return False
        return norm in self.lexicon.verbs or (self._is_present_verb(norm) and not _is_plural_shaped(norm))

    def _is_present_verb(self, norm: str) -> bool:
        """A word shaped like a present-tense verb (تفرض، يستبدلون، ستعلن), listed or not."""
        if norm in self.lexicon.verbs:
            return True
        if not norm.isalpha() or norm in _NOT_VERBS or norm in self.lexicon.given_names \
                or self.lexicon.gazetteer.contains(norm):
            return False  # a noun, or a listed name (يوسف، ياسر، تركي are shaped like verbs)
        stem = norm[1:] if norm[:1] == "س" and norm[1:2] in ("ي", "ت") else norm
        if stem[:1] not in ("ي", "ت"):
            return False
        stem = _drop_suffix(stem, ("ون", "ان", *_OBJECT_SUFFIXES))
        if not 4 <= len(stem) <= 7 or stem.endswith("ه"):
            return False  # too short for a verb, or a feminine noun (تجارة -> تجاره)
        verbal_noun = stem[0] == "ت" and len(stem) == 5 and (stem[3] == "ي" or stem[2] == "ا")
        return not verbal_noun  # تعيين، تقديم (تفعيل); تعاون، تبادل (تفاعل)

    def _verb_before(self, tokens: Sequence[Token], i: int) -> bool:
        """Whether a verb was read before token ``i``, so the first verb phrase has begun."""
        return any(self._is_present_verb(t.norm) for t in tokens[:i])

    def _is_verb(self, norm: str) -> bool:
        """A verb form, alone or after the proclitic و or ف ("وتعلن")."""
        return self._is_present_verb(norm) or (norm[:1] in "وف" and self._is_present_verb(norm[1:]))

    def cut(self, text: str, tokens: Sequence[Token]) -> tuple[str, str]:
        """The claim up to its first clause boundary, and the boundary's kind (``none`` if uncut).

        A comma before the claim's first verb is passed over: it sets off an apposition or a tag
        ("محمد صلاح، لاعب نادي ليفربول، يعلن ..."; "عاجل، ..."), and a cut there would leave the
        verb phrase without its verb. A semicolon or a sentence end still cuts there, as it closes
        a clause that needs no verb (a nominal sentence: "وفاة الفنان في مستشفى بالقاهرة؛ ...");
        so does a comma in a claim with no verb at all, and one followed by و / ف and a definite
        noun, or by و + a word that itself opens with و: a new clause ("...، والحكومة تعلن",
        "...، ووزير الداخلية يعلن").
        """
        first_verb = self._first_verb_start(text, tokens)
        boundaries: list[tuple[int, str]] = []
        for m in _PUNCTUATION.finditer(text):
            before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
            if m.group() in ",." and before.isalnum() and after.isalnum():
                continue  # inside a number (1,000 / 2.5) or a name (example.com)
            reason = _PUNCTUATION_REASONS[m.group()]
            if reason == "comma" and first_verb is not None and m.start() < first_verb \
                    and not _opens_conjoined_clause(text[m.end():]):
                continue  # an apposition or a tag before the verb, not the end of its phrase
            boundaries.append((m.start(), reason))
        for i in range(len(tokens)):
            reason = self._opens_clause(tokens, i)
            if reason:
                boundaries.append((tokens[i].start, reason))
        for offset, reason in sorted(boundaries):
            prefix = trim_phrase(text[:offset])
            if len(word_tokens(prefix)) >= self.min_cut_words:
                return prefix, reason
        return text.strip(), "none"

    def _first_verb_start(self, text: str, tokens: Sequence[Token]) -> int | None:
        """Where the claim's first verb starts, None when it has none.

        A verb is a word of a verb's shape (:meth:`_is_verb`) or, in a claim with none, since a
        past-tense verb has no shape of its own, the word after the second comma, which closes an
        apposition, when it cannot be a noun ("محمد صلاح، لاعب نادي ليفربول، اعتزل ..."): so the
        commas are passed over and the cut keeps that verb. A verb of a verb's shape anywhere wins
        over that guess, which would otherwise cut it off ("...، مساء الخميس، يقرر ...").
        """
        shaped = next((t.start for t in tokens if self._is_verb(t.norm)), None)
        if shaped is not None:
            return shaped
        commas = 0
        for k in range(1, len(tokens)):
            if _is_comma(text[tokens[k - 1].end : tokens[k].start]):
                commas += 1
                if commas == 2:
                    return tokens[k].start if self._may_be_past_verb(tokens[k]) else None
        return None

    def _may_be_past_verb(self, token: Token) -> bool:
        """An Arabic word that is no noun we can tell: no article (after a proclitic too: بالخطوة),
        no ة, no accusative ـا (مؤكدا), no participle (مفبرك، مريض: see :func:`_is_participle`),
        no function word, time word or month (stopwords.txt: مساء، مارس) or listed name."""
        norm, lex = token.norm, self.lexicon
        return (
            norm.isalpha()
            and not norm.isascii()
            and not any(stem.startswith("ال") for _, stem in proclitic_readings(norm))
            and not strip_diacritics(token.text).endswith("ة")
            and not _is_accusative(token)
            and not _is_participle(norm)
            and norm not in lex.stopwords
            and norm not in lex.relatives
            and norm not in lex.given_names
            and not lex.gazetteer.contains(norm)
        )

    # -- entities ----------------------------------------------------------------------------
    def _title_at(self, tokens: Sequence[Token], i: int) -> int:
        """Length (in tokens) of a title starting at ``i`` (proclitics allowed), 0 if none."""
        for _, stem in proclitic_readings(tokens[i].norm):
            for title in self._titles_by_first.get(stem, ()):
                n = len(title)
                if i + n <= len(tokens) and all(tokens[i + k].norm == title[k] for k in range(1, n)):
                    return n
        return 0

    def _is_nisba(self, norm: str) -> bool:
        """A definite adjective of origin (الأمريكي، المصرية) or a nisba family name (السيسي)."""
        return norm.startswith("ال") and len(norm) > 4 and (norm.endswith("ي") or norm.endswith("يه"))

    def _is_free_word(self, norm: str) -> bool:
        """A word that may be an unlisted name: not a function word, listed verb, article noun or place."""
        lex = self.lexicon
        return (
            len(norm) >= 2
            and norm.isalpha()
            and not norm.startswith("ال")
            and norm not in lex.stopwords
            and norm not in lex.clause_starts
            and norm not in lex.relatives
            and not lex.gazetteer.contains(norm)
        )

    def _is_unlisted_name(self, tokens: Sequence[Token], j: int, *, after_verb: bool, foreign: bool, units: int) -> bool:
        """Whether the unlisted word ``tokens[j]`` after a title may be (part of) the person's name.

        It must be a free word (:meth:`_is_free_word`). One shaped like a present-tense verb is
        the claim's verb (الرئيس يتوعد المعارضة) unless a verb follows it, at once or after one
        more word of the name (المدرب تيتي يعلن، المدرب يورغن كلوب يعلن), or the title follows a
        verb (``after_verb``: قال المدرب تيتي ...), where a subject's name comes. A word shaped
        like the claim's object is no name (:func:`_is_object_shaped`). A name goes on with no
        و + word (الأمير سلطان وفهد: two people). Right after a man's title (its last word, or its
        adjective of origin, not in ة) an unlisted word in ة that no more of a name follows is the
        object of a verb we do not list (قدم الملك هدية للمدرسة), not a name; one that a name goes
        on after is one (الشيخ سلامة عبد القوي، النائب عبلة كحلاوي تطالب).
        """
        token, norm = tokens[j], tokens[j].norm
        if not self._is_free_word(norm) or _is_object_shaped(token, after_verb=after_verb, foreign=foreign, units=units):
            return False
        if units == 0 and _ends_in_taa_marbuta(token) and not _ends_in_taa_marbuta(tokens[j - 1]) \
                and not (self._may_continue_name(token) and self._name_goes_on(tokens, j + 1, after_verb=after_verb)):
            return False  # a man's title, then a feminine noun and no more name: the object (وجه الأمير رسالة إلى)
        if not after_verb and self._is_present_verb(norm) and not self._verb_follows(tokens, j):
            return False
        return not (units and norm[:1] == "و" and len(norm) > 2)

    def _verb_at(self, tokens: Sequence[Token], k: int) -> bool:
        """Whether token ``k`` exists and is a verb (a name before it is the claim's subject)."""
        return k < len(tokens) and self._is_verb(tokens[k].norm)

    def _verb_follows(self, tokens: Sequence[Token], j: int) -> bool:
        """Whether a verb comes right after ``tokens[j]`` or after one more word that may be a name's."""
        for k in range(j + 1, min(j + 3, len(tokens))):
            if self._verb_at(tokens, k):
                return True
            if not self._may_continue_name(tokens[k]):
                return False
        return False

    def _may_continue_name(self, token: Token) -> bool:
        """A word that may be a name's: no function word, listed verb or article noun (المعارضة،
        بالسجن); a name written with a hamza before its ل is none (ألكانتارا)."""
        lex, norm = self.lexicon, token.norm
        definite = not strip_diacritics(token.text).startswith(("أل", "إل", "آل")) and any(
            stem.startswith("ال") for _, stem in proclitic_readings(norm)
        )
        return norm.isalpha() and not definite and norm not in lex.stopwords | lex.clause_starts | lex.relatives

    def _name_reading(self, token: Token) -> tuple[str, str]:
        """(proclitics, stem) of a name's first word: "وعبد" -> ("و", "عبد"); else ("", word)."""
        return next(((p, s) for p, s in proclitic_readings(token.norm) if s in self._name_words), ("", token.norm))

    def _name_length(
        self, tokens: Sequence[Token], i: int, *, after_title: bool, foreign: bool = False, after_verb: bool = False,
        object_lead: bool = False,
    ) -> int:
        """How many tokens from ``i`` form a person's name (0 when none starts there).

        A name is a sequence of given names (listed compounds too: هبة الله، نور الدين) and compounds
        (عبد/أبو/بن + word, also chained as in بن عبد العزيز), optionally ending in a family name: a
        nisba (السيسي), ال + a given name (اليوسف) or another word with the article where its place
        makes it one (:meth:`_is_article_family_name`: رانية المشاط تعلن). After a title, one
        unlisted word is accepted as the name (ترامب), or as the family name after a given name (محمد مرسي) or, when the title had an adjective of origin
        (``foreign``: المدرب البرتغالي باولو سوزا) or before a verb (الفنانة يمنى شري تعلن), after an
        unlisted first name; ولد and particles such as دا go on inside a name; never a word
        shaped like an object (:meth:`_is_unlisted_name`; ``after_verb``: the title follows a
        verb, as in a verb-first claim; ``object_lead``: it follows a word whose object may come
        after the name, see :meth:`_object_lead`).
        """
        lex = self.lexicon
        j, units, given_first = i, 0, False
        while j < len(tokens) and j - i < _MAX_NAME_TOKENS:
            norm = self._name_reading(tokens[j])[1] if j == i else tokens[j].norm
            if j + 1 < len(tokens) and self._joins_name(tokens[j + 1], norm, units=units, after_title=after_title):
                j += 2
                if tokens[j - 1].norm in _NAME_STARTERS and j < len(tokens):  # بن عبد العزيز
                    j += 1
            elif given := self._given_name_length(tokens, j, norm):
                given_first = given_first or units == 0
                j += given
            elif units and (self._is_nisba(norm) or (norm.startswith("ال") and norm[2:] in lex.given_names)
                            or self._is_article_family_name(tokens, j, after_verb=after_verb, given_first=given_first,
                                                            object_lead=object_lead)):
                return j + 1 - i  # a family name (السيسي، اليوسف، المشاط) ends the name
            elif (after_title
                  and (units == 0 or (units == 1 and (given_first or foreign or self._verb_at(tokens, j + 1)
                                                      or (not after_verb and self._family_name_ends_claim(tokens, j)))))
                  and self._is_unlisted_name(tokens, j, after_verb=after_verb, foreign=foreign, units=units)):
                j += 1
                if units:
                    return j - i  # an unlisted family name ends the name
            else:
                break
            units += 1
        return min(j, len(tokens)) - i

    def _given_name_length(self, tokens: Sequence[Token], j: int, norm: str) -> int:
        """Tokens of the given name at ``j`` read as ``norm``: 2 for a listed compound (هبة الله، نصر الله،
        نور الدين), 1 for a listed given name, 0 for none."""
        if j + 1 < len(tokens) and (norm, tokens[j + 1].norm) in self.lexicon.compound_names:
            return 2
        return int(norm in self.lexicon.given_names)

    def _is_article_family_name(
        self, tokens: Sequence[Token], j: int, *, after_verb: bool, given_first: bool, object_lead: bool = False
    ) -> bool:
        """Whether the word with the article at ``tokens[j]``, after a name's first word, is its family name.

        No shape tells a family name (رانية المشاط، أحمد الطيب) from a definite object (استقبل الملك
        عبد الله الوفد), so only its place does: before أن / إن it ends a verb's subject (قالت الوزيرة
        رانية المشاط إن ...); where no verb came before the name (not ``after_verb``), before the
        claim's verb (الدكتور رانية المشاط تعلن) and, after a listed given name (``given_first``), at the
        claim's end or before a preposition (وفاة الفنان أحمد الطيب). After an ``object_lead`` (أبلغ،
        استقبال: :meth:`_object_lead`) it is that word's object anywhere but before إلى / مع, which open
        a verbal noun's complement (زيارة الوزيرة رانية المشاط إلى ألمانيا). A verb written with ال (التقى)
        or a hamza (ألغى), a sound plural (تكريم الوزير خالد المعلمين), a derived participle (المنتخب:
        :func:`_is_derived_participle`), a listed place and the words of ``_not_family_names`` (الخميس،
        الذي، الوزارة، الله) are none.
        """
        token = tokens[j]
        norm = token.norm
        if (not strip_diacritics(token.text).startswith("ال") or len(norm) <= 4 or not norm.isalpha()
                or norm in self._not_family_names or self.lexicon.gazetteer.contains(norm)
                or _is_definite_sound_plural(norm) or _is_derived_participle(norm[2:])):
            return False
        if object_lead and not (j + 1 < len(tokens) and tokens[j + 1].norm in _COMPLEMENT_PREPOSITIONS):
            return False
        if j + 1 < len(tokens) and tokens[j + 1].norm in _CLAUSE_AFTER_SUBJECT:
            return True
        return not after_verb and (self._verb_at(tokens, j + 1) or (given_first and _ends_phrase(tokens, j)))

    def _name_goes_on(self, tokens: Sequence[Token], k: int, *, after_verb: bool) -> bool:
        """Whether token ``k`` carries on a name begun before it: a link (بن، عبد، أبو), a given name, a
        family name in ال (السيسي، اليوسف), the الله of a compound given name (هبة الله), or أن after a verb's subject (أكد الشيخ سلامة أن).
        Where no verb came before the title, also the claim's verb, and a family name in ال or an unlisted
        word before it (رانية المشاط تعلن، عبلة كحلاوي تطالب); elsewhere an unlisted word there is the
        object's adjective or genitive (أعلن الوزير خطة جديدة، وجه الأمير رسالة شكر إلى)."""
        if k >= len(tokens):
            return False
        norm, lex = tokens[k].norm, self.lexicon
        written = strip_diacritics(tokens[k].text)  # a nisba as written: the normal form folds ئ (الطوارئ) into ي
        nisba = written.startswith("ال") and len(written) > 4 and written.endswith("ي")
        if (norm in _NAME_LINKS or norm in lex.given_names or nisba or norm in _CLAUSE_AFTER_SUBJECT
                or (norm.startswith("ال") and (norm[2:] in lex.given_names or norm == "الله"))):
            return True
        if after_verb:
            return False
        before_verb = self._verb_at(tokens, k + 1)
        return self._verb_at(tokens, k) or (norm.startswith("ال") and before_verb) or (
            before_verb and self._is_free_word(norm) and self._may_continue_name(tokens[k]) and not _is_accusative(tokens[k]))

    @staticmethod
    def _family_name_ends_claim(tokens: Sequence[Token], j: int) -> bool:
        """Whether the unlisted second word of a name, ``tokens[j]``, ends the claim or comes before a
        preposition (وفاة الفنانة نانسي عجرم، اعتقال الداعية فلان علان في القاهرة): there a family name
        stands, where no verb came before the title (the caller's part: in ``أقال الرئيس ترامب بولتون
        من منصبه`` it is the object). A participle (مريض، مصاب) is the claim's predicate, an accusative
        an adverb (الفنان ويجز حاليا في دبي)."""
        return _ends_phrase(tokens, j) and not _is_participle(tokens[j].norm) and not _is_accusative(tokens[j])  # حاليا، أخيرا

    def _joins_name(self, nxt: Token, norm: str, *, units: int, after_title: bool) -> bool:
        """Whether ``norm`` joins a name to the next word, ``nxt``: a link (بن، عبد، أبو) or,
        inside a name and before no function word, a particle (ولد، دا)."""
        if norm in _NAME_LINKS:
            return bool(units or after_title or norm in _NAME_STARTERS)
        return bool(units) and norm in _NAME_PARTICLES and nxt.norm not in self.lexicon.stopwords

    def _is_definite_noun(self, norm: str) -> bool:
        lex = self.lexicon
        return norm.startswith("ال") and len(norm) > 3 and norm not in lex.relatives and norm not in lex.stopwords

    def _is_chain_noun(self, norm: str) -> bool:
        """An indefinite Arabic word inside a construct chain (هيئة *تنظيم* الاتصالات)."""
        lex = self.lexicon
        return (
            norm.isalpha()
            and not norm.isascii()
            and not norm.startswith("ال")
            and norm not in lex.given_names
            and norm not in lex.stopwords
            and norm not in lex.clause_starts
            and norm not in lex.relatives
        )

    def _organisation_length(self, tokens: Sequence[Token], i: int) -> int:
        """Tokens from ``i`` that name an organisation by pattern (0 when none starts there).

        Either a head noun in construct state (وزارة، هيئة، جامعة ...), at most two indefinite
        nouns (هيئة تنظيم ...) and a genitive (see :meth:`_genitive_length`): "جامعة زايد"،
        "شركة Apple"، "مستشفى الملك فهد"; or a definite head with an adjective of origin
        (الاتحاد السعودي، البنك المركزي). Modifiers follow (see :meth:`_modifiers_length`).
        """
        lex = self.lexicon
        stems = {stem for _, stem in proclitic_readings(tokens[i].norm)}
        definite_head = any(s.startswith("ال") and s[2:] in lex.organisation_heads for s in stems)
        if not definite_head and not stems & lex.organisation_heads:
            return 0
        j = i + 1
        if definite_head:
            if j >= len(tokens) or not self._is_nisba(tokens[j].norm):
                return 0  # "الشركة" alone is no name
        else:
            while (j < len(tokens) and j - i <= 2 and self._is_chain_noun(tokens[j].norm)
                   and lex.gazetteer.match_at(tokens, j, proclitics=False) is None):
                j += 1  # indefinite nouns of the construct chain
            genitive = self._genitive_length(tokens, j) if j < len(tokens) else 0
            if not genitive:
                return 0
            j += genitive
        return j + self._modifiers_length(tokens, j, complement=definite_head) - i

    def _genitive_length(self, tokens: Sequence[Token], j: int) -> int:
        """A name (listed without proclitic, given, Latin) or a definite noun ending an org's chain.

        A title there brings its person's name along (مستشفى الملك فهد); a listed name with a
        preposition (بالقاهرة) is no genitive.
        """
        lex = self.lexicon
        norm = tokens[j].norm
        listed = lex.gazetteer.match_at(tokens, j, proclitics=False)
        if listed is not None:
            return listed.length
        if norm in lex.given_names or (norm.isascii() and norm.isalpha()):
            return 1
        if not self._is_definite_noun(norm):
            return 0
        title = self._title_at(tokens, j)
        if title and j + title < len(tokens):
            return title + self._name_length(tokens, j + title, after_title=True)
        return 1

    def _modifiers_length(self, tokens: Sequence[Token], j: int, *, complement: bool) -> int:
        """Adjectives of origin, one other definite adjective (العاملة), one و-coordinated noun
        (والسكان، ووقاية المجتمع) and, after a definite head, one ل-complement (لكرة القدم)."""
        start, coordinated, adjective = j, False, False
        while j < len(tokens):
            norm = tokens[j].norm
            nxt_definite = j + 1 < len(tokens) and self._is_definite_noun(tokens[j + 1].norm)
            if self._is_nisba(norm):
                j += 1
            elif not adjective and self._is_definite_noun(norm):
                adjective, j = True, j + 1  # وزارة القوى العاملة
            elif complement and norm.startswith("لل") and len(norm) > 4:
                complement, j = False, j + 1
            elif complement and norm.startswith("ل") and self._is_chain_noun(norm[1:]) and nxt_definite:
                complement, j = False, j + 2
            elif not coordinated and norm.startswith("و") and self._is_definite_noun(norm[1:]):
                coordinated, j = True, j + 1
            elif not coordinated and norm.startswith("و") and self._is_chain_noun(norm[1:]) and nxt_definite:
                coordinated, j = True, j + 2
            else:
                break
        return j - start

    def _span(self, text: str, tokens: Sequence[Token], start: int, n: int, names: frozenset[str], label: str) -> Entity:
        """The span as written, without a proclitic on its first word (وعبد الله -> عبد الله)."""
        first = tokens[start]
        prefix, stem = next(((p, s) for p, s in proclitic_readings(first.norm) if s in names), ("", first.norm))
        rest = text[first.end : tokens[start + n - 1].end]
        return Entity(text=stem_surface(first.text, prefix, stem) + rest, label=label)

    def entities(self, text: str, tokens: Sequence[Token]) -> list[Entity]:
        """Gazetteer entries, organisations and person names, left to right, never overlapping.

        Where a listed entry and the organisation pattern both start, the longer span wins
        ("وزارة الصحة والسكان" over the listed "وزارة الصحة").
        """
        found: list[Entity] = []
        gazetteer = self.lexicon.gazetteer
        i = 0
        while i < len(tokens):
            match = gazetteer.match_at(tokens, i)
            organisation = self._organisation_length(tokens, i)
            if organisation > (match.length if match else 0):
                found.append(self._span(text, tokens, i, organisation, self._organisation_words, "ORG"))
                i += organisation
                continue
            if match is not None:
                found.append(match.entity())
                i += match.length
                continue
            title = self._title_at(tokens, i)
            start = i + title
            while title and start < len(tokens) and start - i - title < 2 and self._is_nisba(tokens[start].norm):
                start += 1  # adjectives of the title: الرئيس الأمريكي ...
            if start >= len(tokens) or (title and gazetteer.match_at(tokens, start) is not None):
                i = max(start, i + 1)  # a listed name after the title is matched as such
                continue
            after_verb = i > 0 and self._is_verb(tokens[i - 1].norm)  # before the title, or the untitled name
            object_lead = i > 0 and self._object_lead(tokens[i - 1])
            n = self._name_length(tokens, start, after_title=bool(title), foreign=start > i + title,
                                  after_verb=after_verb, object_lead=object_lead)
            if n and self._is_person_start(tokens, start, title) and not (title and self._parted(text, tokens, start, n)):
                found.append(self._span(text, tokens, start, n, self._name_words, "PER"))
                i = start + n
            else:
                i += max(title, 1)
        return found

    def _object_lead(self, token: Token) -> bool:
        """Whether ``token``, before a title, takes an object after the titled name: a verb of informing,
        whose object comes before أن (أبلغ الرئيس محمد الوفد أن), or a verbal noun of meeting in the
        verb's place (استقبال الرئيس محمد الوفد), a proclitic allowed (واستقبال، ولقاء)."""
        return any(stem in self.lexicon.object_leads for _, stem in proclitic_readings(token.norm))

    def _parted(self, text: str, tokens: Sequence[Token], start: int, n: int) -> bool:
        """Whether punctuation parts a title from the name of ``n`` tokens at ``start``.

        Punctuation other than a comma always does. After a comma the name is an apposition
        ("قال الوزير، محمد معيط، إن ...") when a listed name starts it or a comma or a verb
        closes it ("الفنانة المصرية، ياسمين صبري، تعلن ..."); otherwise the word after the comma
        opens the next clause ("عمرو دياب، المطرب المصري، انسحب من الحفل").
        """
        gap = text[tokens[start - 1].end : tokens[start].start]
        if not _PUNCTUATION.search(gap):
            return False
        if not _is_comma(gap):
            return True
        end = start + n
        closed = end < len(tokens) and (
            _is_comma(text[tokens[end - 1].end : tokens[end].start]) or self._is_verb(tokens[end].norm)
        )
        return not (closed or self._name_reading(tokens[start])[1] in self._name_words)

    def _is_person_start(self, tokens: Sequence[Token], start: int, title: int) -> bool:
        """Without a title, only a compound (عبد الله، أبو بكر) or given name + بن starts a name."""
        if title:
            return True
        stem = self._name_reading(tokens[start])[1]
        has_link = start + 1 < len(tokens) and tokens[start + 1].norm in {"بن", "ابن"}
        return stem in _NAME_STARTERS or (stem in self.lexicon.given_names and has_link)


def _is_comma(gap: str) -> bool:
    """Whether the text between two words holds a comma (not the one inside 1,500)."""
    return "،" in gap or ("," in gap and gap != ",")


def _is_definite_sound_plural(norm: str) -> bool:
    """A word with the article shaped like a sound plural (المعلمين، المواطنون، الموظفات): a stem of
    four letters or more before ين / ون / ات, longer than family names such as الأمين، الحسين."""
    return len(norm) >= 8 and norm.endswith(("ين", "ون", "ات"))


def _is_derived_participle(stem: str) -> bool:
    """A word (without its article) of a derived verb's participle with its ت: مفتعل (منتخب، محتمل) or
    متفعل (متحدث) of five letters, or مستفعل (مستقيل) of six, an adjective where a family name
    would stand (الرئيس محمد المنتخب يؤدي اليمين). A hollow مفتعل (مختار) is a family name too."""
    five = len(stem) == 5 and "ت" in stem[1:3] and stem[3] != "ا"
    return stem[:1] == "م" and (five or (len(stem) == 6 and stem.startswith("مست")))


def _ends_phrase(tokens: Sequence[Token], j: int) -> bool:
    """Whether ``tokens[j]`` ends the claim or comes before a preposition, where a name may end."""
    return j + 1 == len(tokens) or tokens[j + 1].norm in _PREPOSITIONS


def _is_participle(norm: str) -> bool:
    """A word of a participle's shape (مفبرك، مزيف، مريض: م + three letters or more), which no
    past-tense verb has unless it ends in ت or وا (منعت، ماتوا)."""
    return norm[:1] == "م" and len(norm) >= 4 and not norm.endswith(("ت", "وا"))


def _is_object_shaped(token: Token, *, after_verb: bool, foreign: bool, units: int) -> bool:
    """Whether an unlisted word after a title (and ``units`` words of a name) is shaped like the
    claim's object rather than a name; a listed given name never gets here (حمادة، يسرا).

    A pronoun suffix (قدم الوزير استقالته; after a name's first word only on a verbal noun:
    خالد استقالته, not محمد شحاته، محمود حماده). After a verb (``after_verb``) also a plural
    (ينفي الوزير تصريحات) or an accusative (:func:`_is_accusative`; a bare final ا only when no
    adjective of origin came before, ``foreign``: قال المدرب البرتغالي باولو سوزا).
    """
    if _has_pronoun_suffix(token, _MIN_OBJECT_STEM_AFTER_NAME if units else 3):
        return True
    plural = len(token.norm) >= 6 and token.norm.endswith("ات")
    return after_verb and (plural or _is_accusative(token, bare=not foreign))


def _ends_in_taa_marbuta(token: Token) -> bool:
    """A word written with a final ة (رسالة، الأميرة), which a word's normal form folds into ه."""
    return strip_diacritics(token.text).endswith("ة")


def _is_plural_shaped(norm: str) -> bool:
    """Whether ``norm`` is a plural noun once a possessive is dropped, as a verb's object pronoun
    would be: one in ـات (تعويضات، تأشيراتهم) or of the broken plural تفاعيل (تقارير، تقاريرهن),
    where a verb is left with its stem (تستبدله -> تستبدل، تحاكيه -> تحاكي)."""
    stem = _drop_suffix(norm, _OBJECT_SUFFIXES)
    return stem.endswith("ات") or _BROKEN_PLURAL.fullmatch(stem) is not None


def _drop_suffix(norm: str, suffixes: Sequence[str]) -> str:
    """``norm`` without the first of ``suffixes`` it ends in, where four letters or more remain: a
    verb's ending or object pronoun (يرفضون، تستبدله), a noun's possessive (تعويضاتهم -> تعويضات)."""
    suffix = next((s for s in suffixes if norm.endswith(s) and len(norm) - len(s) >= 4), "")
    return norm[: len(norm) - len(suffix)]


def _has_pronoun_suffix(token: Token, min_stem: int) -> bool:
    """A noun with a third-person pronoun as written (استقالته، قرارها), at least ``min_stem``
    letters before it; ة is no pronoun (هالة), nor ـيه (نزيه، وجيه)."""
    surface = strip_diacritics(token.text)
    return not surface.endswith("يه") and any(
        surface.endswith(s) and len(surface) - len(s) >= min_stem for s in _PRONOUN_SUFFIXES
    )


def _is_accusative(token: Token, *, bare: bool = True) -> bool:
    """An indefinite accusative: tanween fath (قرارًا) or, if ``bare``, a final ا as it is usually
    written (صورا، قرارا); not ـيا, which ends names (سونيا، ماريا)."""
    surface = strip_diacritics(token.text)
    bare_alef = bare and len(surface) >= 4 and surface.endswith("ا") and not surface.endswith("يا")
    return _TANWEEN_FATH in token.text or bare_alef


def _opens_conjoined_clause(rest: str) -> bool:
    """Whether the text after a comma opens with و / ف joining a new clause: and + a definite noun
    ("والحكومة"), or و + a word that itself opens with و ("ووزير"). A word that merely begins with
    و ("وزير الصحة") is no conjunction, so an apposition stays one."""
    words = word_tokens(rest)
    if not words:
        return False
    first = words[0].norm
    return first[:1] in "وف" and (first[1:].startswith("ال") or first[1:2] == "و") and len(first) > 4


def has_verb(text: str) -> bool:
    """Whether ``text`` has a listed verb form or a word shaped like a present-tense verb, alone or
    after the proclitic و or ف ("وتعلن")."""
    return any(_default_analyzer()._is_verb(t.norm) for t in word_tokens(text))


@cache
def _default_analyzer() -> RuleAnalyzer:
    return RuleAnalyzer()
