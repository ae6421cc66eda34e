"""Every news article of the world as an HTML page of its domain, for the offline mirror.

Each domain has its own markup (container ids and classes, navigation, where and how the date
is shown, related links, advertising, share bars, comments), so main-text extraction has the
same work to do as on the real web: the paragraphs of the story are only part of the page.
Dates appear as ``<meta property="article:published_time">`` on some domains, as JSON-LD on
one, as Arabic text on others (Gregorian with Egyptian or Levantine month names, Hijri, in
western or Arabic-Indic digits). Every page carries a footer note saying it is synthetic.

Pages go to ``out_dir/mirror/<domain>/<path>`` (``index.html`` for paths ending in '/').
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from html import escape
from pathlib import Path

from arastance.progress import track

from snapshots.paths import page_file as site_page_file
from snapshots.world.arabic_dates import LEVANT_MONTHS, MONTHS, clock, hijri_date, indic, long_date
from snapshots.world.domains import BY_HOST, Domain
from snapshots.world.model import NewsArticle, World
from snapshots.world.pools import REPORTERS

SYNTHETIC_NOTE = (
    "تنبيه: هذه الصفحة بيانات تجريبية مصطنعة كتبت لمشروع AraStance Pipeline، "
    "وأخبارها وأسماء الأشخاص فيها غير حقيقية."
)
COMMENTS = (
    "ربنا يستر، كل يوم نسمع خبر جديد ولا نعرف الصحيح من الخطأ.",
    "يا جماعة لا تنشروا أي شيء قبل التأكد من المصدر الرسمي.",
    "والله الخبر هذا وصلني أمس على الواتساب من أكثر من شخص.",
    "شكرا على التوضيح، مقال مفيد.",
    "الإعلام صار ينقل أي كلام بدون تحقق للأسف.",
    "متى يصدر البيان الرسمي؟ الناس تنتظر.",
    "الله يحفظ بلادنا من كل سوء.",
    "أول مرة أسمع بهذا الموضوع، هل من مصدر؟",
)
ADS = (
    "عروض الصيف: خصم يصل إلى 40% على الرحلات العائلية.. احجز الآن",
    "تمويل شخصي بأقل نسبة أرباح، قدم طلبك خلال دقائق",
    "شقق فندقية للبيع بالتقسيط على خمس سنوات",
    "تعلم الإنجليزية في ثلاثة أشهر مع أفضل المدربين",
)


@dataclass(frozen=True)
class PageParts:
    """What every layout needs, already escaped."""

    domain: Domain
    article: NewsArticle
    moment: datetime
    author: str
    related: tuple[NewsArticle, ...]
    comments: tuple[str, ...]
    ad: str

    @property
    def title(self) -> str:
        return escape(self.article.title)

    @property
    def iso(self) -> str:
        return self.moment.isoformat() + "+03:00"

    def paragraphs(self, tag: str = "p", cls: str = "") -> str:
        attr = f' class="{cls}"' if cls else ""
        return "\n".join(f"<{tag}{attr}>{escape(p)}</{tag}>" for p in self.article.body)

    def related_links(self, item: str = "li", cls: str = "") -> str:
        attr = f' class="{cls}"' if cls else ""
        return "\n".join(f'<{item}{attr}><a href="{escape(a.url)}">{escape(a.title)}</a></{item}>' for a in self.related)

    def comment_list(self, cls: str) -> str:
        return "\n".join(
            f'<div class="{cls}"><span class="c-name">{escape(name)}</span><p>{escape(text)}</p></div>'
            for name, text in zip(("زائر", "أبو محمد", "متابع", "سارة"), self.comments)
        )


def _nav(items: Sequence[str], cls: str) -> str:
    return f'<ul class="{cls}">' + "".join(f'<li><a href="#">{escape(i)}</a></li>' for i in items) + "</ul>"


def _head(p: PageParts, *, meta_time: bool, extra: str = "") -> str:
    meta = f'\n<meta property="article:published_time" content="{p.iso}">' if meta_time else ""
    return (
        '<!DOCTYPE html>\n<html lang="ar" dir="rtl">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{p.title} | {escape(p.domain.name)}</title>\n"
        f'<meta property="og:title" content="{p.title}">\n<meta property="og:site_name" content="{escape(p.domain.name)}">'
        f'{meta}\n<link rel="canonical" href="{escape(p.article.url)}">\n{extra}'
        '<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}</script>\n'
        "</head>\n"
    )


def _footer(p: PageParts, cls: str, copyright_line: str) -> str:
    return (
        f'<footer class="{cls}">\n<p>{escape(copyright_line)}</p>\n'
        f'<p class="synthetic-note">{escape(SYNTHETIC_NOTE)}</p>\n</footer>\n</body>\n</html>\n'
    )


def _youm7(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{long_date(d, weekday=True).replace(' ', '، ', 1)} {clock(p.moment)}"
    return _head(p, meta_time=False) + f"""<body class="storyPage">
