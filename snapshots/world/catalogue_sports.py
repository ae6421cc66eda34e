"""Rumour kinds about football: sacked coaches, transfers, cancelled leagues."""

from __future__ import annotations

from .kinds import Event, RumourKind

KINDS: tuple[RumourKind, ...] = (
    RumourKind(
        key="coach-sacked",
        category="sports",
        slots=("club", "coach", "person"),
        statement="إدارة نادي {club} أقالت المدرب {coach} بعد سلسلة من النتائج السلبية",
        np="إقالة {coach} من تدريب {club}",
        np_alt="رحيل المدرب {coach} عن نادي {club}",
        entities=("{club}", "{coach}"),
        org="نادي {club}",
        spokesman_role="المتحدث الرسمي باسم نادي {club}",
        truth="المدرب مستمر في عمله ويحظى بثقة مجلس الإدارة",
        agree=(
            "قالت مصادر داخل نادي {club} إن مجلس الإدارة قرر إقالة المدرب {coach} بعد سلسلة من النتائج السلبية، وإن البحث عن بديل بدأ بالفعل.",
            "وأضافت المصادر أن المدرب المساعد سيتولى قيادة الفريق مؤقتا في المباراة المقبلة.",
        ),
        deny=(
            "نفى {spokesman_intro} إقالة المدرب {coach}، مؤكدا أن مجلس الإدارة يدعمه بشكل كامل.",
        ),
        discuss=(
            "يعيش نادي {club} حالة من عدم الاستقرار بعد النتائج الأخيرة، وتتحدث تقارير عن مستقبل المدرب {coach}.",
        ),
        background=(
            "ويحتل {club} مركزا لا يرضي جماهيره في جدول ترتيب {league} بعد مرور نصف الموسم.",
        ),
        event=Event(
            title="{club} يفوز على منافسه ويتقدم في ترتيب {league}",
            paras=(
                "حقق {club} فوزا ثمينا في الجولة الماضية من {league}، ليتقدم خطوة في جدول الترتيب.",
                "وأشاد المدرب {coach} بأداء لاعبيه، مؤكدا أن الفريق يسير في الطريق الصحيح.",
                "وقال {person}، أحد أعضاء مجلس الإدارة، إن النادي سيدعم الفريق بصفقات جديدة في فترة الانتقالات الشتوية.",
            ),
            section="sportsNews",
        ),
    ),
    RumourKind(
        key="player-transfer",
        category="sports",
        slots=("player", "club", "club2"),
        statement="اللاعب {player} وقع عقدا للانتقال من {club} إلى {club2}",
        np="انتقال اللاعب {player} من {club} إلى {club2}",
        np_alt="توقيع {player} لنادي {club2}",
        entities=("{player}", "{club}", "{club2}"),
        org="نادي {club}",
        spokesman_role="مدير الكرة في نادي {club}",
        truth="اللاعب مرتبط بعقد ساري المفعول مع ناديه ولم يتلق النادي أي عرض رسمي",
        agree=(
            "أكدت مصادر أن اللاعب {player} وقع بالأحرف الأولى على عقد للانتقال إلى {club2} لمدة ثلاثة مواسم، قادما من {club}.",
            "ونشرت صفحات مشجعي {club2} صورا قالت إنها للاعب داخل مقر النادي، مرحبة بالصفقة.",
        ),
        deny=(
            "نفى {spokesman_intro} انتقال {player} إلى {club2}، مؤكدا أن اللاعب باق مع الفريق.",
        ),
        discuss=(
            "يتواصل الحديث عن مستقبل اللاعب {player}، وسط أنباء عن اهتمام {club2} بضمه في فترة الانتقالات.",
        ),
        background=(
            "ويعد {player} من أبرز لاعبي {club} في المواسم الأخيرة، وشارك مع المنتخب في عدة مباريات دولية.",
        ),
        event=Event(
            title="{player} يقود {club} للفوز على {club2}",
            paras=(
                "قاد {player} فريقه {club} للفوز على {club2} في قمة الجولة، بعد أن سجل هدفا وصنع آخر.",
                "وأشاد الجهاز الفني بأداء اللاعب، مؤكدا أنه عنصر أساسي في خطط الفريق.",
                "وبهذا الفوز يواصل {club} المنافسة على المراكز الأولى في {league}.",
            ),
            section="sportsNews",
        ),
    ),
    RumourKind(
        key="league-cancelled",
        category="sports",
        slots=("person", "club"),
        statement="{football_federation} قرر إلغاء {league} هذا الموسم",
        np="إلغاء {league} هذا الموسم",
        np_alt="قرار بوقف منافسات {league} حتى نهاية الموسم",
        entities=("{football_federation}", "{league}"),
        org="{football_federation}",
        spokesman_role="المتحدث الرسمي باسم {football_federation}",
        truth="المسابقة مستمرة وفق الجدول المعلن ولم يناقش مجلس الإدارة أي مقترح بإلغائها",
        decision=True,
        agree=(
            "كشفت مصادر أن {football_federation} قرر إلغاء {league} هذا الموسم بسبب ضغط المباريات وارتباطات المنتخب.",
            "وأضافت أن القرار سيعلن رسميا بعد اجتماع مجلس الإدارة المقبل، وأن الأندية أبلغت به بشكل غير رسمي.",
        ),
        deny=(
            "نفى {football_federation} إلغاء {league}، مؤكدا أن الجولات المقبلة ستقام في مواعيدها.",
        ),
        discuss=(
            "تتضارب الأنباء حول مصير {league} هذا الموسم، وسط مطالبات من الأندية بإعلان موقف واضح.",
        ),
        background=(
            "ويشارك في {league} عدد من الأندية الجماهيرية، في مقدمتها {club}.",
        ),
        event=Event(
            title="{football_federation} يعلن جدول مباريات الموسم الجديد",
            paras=(
                "أعلن {football_federation} جدول مباريات الموسم الجديد من {league}، على أن تنطلق الجولة الأولى منتصف الشهر المقبل.",
                "وقال {person}، عضو مجلس إدارة الاتحاد، إن الجدول راعى مشاركات الأندية الخارجية.",
                "ويفتتح {club} مشواره في الموسم بمواجهة قوية على ملعبه.",
            ),
            section="sportsNews",
        ),
    ),
)
