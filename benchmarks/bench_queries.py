"""Benchmark: claim analysis + query building throughput, rule-based and Stanza.

Rule-based: the whole path (gazetteer entities, clause cut, the five queries) over a set of
claims written for this benchmark, repeated. Stanza: when its Arabic models are installed, the
whole Pipeline; always, the post-processing that turns an annotated ``stanza.Document`` into
queries (entities, verb-phrase cut, queries), over Documents built beforehand from the
CoNLL-U files of tests/conllu, so that the figure exists without the models.

    .venv/bin/python benchmarks/bench_queries.py [--claims 5000]
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arastance.config import load_settings  # noqa: E402
from tasks.claim_analysis import analyze_many, choose_analyzer  # noqa: E402
from tasks.claim_analysis.rules import RuleAnalyzer  # noqa: E402
from tasks.queries import QueryClaim, build_queries  # noqa: E402

# Claims of the kinds fact-checkers debunk: a clause cut, entities, titles, Latin words, numbers.
CLAIMS = [
    "أعلن الرئيس الأمريكي دونالد ترامب انسحاب بلاده من الاتفاق، وأكد أن القرار نهائي",
    "وزارة الصحة المصرية تعلن وفاة 5 أشخاص بفيروس جديد في القاهرة وتقول إن الوضع مستقر",
    "الشيخ محمد بن راشد يفتتح أكبر مركز تسوق في دبي الذي تبلغ مساحته مليون متر",
    "وفاة الفنان عادل إمام في مستشفى بالقاهرة؛ وأسرته تنفي الخبر",
    "هل ألغت وزارة التربية والتعليم امتحانات نهاية العام؟ الحقيقة لا",
    "السعودية تمنح الأردن 1,000 مليون دولار لدعم الموازنة العامة",
    "شركة Apple تطلق هاتفا جديدا في الإمارات, ويقول خبراء إنه خطير على الصحة",
    "الملك سلمان بن عبد العزيز يأمر بصرف راتب شهرين لموظفي الدولة",
    "صورة الطفل التي انتشرت على مواقع التواصل التقطت في حلب",
    "منظمة الصحة العالمية تحذر من وباء في الولايات المتحدة الأمريكية وأوروبا",
    "إغلاق جميع المدارس في الكويت والبحرين بسبب العاصفة الترابية",
    "ارتفاع أسعار الذهب والفضة في الأسواق العالمية",
]


def _claims(n: int) -> list[QueryClaim]:
    start = date(2012, 1, 1)
    return [
        QueryClaim(f"bench-{i}", CLAIMS[i % len(CLAIMS)], "false", start + timedelta(days=(i * 37) % 2500))
        for i in range(n)
    ]


def _report(label: str, claims: int, queries: int, seconds: float) -> None:
    print(f"{label:<44} {claims:>6} claims {queries:>7} queries {seconds:8.3f} s "
          f"{claims / seconds:10.0f} claims/s {queries / seconds:10.0f} queries/s")


def bench_rules(n: int) -> None:
    settings = load_settings(nlp={"analyzer": "rules"})
    claims = _claims(n)
    rules = RuleAnalyzer(min_cut_words=settings.nlp.min_cut_words)
    rules.analyze(CLAIMS[0])  # word lists loaded outside the timing
    t0 = time.perf_counter()
    analyses = [rules.analyze(c.text) for c in claims]
    t1 = time.perf_counter()
    queries = sum(len(build_queries(c, a, settings=settings)) for c, a in zip(claims, analyses))
    t2 = time.perf_counter()
    _report("rules: analysis only", n, 0, t1 - t0)
    _report("rules: analysis + query building", n, queries, t2 - t0)


def bench_stanza_postprocessing(n: int) -> None:
    from stanza.utils.conll import CoNLL

    from tasks.claim_analysis.stanza_doc import analysis_from_document

    settings = load_settings(nlp={"analyzer": "rules"})
    files = sorted((ROOT / "tests" / "conllu").glob("*.conllu"))
    docs = [CoNLL.conll2doc(input_file=str(f)) for f in files]
    texts = [" ".join(t.text for s in d.sentences for t in s.tokens) for d in docs]
    t0 = time.perf_counter()
    queries = 0
    for i in range(n):
        k = i % len(docs)
        analysis = analysis_from_document(texts[k], docs[k])
        claim = QueryClaim(f"bench-{i}", texts[k], "false", date(2016, 2, 29))
        queries += len(build_queries(claim, analysis, settings=settings))
    _report(f"stanza post-processing ({len(docs)} CoNLL-U docs)", n, queries, time.perf_counter() - t0)


def bench_stanza_pipeline(n: int) -> None:
    settings = load_settings(nlp={"analyzer": "stanza"})
    claims = _claims(n)
    t0 = time.perf_counter()
    analyses = analyze_many([c.text for c in claims], settings.nlp)
    queries = sum(len(build_queries(c, a, settings=settings)) for c, a in zip(claims, analyses))
    _report("stanza: pipeline + query building", n, queries, time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=5000, help="claims analysed per measurement")
    parser.add_argument("--stanza-claims", type=int, default=200, help="claims for the full Stanza pipeline")
    args = parser.parse_args()
    bench_rules(args.claims)
    bench_stanza_postprocessing(args.claims)
    if choose_analyzer(load_settings().nlp) == "stanza":
        bench_stanza_pipeline(args.stanza_claims)
    else:
        print("stanza: Arabic models not installed; full-pipeline figure skipped (`arastance nlp download`)")


if __name__ == "__main__":
    main()