<header id="mainHeader"><a class="logo" href="https://youm7.com/">اليوم السابع</a>
{_nav(("الرئيسية", "أخبار عاجلة", "سياسة", "حوادث", "رياضة", "فن", "اقتصاد", "المحافظات"), "mainMenu")}</header>
<div class="breadcrumb"><a href="#">الرئيسية</a> &gt; <a href="#">أخبار مصر</a></div>
<article id="newsStory">
<div class="articleHeader"><h1>{p.title}</h1>
<div class="writeBy">كتب {escape(p.author)}</div><span class="newsStoryDate">{escape(shown)}</span></div>
<div class="adv-box">إعلان — {escape(p.ad)}</div>
<div id="articleBody" class="articleCont">
{p.paragraphs()}
</div>
<div class="shareBar">شارك: فيسبوك | تويتر | واتساب</div>
</article>
<aside class="moreNews"><h3>اقرأ أيضا</h3><ul>{p.related_links()}</ul></aside>
""" + _footer(p, "mainFooter", "جميع الحقوق محفوظة لليوم السابع")


def _almasry(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{d.day:02d}-{d.month:02d}-{d.year} {p.moment:%H:%M}"
    return _head(p, meta_time=True) + f"""<body>
<div class="top-bar">{_nav(("أخبار", "رأي", "اقتصاد", "رياضة", "حوادث", "ثقافة"), "nav-list")}</div>
<div class="container"><div class="row"><div class="col-main">
<h1 class="article-title">{p.title}</h1>
<div class="article-meta"><span class="author">{escape(p.author)}</span> <span class="pdate">نشر في: {shown}</span></div>
<div class="pager-content" id="NewsStory">
{p.paragraphs()}
</div>
<div class="tags">كلمات البحث: <a href="#">أخبار مصر</a> <a href="#">عاجل</a></div>
<section class="comments"><h4>التعليقات</h4>{p.comment_list("comment")}</section>
</div><div class="col-side"><div class="most-read"><h3>الأكثر قراءة</h3><ol>{p.related_links()}</ol></div>
<div class="ad">{escape(p.ad)}</div></div></div></div>
""" + _footer(p, "site-footer", "المصري اليوم - جميع الحقوق محفوظة")


def _okaz(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{hijri_date(d)} - {long_date(d)}"
    return _head(p, meta_time=False) + f"""<body>
<header class="okaz-header"><div class="brand">عكاظ</div>{_nav(("محليات", "سياسة", "اقتصاد", "رياضة", "ثقافة وفن", "كتاب"), "sections")}</header>
<main class="article-page">
<div class="article-info"><time class="hijri-greg">{escape(shown)}</time><span class="by">{escape(p.author)} (الرياض)</span></div>
<h1 class="headline">{p.title}</h1>
<div class="article-body">
<div class="inline-ad">مساحة إعلانية: {escape(p.ad)}</div>
{p.paragraphs()}
</div>
<div class="related"><h2>مقالات ذات صلة</h2><ul>{p.related_links()}</ul></div>
</main>
""" + _footer(p, "okaz-footer", "© مؤسسة عكاظ للصحافة والنشر")


def _sabq(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{hijri_date(d, indic_digits=True)} الموافق {long_date(d, indic_digits=True)}"
    return _head(p, meta_time=True) + f"""<body class="sabq">
