"""From a fact-check post to the claim it debunks.

Fact-check sites publish false claims wrapped in their verdict: "لا صحة لما يتم تداوله حول
إغلاق المدارس", "حقيقة وفاة الفنان ...", "شائعة: ...". The stance dataset needs the claim itself,
so the framing is stripped. What remains may be a bare noun phrase ("وفاة الفنان ..."): kept as
the claim statement by default, or, with ``noun_phrases="review"`` (the setting
``crawl.noun_phrase_claims``, and the paper preset), sent to review so that a person states it
as a claim, as the AraStance annotators did. The phrase patterns are
configuration (``tasks/debunk_patterns.toml``), not code, so a new site wording needs no release.

Posts with no claim text, or whose claim is a picture or a video, are excluded with a reason
(never deleted); claims the rules could not turn into a clean statement go to a review queue
where a manual override (``claim_overrides``) always wins.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from arastance.base.arabic import CHARACTER_FOLDS, arabic_ratio, normalize, strip_diacritics, tokenize

DEFAULT_PATTERNS_PATH = Path(__file__).with_name("debunk_patterns.toml")

ClaimStatus = Literal["active", "excluded", "review"]

_SPACES = re.compile(r"\s+")
# Stripped from both ends of a claim, with quotation marks, which are stripped only as a pair
# or when their partner is not in the text (a quotation inside the claim keeps both marks).
_EDGE = " \t:؛;,،.-–—|…!؟?*•"
_QUOTE_PAIRS: dict[str, str] = {'"': '"', "'": "'", "`": "`", "«": "»", "“": "”", "„": "“", "‘": "’"}
_QUOTES = frozenset(_QUOTE_PAIRS) | frozenset(_QUOTE_PAIRS.values())
_MAX_STRIP_ROUNDS = 4
_FOREIGN_LETTER = re.compile(r"[^\W\d_\u0600-\u06ff\u0750-\u077f]")
# "{name}" in a pattern: the part of that name ([parts]). Lower-case names only, so a quantifier
# ("{0,5}") or a named character ("\N{EM DASH}") is never taken for one.
_PART_REFERENCE = re.compile(r"\{([a-z_]+)\}")
# "\g<name>" in a framing's replacement: what its pattern's group of that name matched.
_GROUP_REFERENCE = re.compile(r"\\g<(\w+)>")


class PatternConfigError(ValueError):
    """The debunk pattern file is unreadable or holds an invalid entry; the message names it."""


@dataclass(frozen=True)
class Framing:
    """One debunk framing: where it sits, what it matches and what replaces it (``replace`` may name
    the pattern's groups as ``\\g<name>``)."""

    name: str
    regex: re.Pattern[str]
    replace: str = ""


@dataclass(frozen=True)
class DebunkPatterns:
    """The whole pattern file, compiled."""

    prefixes: tuple[Framing, ...]
    #: All prefixes as one anchored alternation (group ``p<i>`` = ``prefixes[i]``): regex
    #: alternation tries them in file order, so the first framing that matches still wins.
    any_prefix: re.Pattern[str]
    suffixes: tuple[Framing, ...]
    multimedia: re.Pattern[str]
    residual: re.Pattern[str]
    noun_phrase_openers: frozenset[str]
    min_tokens: int
    max_tokens: int
    min_arabic_ratio: float
    #: Stripped claims that open with one of these words lost their start to the framing.
    fragment_openers: frozenset[str]
    #: Stripped claims whose start this matches name what circulated without stating it (None: no such check).
    fragment_start: re.Pattern[str] | None
    #: After "ما" these words make it no relative pronoun ("ما زال ..."): see :func:`_opens_relative_clause`.
    not_relative_after_ma: frozenset[str]


@dataclass(frozen=True)
class CleanedClaim:
    """The outcome of preprocessing one post.

    ``cleaned_text`` is the display form of the claim (None when excluded for lack of text),
    ``normalized_text`` its matching form, ``rules`` the framings that were stripped.
    """

    cleaned_text: str | None
    normalized_text: str
    status: ClaimStatus
    status_reason: str | None
    rules: tuple[str, ...] = ()


def fold(text: str) -> str:
    """The matching spelling used by the patterns; same length as ``text``.

    Chained ``str.replace`` of the few characters present is several times faster than
    ``str.translate`` with a mapping, and this runs on every claim of every load.
    """
    for variant, folded in CHARACTER_FOLDS:
        if variant in text:
            text = text.replace(variant, folded)
    return text


def _display(text: str) -> str:
    """Display text without tashkeel, tatweel or invisible marks and with single spaces: patterns
    ignore those, and a right-to-left mark before "حقيقة" must not hide the framing."""
    return _SPACES.sub(" ", strip_diacritics(unicodedata.normalize("NFKC", text))).strip()


def _expand(pattern: str, parts: dict[str, str], where: str, source: Path) -> str:
    """``pattern`` with each ``{name}`` replaced by that part, so that framings share one spelling
    of their linkers and verbs of circulation instead of copies that drift apart."""

    def part(m: re.Match[str]) -> str:
        if m.group(1) not in parts:
            raise PatternConfigError(f"{source}: {where} uses the part {{{m.group(1)}}}, which [parts] does not define above it")
        return parts[m.group(1)]

    return _PART_REFERENCE.sub(part, pattern)


def _load_parts(data: dict[str, object], source: Path) -> dict[str, str]:
    """The [parts] table, each part expanded with the parts defined above it."""
    table = data.get("parts", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise PatternConfigError(f"{source}: [parts] must map names to pattern strings")
    parts: dict[str, str] = {}
    for name, pattern in table.items():
        parts[name] = f"(?:{_expand(pattern, parts, f'part {name!r}', source)})"
    return parts


def _compile(where: str, index: int, entry: object, source: Path, parts: dict[str, str]) -> Framing:
    if not isinstance(entry, dict) or not isinstance(entry.get("pattern"), str) or not entry.get("name"):
        raise PatternConfigError(f"{source}: [[{where}]] entry {index + 1} needs a 'name' and a 'pattern' string")
    anchor = "^" if where == "prefix" else ""
    pattern = _expand(entry["pattern"], parts, f"[[{where}]] {entry['name']!r}", source)
    try:
        regex = re.compile(anchor + fold(pattern), re.IGNORECASE)
    except re.error as exc:
        raise PatternConfigError(f"{source}: [[{where}]] {entry['name']!r} has an invalid pattern: {exc}") from exc
    replace = fold(str(entry.get("replace", "")))
    for group in _GROUP_REFERENCE.findall(replace):
        if group not in regex.groupindex:
            raise PatternConfigError(
                f"{source}: [[{where}]] {entry['name']!r} replaces with \\g<{group}>, a group its pattern does not name"
            )
    return Framing(str(entry["name"]), regex, replace)


def _any_prefix(prefixes: tuple[Framing, ...], source: Path) -> re.Pattern[str]:
    """All prefixes as one anchored alternation, each framing's match in group ``p<i>``."""
    try:
        return re.compile(
            "^(?:" + "|".join(f"(?P<p{i}>{f.regex.pattern[1:]})" for i, f in enumerate(prefixes)) + ")", re.IGNORECASE
        )
    except re.error as exc:  # the one error that each framing's own compile lets through
        raise PatternConfigError(f"{source}: two [[prefix]] framings name the same group: {exc}") from exc


def _fragment_start(pattern: object, parts: dict[str, str], source: Path) -> re.Pattern[str] | None:
    """The [review] ``fragment_pattern``, anchored at a claim's start (None when the file sets none)."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise PatternConfigError(f"{source}: [review] fragment_pattern must be a pattern string, not {pattern!r}")
    try:
        return re.compile("^(?:" + fold(_expand(pattern, parts, "[review] fragment_pattern", source)) + ")")
    except re.error as exc:
        raise PatternConfigError(f"{source}: [review] fragment_pattern is an invalid pattern: {exc}") from exc


@lru_cache(maxsize=8)
def load_patterns(path: Path = DEFAULT_PATTERNS_PATH) -> DebunkPatterns:
    """Read and compile the pattern file (cached per path)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PatternConfigError(f"cannot read debunk patterns {path}: {exc}") from exc
    parts = _load_parts(data, path)
    prefixes = tuple(_compile("prefix", i, e, path, parts) for i, e in enumerate(data.get("prefix", [])))
    suffixes = tuple(_compile("suffix", i, e, path, parts) for i, e in enumerate(data.get("suffix", [])))
    if not prefixes:
        raise PatternConfigError(f"{path}: no [[prefix]] framings")
    any_prefix = _any_prefix(prefixes, path)
    review = data.get("review", {})
    fragment_start = _fragment_start(review.get("fragment_pattern"), parts, path) if isinstance(review, dict) else None
    try:
        multimedia = re.compile(fold(_expand(data["multimedia"]["pattern"], parts, "[multimedia]", path)), re.IGNORECASE)
        words = [fold(w) for w in review["residual_framing"]]
        residual = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)")
        return DebunkPatterns(
            prefixes=prefixes,
            any_prefix=any_prefix,
            suffixes=suffixes,
            multimedia=multimedia,
            residual=residual,
            noun_phrase_openers=frozenset(fold(w) for w in review.get("noun_phrase_openers", [])),
            min_tokens=int(review["min_tokens"]),
            max_tokens=int(review["max_tokens"]),
            min_arabic_ratio=float(review["min_arabic_ratio"]),
            fragment_openers=frozenset(fold(w) for w in review.get("fragment_openers", [])),
            fragment_start=fragment_start,
            not_relative_after_ma=frozenset(fold(w) for w in review.get("not_relative_after_ma", [])),
        )
    except (KeyError, TypeError, ValueError, re.error) as exc:
        raise PatternConfigError(f"{path}: missing or invalid [multimedia]/[review] setting: {exc!r}") from exc


def _encloses(text: str) -> bool:
    """Whether ``text`` opens with a quotation mark whose own partner is its last character:
    «...» around the whole text, also with quotations inside it ("«قال "لا" ...»", "«... «...» ...»").
    A mark that is its own partner (") encloses only when it occurs nowhere else: in
    ``"أ" و "ب"`` the first and last marks belong to two quotations."""
    opener, closer = text[0], _QUOTE_PAIRS.get(text[0])
    if closer is None or len(text) < 2 or text[-1] != closer:
        return False
    if opener == closer:
        return opener not in text[1:-1]
    depth = 0
    for i, c in enumerate(text):
        depth += (c == opener) - (c == closer)
        if depth == 0:
            return i == len(text) - 1
    return False


def _strip_edges(text: str) -> str:
    """Drop punctuation and spaces at both ends, and quotation marks that enclose the whole text
    or have lost their partner (the framing took it); ``"إغلاق المدارس" في الرياض`` keeps both."""
    while True:
        text = _SPACES.sub(" ", text).strip(_EDGE)
        if not text:
            return text
        first, last = text[0], text[-1]
        if _encloses(text):
            text = text[1:-1]
        elif first in _QUOTE_PAIRS and _QUOTE_PAIRS[first] not in text[1:]:
            text = text[1:]
        elif last in _QUOTES and not any(_QUOTE_PAIRS.get(c) == last for c in text[:-1]):
            text = text[:-1]
        else:
            return text


def _first_prefix(patterns: DebunkPatterns, folded: str) -> tuple[Framing, re.Match[str]] | None:
    m = patterns.any_prefix.match(folded)
    if not m or m.end() == 0:
        return None
    for name, value in m.groupdict().items():
        if value is not None and name.startswith("p") and name[1:].isdigit():
            return patterns.prefixes[int(name[1:])], m
    return None


def _first_suffix(patterns: DebunkPatterns, folded: str) -> tuple[Framing, re.Match[str]] | None:
    for framing in patterns.suffixes:
        m = framing.regex.search(folded)
        if m and m.end() > m.start():
            return framing, m
    return None


def _replacement(framing: Framing, m: re.Match[str], current: str) -> str:
    """What takes the place of the framing's match: its ``replace``, with each ``\\g<name>`` given
    what that group matched in ``current``. The match ran on the folded text, which keeps every
    position, so the group's span in ``current`` is in the post's own spelling ("وزير الصحة")."""
    return _GROUP_REFERENCE.sub(lambda ref: current[m.start(ref[1]) : m.end(ref[1])], framing.replace)


def strip_framing(current: str, patterns: DebunkPatterns) -> tuple[str, tuple[str, ...]]:
    """Remove debunk framings from both ends of a display text; return the rest and the rules used.

    Framings can nest ("حقيقة: شائعة ..."), so prefixes and suffixes are stripped in rounds
    until a round changes nothing.
    """
    used: list[str] = []
    for _ in range(_MAX_STRIP_ROUNDS):
        changed = False
        for find in (_first_prefix, _first_suffix):
            hit = find(patterns, fold(current))
            if hit is not None:
                framing, m = hit
                current = _strip_edges(current[: m.start()] + _replacement(framing, m, current) + current[m.end():])
                used.append(framing.name)
                changed = True
        if not changed:
            break
    return current, tuple(used)


def _ends_in_question_mark(text: str) -> bool:
    """Whether a text ends with ؟ or ? (before closing quotes or a final stop), which the edge
    stripping removes from the statement."""
    return fold(text).rstrip(" \t\"'«»“”„‘’`!.…").endswith("?")


def _after_a_label(shown: str, statement: str) -> bool:
    """Whether what was stripped before ``statement`` ends in a colon or a dash, as a label does
    ("شائعة: ...", "غير صحيح - ..."): after one, "ما" opens the claim itself, a negation more often than
    not ("شائعة: ما فيه دراسة يوم الأحد"), where after "حقيقة / نفي / الحقيقة وراء / شائعات حول" it is
    the relative "what" that a framing left behind."""
    start = shown.find(statement)
    return start > 0 and shown[:start].rstrip().endswith((":", "-", "–", "—", "|"))


def _opens_relative_clause(tokens: list[str], patterns: DebunkPatterns) -> bool:
    """Whether a claim opens with the relative "ما" and its clause ("ما تعرض له الرئيس من محاولة
    اغتيال"): what a verdict on "ما" named, once "حقيقة / نفي" stripped only their own word. It names
    what circulated without stating it, as a claim left opening with a linker does. "ما" before one of
    ``not_relative_after_ma`` ("ما زال ...", "ما لا يقل عن ...") opens a claim of its own."""
    return len(tokens) > 1 and tokens[0] == "ما" and tokens[1] not in patterns.not_relative_after_ma


def _review_reason(statement: str, normalized: str, patterns: DebunkPatterns, *, asked: bool,
                   stripped: bool, labelled: bool) -> str | None:
    """Why a false claim needs a person, if it does. ``asked``: the post itself is a question;
    ``stripped``: a framing was stripped from it; ``labelled``: the framing before it ended in a
    colon or a dash, as a label does ("شائعة: ...")."""
    tokens = tokenize(normalized)
    if len(tokens) < patterns.min_tokens:
        return "too_short"
    # A claim left opening with a linker ("عن الوزير"), a relative clause ("ما تعرض له ...") or a report
    # and its clause ("الأنباء التي تعرض لها ...") is no statement: the framing stopped short of its own end.
    relative = not labelled and (_opens_relative_clause(tokens, patterns)
                                 or bool(patterns.fragment_start and patterns.fragment_start.match(normalized)))
    if stripped and tokens and (tokens[0] in patterns.fragment_openers or relative):
        return "fragment"
    if len(tokens) > patterns.max_tokens:
        return "too_long"
    # Only a text with some non-Arabic letter can fall under the ratio; most claims skip the count.
    if _FOREIGN_LETTER.search(statement) and arabic_ratio(statement) < patterns.min_arabic_ratio:
        return "not_arabic"
    if asked or "?" in fold(statement):
        return "question"
    if patterns.residual.search(fold(statement)):
        return "residual_framing"
    return None


# Verbal nouns by shape (folded, without the article): إفعال، افتعال، انفعال، استفعال، تفعيل.
_VERBAL_NOUN = re.compile(r"^(?:ا\w\wا\w|ا\wت\wا\w|ان\w\wا\w|است\w\wا\w|ت\w\wي\w)$")


def is_bare_noun_phrase(statement: str, patterns: DebunkPatterns) -> bool:
    """A claim that opens with a verbal noun and has no verb ("وفاة الفنان ..."), so it states
    nothing yet; a sentence ("الحكومة تقرر ...", "وزارة الصحة سحبت ...") is not one."""
    from tasks.claim_analysis.rules import has_verb  # the analyzer's word lists, loaded once

    words = tokenize(normalize(statement))
    if not words:
        return False
    first = fold(words[0])
    opens_with_noun = first in patterns.noun_phrase_openers or bool(_VERBAL_NOUN.match(first))
    rest = statement.split(None, 1)[1:]  # the opener may be spelt like a verb (رفع، منع): not counted
    return opens_with_noun and not (rest and has_verb(rest[0]))


def clean_claim(
    claim_text: str | None,
    *,
    veracity: Literal["false", "true"],
    is_multimedia: bool = False,
    claim_reviewed: str | None = None,
    patterns: DebunkPatterns | None = None,
    noun_phrases: Literal["active", "review"] = "active",
) -> CleanedClaim:
    """Turn a published claim into the statement it makes (false) or keep it as is (true).

    ``claim_reviewed`` (schema.org ClaimReview) stands in when the page shows no claim text, or
    only punctuation.
    Reuters headlines (``veracity='true'``) carry no debunk framing and never go to review.
    ``noun_phrases="review"`` sends a false claim that is a bare noun phrase once its framing is
    stripped to review (reason ``noun_phrase``).
    """
    pats = patterns or load_patterns()
    source = claim_text or ""
    shown = _strip_edges(_display(source))
    if not shown and claim_reviewed:  # no claim block, or one of marks alone ("-", "…")
        source = claim_reviewed
        shown = _strip_edges(_display(source))
    if not shown:
        return CleanedClaim(None, "", "excluded", "empty_text")
    statement, rules = strip_framing(shown, pats) if veracity == "false" else (shown, ())
    if is_multimedia or pats.multimedia.search(fold(statement)):
        return CleanedClaim(statement or None, normalize(statement), "excluded", "multimedia", rules)
    if not statement:  # nothing but framing ("حقيقة"): a person must say what the claim was
        return CleanedClaim(shown, normalize(shown), "review", "framing_only", rules)
    normalized = normalize(statement)
    # A question mark that closed a stripped framing ("ما حقيقة ...؟") is the framing's; on a
    # post with no framing it makes the claim a question ("هل تغلق الحكومة المدارس غدا؟").
    asked = not rules and _ends_in_question_mark(_display(source))
    reason = (_review_reason(statement, normalized, pats, asked=asked, stripped=bool(rules),
                             labelled=_after_a_label(shown, statement)) if veracity == "false" else None)
    if reason is None and veracity == "false" and noun_phrases == "review" and rules and is_bare_noun_phrase(statement, pats):
        reason = "noun_phrase"
    return CleanedClaim(statement, normalized, "review" if reason else "active", reason, rules)