<nav class="sabq-nav">{_nav(("السعودية", "العالم", "اقتصاد", "رياضة", "تقنية", "منوعات"), "menu")}</nav>
<div class="story">
<div class="story-head"><h1>{p.title}</h1><div class="story-date">{escape(shown)}</div>
<div class="story-author">سبق - {escape(p.author)}</div></div>
<div class="story-content">
{p.paragraphs()}
</div>
<div class="read-more"><strong>تابع أيضا</strong>{p.related_links("div", "rm-item")}</div>
<div class="story-comments">{p.comment_list("cmt")}</div>
</div>
""" + _footer(p, "sabq-footer", "صحيفة سبق الإلكترونية")


def _emarat(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{d.day:02d} {MONTHS[d.month - 1]} {d.year}"
    return _head(p, meta_time=True) + f"""<body>
<div id="header"><span class="site">الإمارات اليوم</span>{_nav(("محليات", "أخبار وتقارير", "اقتصاد", "رياضة", "الحياة والترفيه"), "nav")}</div>
<div id="content">
<div class="article">
<h1 class="title">{p.title}</h1>
<p class="dateline">المصدر: {escape(p.author)} - دبي التاريخ: {shown}</p>
<div class="article-text" id="article-text">
{p.paragraphs()}
</div>
<div class="social">شارك المقال</div>
</div>
<div class="sidebar"><div class="box"><h3>أخبار ذات صلة</h3><ul>{p.related_links()}</ul></div><div class="ad-box">{escape(p.ad)}</div></div>
</div>
""" + _footer(p, "footer", "© جميع الحقوق محفوظة لمؤسسة دبي للإعلام")


def _alkhaleej(p: PageParts) -> str:
    d = p.moment.date()
    shown = indic(f"{d.day}/{d.month}/{d.year}")
    return _head(p, meta_time=False) + f"""<body>
<div class="kh-top">صحيفة الخليج {_nav(("الإمارات", "عربي ودولي", "اقتصاد", "رياضة", "ثقافة", "ملفات"), "kh-menu")}</div>
<section class="kh-article">
<span class="kh-cat">الإمارات</span>
<h2 class="kh-title">{p.title}</h2>
<div class="kh-date">{shown}</div>
<div class="kh-body">
{p.paragraphs("div", "kh-para")}
</div>
<div class="kh-ads">{escape(p.ad)}</div>
<div class="kh-more"><h4>قد يعجبك أيضا</h4>{p.related_links("p")}</div>
</section>
""" + _footer(p, "kh-footer", "دار الخليج للصحافة والطباعة والنشر")


def _alarabiya(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"نشر في: {long_date(d, weekday=True)} - {clock(p.moment)} بتوقيت غرينتش"
    return _head(p, meta_time=True) + f"""<body>
<header class="header-main"><a class="logo" href="https://alarabiya.net/">العربية</a>{_nav(("أخبار", "السعودية", "الخليج", "أسواق", "رياضة", "منوعات"), "main-nav")}</header>
<div class="article-wrapper">
<h1 class="headingInfo_title">{p.title}</h1>
<div class="timeDate_element">{escape(shown)}</div>
<div class="article-body" id="body-text">
<div class="mpu-ad">{escape(p.ad)}</div>
{p.paragraphs()}
</div>
<div class="related-articles"><h3>مواضيع ذات صلة</h3><ul>{p.related_links()}</ul></div>
</div>
""" + _footer(p, "footer", "جميع الحقوق محفوظة لقناة العربية")


def _skynews(p: PageParts) -> str:
    d = p.moment.date()
    ld = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": p.article.title,
                     "datePublished": p.iso, "author": {"@type": "Organization", "name": "سكاي نيوز عربية"}},
                    ensure_ascii=False)
    extra = f'<script type="application/ld+json">{ld}</script>\n'
    return _head(p, meta_time=False, extra=extra) + f"""<body>
<div class="sna-header">سكاي نيوز عربية {_nav(("الشرق الأوسط", "العالم", "اقتصاد", "رياضة", "تكنولوجيا", "فيديو"), "sna-menu")}</div>
<div class="article-container">
<div class="sna-breaking">عاجل: تابعوا آخر الأخبار على مدار الساعة</div>
<h1 class="article-title">{p.title}</h1>
<div class="article-date">{escape(long_date(d))}</div>
<div class="article-body">
{p.paragraphs()}
</div>
<div class="article-tags">قد يهمك أيضا {p.related_links("span", "tag")}</div>
</div>
""" + _footer(p, "sna-footer", "© سكاي نيوز عربية")


def _bbc(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{d.day} {MONTHS[d.month - 1]}/ {LEVANT_MONTHS[d.month - 1]} {d.year}"
    return _head(p, meta_time=False) + f"""<body>
<div class="orb-banner">BBC</div>
<div class="navigation-wide">{_nav(("الرئيسية", "الشرق الأوسط", "العالم", "علوم وتكنولوجيا", "صحة", "رياضة"), "navigation-wide-list")}</div>
<div class="story-body">
<h1 class="story-body__h1">{p.title}</h1>
<div class="date date--v2" data-seconds="{int(p.moment.timestamp())}">{escape(shown)}</div>
<div class="story-body__inner" property="articleBody">
<figure><figcaption>صورة تعبيرية</figcaption></figure>
{p.paragraphs()}
</div>
<div class="story-more"><h2>قصص ذات صلة</h2><ul>{p.related_links()}</ul></div>
</div>
""" + _footer(p, "orb-footer", "حقوق النشر محفوظة لهيئة الإذاعة البريطانية")


def _aljazeera(p: PageParts) -> str:
    d = p.moment.date()
    shown = indic(f"{d.day}/{d.month}/{d.year}")
    return _head(p, meta_time=True) + f"""<body>
<header class="site-header">الجزيرة نت {_nav(("أخبار", "سياسة", "اقتصاد", "رياضة", "تكنولوجيا", "ثقافة"), "menu__list")}</header>
<main id="main-content-area">
<header class="article-header"><h1>{p.title}</h1>
<div class="article-dates"><span class="date-simple">{shown}</span> | آخر تحديث: {shown}</div></header>
<div class="wysiwyg wysiwyg--all-content">
{p.paragraphs()}
</div>
<div class="more-on"><h2>المزيد من أخبار</h2><ul>{p.related_links()}</ul></div>
<div class="newsletter">اشترك في النشرة البريدية</div>
</main>
""" + _footer(p, "site-footer", "© 2018 شبكة الجزيرة الإعلامية")


def _forum(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{d.day:02d}-{d.month:02d}-{d.year}, {clock(p.moment)}"
    body = "<br>\n<br>\n".join(escape(x) for x in p.article.body)
    replies = "\n".join(
        f'<li class="postbit"><div class="username">عضو {i + 1}</div><div class="postcontent">{escape(c)}</div></li>'
        for i, c in enumerate(p.comments)
    )
    return _head(p, meta_time=False) + f"""<body>
<div id="forum-header">منتديات الواحة العربية - المنتدى العام</div>
<div class="navbar">{_nav(("الرئيسية", "المنتدى العام", "منتدى الأخبار", "التسجيل", "دخول"), "nav-links")}</div>
<h2 class="threadtitle">{p.title}</h2>
<ol id="posts">
<li class="postbit postbitfirst"><div class="posthead"><span class="date">{escape(shown)}</span></div>
<div class="userinfo"><span class="username">ناقل الأخبار</span> <span class="usertitle">عضو مميز</span> المشاركات: 4,512</div>
<div class="postcontent restore">
{body}
</div>
<div class="signature">لا إله إلا الله محمد رسول الله</div></li>
{replies}
</ol>
<div class="similar-threads"><h3>مواضيع مشابهة</h3><ul>{p.related_links()}</ul></div>
""" + _footer(p, "forum-footer", "جميع الأوقات بتوقيت مكة المكرمة")


def _blog(p: PageParts) -> str:
    d = p.moment.date()
    return _head(p, meta_time=True) + f"""<body>
<div class="blog-header"><h1 class="blog-title">مدونة أخبار سريعة</h1><p class="description">كل جديد لحظة بلحظة</p></div>
<div class="main-inner"><div class="date-header"><span>{escape(long_date(d, weekday=True))}</span></div>
<div class="post hentry">
<h3 class="post-title entry-title">{p.title}</h3>
<div class="post-body entry-content">
{"".join(f'<div dir="rtl">{escape(x)}</div><div><br></div>' for x in p.article.body)}
</div>
<div class="post-footer">نشر بواسطة مدير المدونة في {clock(p.moment)} | لا توجد تعليقات</div>
</div>
<div class="blog-pager">رسالة أحدث | رسالة أقدم | الصفحة الرئيسية</div>
<div class="sidebar"><h2>المشاركات الشائعة</h2><ul>{p.related_links()}</ul><div class="widget">{escape(p.ad)}</div></div>
</div>
""" + _footer(p, "blog-footer", "سمة بسيطة. يتم التشغيل بواسطة Blogger")


def _social(p: PageParts) -> str:
    d = p.moment.date()
    shown = f"{long_date(d)} الساعة {clock(p.moment)}"
    return _head(p, meta_time=False) + f"""<body>
<div role="banner">فيسبوك - تسجيل الدخول | إنشاء حساب</div>
<div class="page-header"><strong>صفحة أخبار الساعة</strong> · 152 ألف متابع</div>
{_nav(("المنشورات", "حول", "الصور", "مقاطع الفيديو", "المجتمع"), "page-tabs")}
<div role="article" class="userContentWrapper">
<div class="post-meta"><abbr class="timestamp">{escape(shown)}</abbr> · عام</div>
<div class="userContent" data-testid="post_message">
<p><strong>{p.title}</strong></p>
{p.paragraphs()}
</div>
<div class="reactions">أعجبني 2.4 ألف · 837 تعليقا · 1.1 ألف مشاركة</div>
<div class="comments">{p.comment_list("UFIComment")}</div>
</div>
<div class="more-posts">منشورات أخرى {p.related_links("div")}</div>
""" + _footer(p, "page-footer", "فيسبوك ©")


LAYOUTS: dict[str, Callable[[PageParts], str]] = {
    "youm7.com": _youm7,
    "almasryalyoum.com": _almasry,
    "okaz.com.sa": _okaz,
    "sabq.org": _sabq,
    "emaratalyoum.com": _emarat,
    "alkhaleej.ae": _alkhaleej,
    "alarabiya.net": _alarabiya,
    "skynewsarabia.com": _skynews,
    "bbc.com": _bbc,
    "aljazeera.net": _aljazeera,
    "montada.alwaha-alarabiya.net": _forum,
    "akhbar-sarea.blogspot.com": _blog,
    "facebook.com": _social,
}


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def page_parts(article: NewsArticle, neighbours: Sequence[NewsArticle]) -> PageParts:
    """The page furniture of one article, chosen from a hash of its id (stable across runs)."""
    h = _digest(article.article_id)
    moment = datetime.combine(article.published, time(7 + h % 15, (h // 15) % 60))
    n_comments = (h // 900) % 4
    comments = tuple(COMMENTS[(h // 7 + i * 3) % len(COMMENTS)] for i in range(n_comments))
    return PageParts(
        domain=BY_HOST[article.domain],
        article=article,
        moment=moment,
        author=REPORTERS[h % len(REPORTERS)],
        related=tuple(neighbours),
        comments=comments,
        ad=ADS[(h // 11) % len(ADS)],
    )


def render_article(article: NewsArticle, neighbours: Sequence[NewsArticle] = ()) -> str:
    """The HTML page of one article (``neighbours`` become its related links)."""
    try:
        layout = LAYOUTS[article.domain]
    except KeyError:
        raise KeyError(f"no page layout for domain {article.domain!r} (article {article.article_id})") from None
    return layout(page_parts(article, neighbours))


def page_file(out_dir: Path, article: NewsArticle) -> Path:
    """Where the mirror keeps an article: ``mirror/<domain>/<path>`` (index.html for '/')."""
    return out_dir / "mirror" / article.domain / site_page_file(article.path)


def render_news_sites(world: World, out_dir: Path) -> int:
    """Write every article page of ``world`` under ``out_dir/mirror``; returns pages written."""
    by_domain: dict[str, list[NewsArticle]] = defaultdict(list)
    for article in world.articles:
        by_domain[article.domain].append(article)
    written = 0
    position = {a.article_id: i for siblings in by_domain.values() for i, a in enumerate(siblings)}
    for article in track(world.articles, "news pages", unit="pages", min_total=500):
        siblings, i = by_domain[article.domain], position[article.article_id]
        neighbours = [a for a in siblings[max(0, i - 2) : i + 3] if a is not article][:4]
        target = page_file(out_dir, article)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_article(article, neighbours), encoding="utf-8")
        written += 1
    return written
