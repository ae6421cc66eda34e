"""Rounds: balanced seeded assignment, gold decisions, adjudication and the simulated campaign."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from helpers_annotation import T0, add_claims, add_gold, add_round, ls_annotation, ls_task, write_json

from arastance.base.ids import stable_id
from arastance.config import load_settings
from snapshots.demo.annotators import simulate_export, simulated_label
from snapshots.demo.campaign import run_demo_campaign
from tasks.annotation.assignment import adjudication_assignment, pilot_assignment, production_assignment
from tasks.annotation.gold import decide, decide_all
from tasks.annotation.records import AnnotationTask
from tasks.annotation.workflow import NoPairsLeftError, adjudicate, export_round, import_annotations, round_reports
from warehouse import Warehouse, WarehouseError, open_warehouse
from warehouse import annotation as store

POOL = ["ann-1", "ann-2", "ann-3"]


def test_production_assignment_is_balanced_distinct_and_reproducible() -> None:
    pairs = [f"p{i:03d}" for i in range(101)]
    out = production_assignment(pairs, POOL, 2, seed=3)
    per_pair = Counter(p for p, _ in out)
    assert set(per_pair) == set(pairs) and set(per_pair.values()) == {2}
    assert all(len({a for p2, a in out if p2 == p}) == 2 for p in pairs[:10])
    load = Counter(a for _, a in out)
    assert sum(load.values()) == 202 and max(load.values()) - min(load.values()) <= 1
    assert production_assignment(list(reversed(pairs)), POOL, 2, seed=3) == out  # input order does not matter
    assert production_assignment(pairs, POOL, 2, seed=4) != out
    with pytest.raises(ValueError, match="needs at least 4 annotators"):
        production_assignment(pairs, POOL, 4, seed=3)


def test_pilot_gives_a_seeded_sample_to_every_annotator() -> None:
    pairs = [f"p{i}" for i in range(30)]
    out = pilot_assignment(pairs, POOL, 10, seed=1)
    assert len(out) == 30 and Counter(a for _, a in out) == {a: 10 for a in POOL}
    assert out == pilot_assignment(set(pairs), POOL, 10, seed=1)


def test_adjudication_prefers_an_annotator_who_has_not_labelled_the_pair() -> None:
    disputed = {"p1": ("ann-1", "ann-2"), "p2": ("ann-1", "ann-3"), "p3": ("ann-2", "ann-3"), "p4": ("ann-1", "ann-2")}
    out = dict(adjudication_assignment(disputed, POOL, seed=0))
    assert out == {"p1": "ann-3", "p2": "ann-2", "p3": "ann-1", "p4": "ann-3"}
    everyone = adjudication_assignment({"p5": POOL, "p6": POOL, "p7": POOL}, POOL, seed=0)
    assert sorted(a for _, a in everyone) == POOL  # nobody is fresh: the pool shares the work


def test_adjudication_gives_a_pair_back_to_who_released_it_only_when_everyone_else_labelled_it() -> None:
    short = {f"s{i}": ("ann-1",) for i in range(4)}  # ann-1's label; ann-2 released the pair: one label short
    released = dict.fromkeys(short, ("ann-2",))
    out = adjudication_assignment(short, POOL, seed=0, released=released, short=short)
    assert {a for _, a in out} == {"ann-3"}  # it was: two each to ann-2 and ann-3, the least loaded
    # two labels differ, the only other annotator released it: they decide, not a disputant (it was: ann-1 or
    # ann-2, whose own label the adjudication label then made gold)
    [(_, decider)] = adjudication_assignment({"p": ("ann-1", "ann-2")}, POOL, seed=0, released={"p": ("ann-3",)})
    assert decider == "ann-3"
    # the disputants alone in the pool: one of them decides between the labels, as before releases were kept
    [(_, decider)] = adjudication_assignment({"p": ("ann-1", "ann-2")}, ["ann-1", "ann-2"], seed=0)
    assert decider in ("ann-1", "ann-2")
    # a short pair's stand-in label counts as a second opinion: its labeller would agree with themselves,
    # so the releaser (back in the pool, nobody else is) takes it
    back = adjudication_assignment({"s": ("ann-1",)}, ["ann-1", "ann-2"], seed=0, released={"s": ("ann-2",)}, short={"s"})
    assert back == [("s", "ann-2")]
    # ann-1 released these pairs from one round and labelled them in a later one: a labeller, not a releaser
    mixed = {f"m{i}": ("ann-1",) for i in range(4)}
    out = adjudication_assignment(mixed, ["ann-1", "ann-2"], seed=0, released=dict.fromkeys(mixed, ("ann-1", "ann-2")),
                                  short=mixed)
    assert {a for _, a in out} == {"ann-2"}
    # only its labeller is left: nobody takes it (their second label would make their own label gold), the rest go
    alone = adjudication_assignment({"s": ("ann-1",), "p": ("ann-1", "ann-2")}, ["ann-1"], seed=0,
                                    released={"s": ("ann-2",)}, short={"s"})
    assert alone == [("p", "ann-1")]


def _row(annotator: str, label: str, kind: str = "production", minute: int = 0) -> dict:
    return {"annotator_id": annotator, "label": label, "round_kind": kind, "annotated_at": datetime(2021, 1, 1, 0, minute)}


def test_gold_decision_rules() -> None:
    agreed = decide("p", [_row("a", "agree", minute=1), _row("b", "agree", minute=5)], expected_labels=2)
    assert (agreed.status, agreed.label, agreed.method, agreed.decided_at.minute) == ("gold", "agree", "agreed", 5)
    disputed = decide("p", [_row("a", "agree"), _row("b", "discuss")], expected_labels=2)
    assert (disputed.status, disputed.label, disputed.annotators) == ("disputed", None, ("a", "b"))
    adjudicated = decide("p", [_row("a", "agree"), _row("b", "discuss"), _row("c", "discuss", "adjudication", 9)], expected_labels=2)
    assert (adjudicated.label, adjudicated.method) == ("discuss", "adjudicated")
    # a pilot disagreement is settled by discussion, never by a 2-of-3 majority
    pilot_rows = [_row("a", "agree", "pilot"), _row("b", "agree", "pilot"), _row("c", "unrelated", "pilot")]
    majority = decide("p", pilot_rows, expected_labels=3)
    assert (majority.status, majority.label) == ("discussion", None)
    discussed = decide("p", pilot_rows, expected_labels=3,
                       discussed={"label": "unrelated", "decided_at": datetime(2021, 2, 1)})
    assert (discussed.status, discussed.label, discussed.method) == ("gold", "unrelated", "adjudicated")
    unanimous = decide("p", pilot_rows[:2], expected_labels=2)
    assert (unanimous.status, unanimous.label, unanimous.method) == ("gold", "agree", "agreed")
    # in production a third annotator's label still decides a two-against-one
    prod3 = decide("p", [_row("a", "agree"), _row("b", "agree"), _row("c", "unrelated")], expected_labels=2)
    assert (prod3.label, prod3.method) == ("agree", "adjudicated")
    assert decide("p", [_row("a", "agree")], expected_labels=2).status == "pending"
    single = decide("p", [_row("a", "agree")], expected_labels=1)
    assert (single.status, single.method) == ("gold", "single")
    # a discussion decides a pilot pair only once every label its round assigned is in
    early = decide("p", pilot_rows[:2], expected_labels=3, discussed={"label": "agree", "decided_at": datetime(2021, 2, 1)})
    assert (early.status, early.label) == ("pending", None)  # it was: gold 'agree', before the third label


def test_one_label_is_never_gold_where_the_method_asks_for_two() -> None:
    alone = decide("p", [_row("a", "agree")], expected_labels=1, required_labels=2)  # the other was released
    assert (alone.status, alone.label, alone.missing) == ("disputed", None, 1)  # it was: gold, method 'single'
    agreed = decide("p", [_row("a", "agree"), _row("c", "agree", "adjudication", 9)], expected_labels=1, required_labels=2)
    assert (agreed.status, agreed.label, agreed.method, agreed.decided_at.minute) == ("gold", "agree", "agreed", 9)
    # the stand-in's label differs: no one decides alone, a further annotator's label does
    two = [_row("a", "agree"), _row("c", "discuss", "adjudication", 9)]
    assert (decide("p", two, expected_labels=1, required_labels=2).status) == "disputed"
    third = decide("p", [*two, _row("d", "discuss", "adjudication", 20)], expected_labels=1, required_labels=2)
    assert (third.status, third.label, third.method) == ("gold", "discuss", "adjudicated")


def test_changing_annotators_per_pair_changes_no_decision_of_earlier_rounds() -> None:
    """The labels a pair needs come from its own rounds: raised to 3, the setting withdraws no gold two
    annotators agreed on; raised from 1 to 2, none a one-annotator round gave; only a pair a release left
    one label short of its round's two is not gold."""
    rows = [{"pair_id": "two", **_row("a", "agree")}, {"pair_id": "two", **_row("b", "agree")},
            {"pair_id": "one", **_row("a", "agree")}, {"pair_id": "short", **_row("a", "agree")}]
    assigned = {"two": 2, "one": 1, "short": 1}
    for per_pair in (1, 2, 3):
        one, short, two = decide_all(rows, assigned=assigned, annotators_per_pair=per_pair, released={"short": 1})
        assert (two.status, two.label, two.method) == ("gold", "agree", "agreed")  # 3: it was disputed
        assert (one.status, one.method) == ("gold", "single")  # 2 and 3: it was disputed, one label missing
        assert (short.status, short.missing) == ("disputed", 1)


def _label_file(tasks_file: Path, labels: dict[tuple[str, str], str], out: Path) -> Path:
    tasks = json.loads(tasks_file.read_text(encoding="utf-8"))
    return write_json(out, [
        ls_task(t["data"]["pair_id"], t["data"]["round"],
                [ls_annotation(t["data"]["annotator_id"], labels[(t["data"]["pair_id"], t["data"]["annotator_id"])])], i)
        for i, t in enumerate(tasks, start=1)
    ])


def test_a_pair_waits_for_every_label_its_round_assigned() -> None:
    for kind in ("pilot", "production"):
        two_agree = decide("p", [_row("a", "agree", kind), _row("b", "agree", kind)], expected_labels=3)
        two_differ = decide("p", [_row("a", "agree", kind), _row("b", "discuss", kind)], expected_labels=3)
        # it was: gold "agreed" (the third may differ) and "disputed" or "discussion" (the third may break it)
        assert (two_agree.status, two_agree.label) == ("pending", None)
        assert (two_differ.status, two_differ.label) == ("pending", None)
    all_in = decide("p", [_row("a", "agree"), _row("b", "discuss"), _row("c", "discuss")], expected_labels=3)
    assert (all_in.status, all_in.label, all_in.method) == ("gold", "discuss", "adjudicated")


def test_with_three_annotators_per_pair_a_pair_missing_a_label_is_pending_not_adjudicated(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    cfg = load_settings().annotation.model_copy(update={"annotators_per_pair": 3})
    [pair] = add_claims(warehouse, 1, 1)
    prod = export_round(warehouse, "production", cfg, tmp_path / "tasks")
    labels = {(pair, "ann-1"): "agree", (pair, "ann-2"): "discuss", (pair, "ann-3"): "discuss"}
    for annotator in ("ann-1", "ann-2"):
        import_annotations(warehouse, _label_file(prod.directory / f"{annotator}.json", labels, tmp_path / f"{annotator}.json"))
    waiting = adjudicate(warehouse, cfg, tmp_path / "tasks")
    # it was: disputed, and adjudication-1 gave the pair to ann-3, who still had it open in prod-1
    assert (waiting.gold, waiting.disputed, waiting.pending, waiting.new_round) == (0, 0, 1, None)
    assert list(store.round_kinds(warehouse)) == ["prod-1"]
    import_annotations(warehouse, _label_file(prod.directory / "ann-3.json", labels, tmp_path / "ann-3.json"))
    final = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (final.gold, final.disputed, final.pending, final.new_round) == (1, 0, 0, None)
    assert warehouse.query("SELECT label, method FROM gold_labels") == [{"label": "discuss", "method": "adjudicated"}]


def test_a_gold_label_is_withdrawn_once_its_pair_is_no_longer_decided(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    [pair] = add_claims(warehouse, 1, 1)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=1)
    labels = {(pair, "ann-1"): "agree", (pair, "ann-2"): "agree", (pair, "ann-3"): "unrelated"}
    for annotator in ("ann-1", "ann-2"):
        import_annotations(warehouse, _label_file(pilot.directory / f"{annotator}.json", labels, tmp_path / f"{annotator}.json"))
    add_gold(warehouse, {pair: "agree"})  # what deciding on two of the three pilot labels stored
    waiting = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (waiting.gold, waiting.pending, waiting.discussion_sheets) == (0, 1, [])
    assert warehouse.query("SELECT * FROM gold_labels") == []  # the dataset and status would take it as labelled
    import_annotations(warehouse, _label_file(pilot.directory / "ann-3.json", labels, tmp_path / "ann-3.json"))
    disputed = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (disputed.gold, disputed.discussion, disputed.discussion_sheets) == (0, 1, [pilot.directory / "discussion.csv"])
    assert warehouse.query("SELECT * FROM gold_labels") == [] and store.gold_summary(warehouse) == []


def test_the_status_report_counts_a_pilot_dispute_only_once_every_label_is_in(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    [pair] = add_claims(warehouse, 1, 1)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=1)
    labels = {(pair, "ann-1"): "agree", (pair, "ann-2"): "agree", (pair, "ann-3"): "unrelated"}
    for annotator in ("ann-1", "ann-3"):
        import_annotations(warehouse, _label_file(pilot.directory / f"{annotator}.json", labels, tmp_path / f"{annotator}.json"))
    # two differing labels of three: pending, so not disputed nor waiting for a discussion (it was: both)
    assert store.pilot_discussion_report(warehouse) == []
    import_annotations(warehouse, _label_file(pilot.directory / "ann-2.json", labels, tmp_path / "ann-2.json"))
    [report] = store.pilot_discussion_report(warehouse)
    assert (report["pilot_pairs"], report["disputed"], report["waiting"]) == (1, 1, 1)


def test_releasing_an_absent_annotators_assignments_lets_their_pairs_be_decided(warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.annotation.workflow import release_annotator

    cfg = load_settings().annotation
    [pair] = add_claims(warehouse, 1, 1)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=1)
    labels = {(pair, "ann-1"): "agree", (pair, "ann-2"): "agree"}
    for annotator in ("ann-1", "ann-2"):
        import_annotations(warehouse, _label_file(pilot.directory / f"{annotator}.json", labels, tmp_path / f"{annotator}.json"))
    assert adjudicate(warehouse, cfg, tmp_path / "tasks").pending == 1  # ann-3 never labels: pending for good
    with pytest.raises(ValueError, match="annotator 'ann-9' has no assignment"):
        release_annotator(warehouse, cfg, "ann-9")
    with pytest.raises(ValueError, match="no annotation round 'pilot-7'"):
        release_annotator(warehouse, cfg, "ann-3", "pilot-7")
    released, decisions = release_annotator(warehouse, cfg, "ann-3", "pilot-1")
    assert released == 1 and [(d.status, d.label, d.method) for d in decisions] == [("gold", "agree", "agreed")]
    assert warehouse.query("SELECT label, method FROM gold_labels") == [{"label": "agree", "method": "agreed"}]
    assert release_annotator(warehouse, cfg, "ann-1")[0] == 0  # labelled assignments are never released


def _label_as(wh: Warehouse, tmp_path: Path, round_name: str, annotator: str, labels: dict[str, str], when: str) -> None:
    payload = [ls_task(p, round_name, [ls_annotation(annotator, lab, when)], i) for i, (p, lab) in enumerate(labels.items(), 1)]
    import_annotations(wh, write_json(tmp_path / "labelled" / f"{round_name}-{annotator}.json", payload))


def test_a_release_that_leaves_a_production_pair_one_label_sends_it_to_another_annotator(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app

    settings = load_settings()
    with open_warehouse(settings.warehouse) as wh:
        pairs = add_claims(wh, 1, 2)
        add_round(wh, "prod-1", "production", [(p, a) for p in pairs for a in ("ann-1", "ann-2")])
        _label_as(wh, tmp_path, "prod-1", "ann-1", dict.fromkeys(pairs, "agree"), "2021-03-02T10:00:00Z")
    out = CliRunner().invoke(app, ["annotate", "release", "--annotator", "ann-2"], env={"COLUMNS": "300"})
    assert out.exit_code == 0, out.output
    assert "pairs now: 0 gold, 2 disputed" in out.output  # it was: 2 gold, method 'single'
    assert "2 of the disputed pair(s) hold one label where their round asked for two" in out.output
    assert "ann-2 is still in annotation.annotators" in out.output
    cfg = settings.annotation.model_copy(update={"annotators": ["ann-1", "ann-3", "ann-4"]})  # ann-2 left the pool
    with open_warehouse(settings.warehouse) as wh:
        assert wh.query("SELECT * FROM gold_labels") == []
        sent = adjudicate(wh, cfg, tmp_path / "tasks")
        assert (sent.gold, sent.disputed, sent.short) == (0, 2, 2) and sent.new_round is not None
        second = {r["pair_id"]: r["annotator_id"] for r in store.round_tasks(wh, "adjudication-1")}
        assert set(second) == set(pairs) and "ann-1" not in second.values()
        assert adjudicate(wh, cfg, tmp_path / "tasks").new_round is None  # not sent twice while it waits
        for p, lab in zip(pairs, ("agree", "discuss")):
            _label_as(wh, tmp_path, "adjudication-1", second[p], {p: lab}, "2021-03-03T10:00:00Z")
        after = adjudicate(wh, cfg, tmp_path / "tasks")
        gold = {r["pair_id"]: (r["label"], r["method"]) for r in wh.query("SELECT * FROM gold_labels")}
        assert gold == {pairs[0]: ("agree", "agreed")}  # two annotators agree
        # the second label differs from the first: a third annotator decides, as for any dispute
        assert after.new_round is not None and after.new_round.round == "adjudication-2" and after.short == 0
        [third] = [r["annotator_id"] for r in store.round_tasks(wh, "adjudication-2")]
        assert third not in ("ann-1", second[pairs[1]])
        _label_as(wh, tmp_path, "adjudication-2", third, {pairs[1]: "discuss"}, "2021-03-04T10:00:00Z")
        final = adjudicate(wh, cfg, tmp_path / "tasks")
        gold = {r["pair_id"]: (r["label"], r["method"]) for r in wh.query("SELECT * FROM gold_labels")}
    assert (final.gold, final.disputed) == (2, 0) and gold[pairs[1]] == ("discuss", "adjudicated")


def _short_pairs_released_by_ann_2(wh: Warehouse, tmp_path: Path, n: int) -> list[str]:
    """``n`` production pairs given to ann-1 and ann-2, labelled by ann-1; ann-2 released them."""
    pairs = add_claims(wh, 1, n)
    add_round(wh, "prod-1", "production", [(p, a) for p in pairs for a in ("ann-1", "ann-2")])
    _label_as(wh, tmp_path, "prod-1", "ann-1", dict.fromkeys(pairs, "agree"), "2021-03-02T10:00:00Z")
    assert len(store.release_assignments(wh, "ann-2", None)) == n
    return pairs


def test_adjudication_does_not_give_a_pair_back_to_the_annotator_who_released_it(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation  # ann-2 is still in the pool
    pairs = _short_pairs_released_by_ann_2(warehouse, tmp_path, 4)
    sent = adjudicate(warehouse, cfg, tmp_path / "tasks")
    # it was: two of the four to ann-2, who had said they would not label them, pending again for good
    assert {(r["pair_id"], r["annotator_id"]) for r in store.round_tasks(warehouse, "adjudication-1")} == {
        (p, "ann-3") for p in pairs}
    assert (sent.short, sent.returned) == (4, 0)


def test_a_pair_released_in_an_adjudication_round_goes_back_to_its_releaser_not_a_disputant(
        warehouse: Warehouse, tmp_path: Path) -> None:
    from tasks.annotation.workflow import release_annotator

    cfg = load_settings().annotation
    [pair] = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production", [(pair, "ann-1"), (pair, "ann-2")])
    _label_as(warehouse, tmp_path, "prod-1", "ann-1", {pair: "agree"}, "2021-03-02T10:00:00Z")
    _label_as(warehouse, tmp_path, "prod-1", "ann-2", {pair: "discuss"}, "2021-03-02T11:00:00Z")
    assert adjudicate(warehouse, cfg, tmp_path / "tasks").new_round is not None
    assert [r["annotator_id"] for r in store.round_tasks(warehouse, "adjudication-1")] == ["ann-3"]
    assert release_annotator(warehouse, cfg, "ann-3", "adjudication-1")[0] == 1
    again = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert again.new_round is not None and again.new_round.round == "adjudication-2"
    # ann-3, the only one outside the dispute, again, and the operator is told: a disputant's decision is
    # their own label made gold
    assert [r["annotator_id"] for r in store.round_tasks(warehouse, "adjudication-2")] == ["ann-3"]
    assert again.returned == 1


def test_a_short_pair_whose_pool_holds_only_its_labeller_is_not_adjudicated_by_them(
        warehouse: Warehouse, tmp_path: Path) -> None:
    """ann-2 released the pair and left the pool; ann-1's second label would have stood in for the missing
    one and made ann-1's own label gold ("agreed") on one annotator's word. The pair is listed, sent to
    nobody; a disputed pair beside it still goes to the adjudication round."""
    from typer.testing import CliRunner

    from arastance.cli import app

    cfg = load_settings().annotation.model_copy(update={"annotators": ["ann-1"]})
    [pair] = _short_pairs_released_by_ann_2(warehouse, tmp_path, 1)
    sent = adjudicate(warehouse, cfg, tmp_path / "tasks")  # it was: ann-1 adjudicated it, then gold "agreed"
    assert (sent.new_round, sent.stranded, sent.short, sent.disputed) == (None, [pair], 0, 1)
    assert list(store.round_kinds(warehouse)) == ["prod-1"] and warehouse.query("SELECT * FROM gold_labels") == []
    [other] = add_claims(warehouse, 1, 1, start=1)
    add_round(warehouse, "prod-2", "production", [(other, "ann-1"), (other, "ann-3")])
    _label_as(warehouse, tmp_path, "prod-2", "ann-1", {other: "agree"}, "2021-03-03T10:00:00Z")
    _label_as(warehouse, tmp_path, "prod-2", "ann-3", {other: "discuss"}, "2021-03-03T11:00:00Z")
    warehouse.close()
    env = {"COLUMNS": "300", "ARASTANCE_ANNOTATION__ANNOTATORS": '["ann-1"]'}
    out = CliRunner().invoke(app, ["annotate", "adjudicate"], env=env)
    assert out.exit_code == 0, out.output
    assert (f"1 pair(s) a release left one label short were sent to nobody, as annotation.annotators holds only who "
            f"labelled them ({pair}): add an annotator to the pool and run `annotate adjudicate` again"
            ) in " ".join(out.output.split())
    with open_warehouse(load_settings().warehouse) as wh:
        assert [(r["pair_id"], r["annotator_id"]) for r in store.round_tasks(wh, "adjudication-1")] == [(other, "ann-1")]


def test_a_pair_goes_back_to_who_released_it_only_when_nobody_else_is_in_the_pool(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arastance.cli import app

    env = {"COLUMNS": "300", "ARASTANCE_ANNOTATION__ANNOTATORS": '["ann-1", "ann-2"]'}  # a team of two; ann-2 is back
    with open_warehouse(load_settings().warehouse) as wh:
        pairs = add_claims(wh, 1, 2)
        add_round(wh, "prod-1", "production", [(p, a) for p in pairs for a in ("ann-1", "ann-2")])
        _label_as(wh, tmp_path, "prod-1", "ann-1", dict.fromkeys(pairs, "agree"), "2021-03-02T10:00:00Z")
    released = CliRunner().invoke(app, ["annotate", "release", "--annotator", "ann-2"], env=env)
    assert released.exit_code == 0, released.output
    assert ("the next round can give them pairs again (an adjudication round gives them back a pair they released "
            "only when everyone else in the pool labelled it)") in " ".join(released.output.split())
    out = CliRunner().invoke(app, ["annotate", "adjudicate"], env=env)
    assert out.exit_code == 0, out.output
    assert "2 of them went back to an annotator who released them" in " ".join(out.output.split())
    with open_warehouse(load_settings().warehouse) as wh:
        assert {r["annotator_id"] for r in store.round_tasks(wh, "adjudication-1")} == {"ann-2"}


def test_a_pair_released_whole_from_a_round_is_decided_by_the_round_that_hands_it_out_again(
        warehouse: Warehouse, tmp_path: Path) -> None:
    """Released before anyone labelled it, a pair goes back to the pool: the release of a round that no
    longer holds it asks nothing of the later round (it was: one label short, sent to adjudication)."""
    [pair] = add_claims(warehouse, 1, 1)
    add_round(warehouse, "prod-1", "production", [(pair, "ann-1")])
    assert store.release_assignments(warehouse, "ann-1", "prod-1") == [{"round": "prod-1", "pair_id": pair}]
    assert store.unassigned_pair_ids(warehouse) == {pair}
    add_round(warehouse, "prod-2", "production", [(pair, "ann-2")])
    _label_as(warehouse, tmp_path, "prod-2", "ann-2", {pair: "agree"}, "2021-03-02T10:00:00Z")
    cfg = load_settings().annotation.model_copy(update={"annotators_per_pair": 1})
    assert adjudicate(warehouse, cfg, tmp_path / "tasks").new_round is None
    assert warehouse.query("SELECT label, method FROM gold_labels") == [{"label": "agree", "method": "single"}]


def test_gold_labels_are_withdrawn_and_written_in_one_transaction(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 1, 2)
    add_gold(warehouse, {pairs[0]: "agree"})
    bad = [{"pair_id": pairs[1], "label": "maybe", "method": "agreed", "decided_at": T0}]
    with pytest.raises(WarehouseError):
        store.upsert_gold_labels(warehouse, bad, undecided=[pairs[0]])
    assert warehouse.query("SELECT pair_id, label FROM gold_labels") == [{"pair_id": pairs[0], "label": "agree"}]
    good = [{"pair_id": pairs[1], "label": "discuss", "method": "agreed", "decided_at": T0}]
    assert store.upsert_gold_labels(warehouse, good, undecided=[pairs[0]]) == 1
    assert warehouse.query("SELECT pair_id, label FROM gold_labels") == [{"pair_id": pairs[1], "label": "discuss"}]


def test_rounds_are_reported_in_round_order_not_as_text(warehouse: Warehouse) -> None:
    pairs = add_claims(warehouse, 11, 1)
    rows = []
    for i, pair in enumerate(pairs, start=1):
        name = f"prod-{i}"  # created in the same second, as a script's rounds are
        add_round(warehouse, name, "production", [(pair, "ann-1"), (pair, "ann-2")])
        rows += [{"annotation_id": stable_id(pair, a, name), "pair_id": pair, "annotator_id": a, "label": "agree",
                  "round": name, "round_kind": "production", "annotated_at": T0, "source_file": "x"}
                 for a in ("ann-1", "ann-2")]
    warehouse.insert_rows("annotations", rows)
    in_order = [f"prod-{i}" for i in range(1, 12)]
    assert [r.round for r in round_reports(warehouse)] == in_order  # it was: prod-1, prod-10, prod-11, prod-2, ...
    assert list(dict.fromkeys(r["round"] for r in store.progress(warehouse))) == in_order


def test_a_round_whose_files_find_the_disk_full_is_not_stored_and_leaves_no_files(warehouse: Warehouse, tmp_path: Path) -> None:
    from helpers_disk import small_disk

    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 40, 3)
    warehouse.con.execute("UPDATE articles SET text = repeat(text || ' ', 200)")  # long articles: big sheets
    with small_disk(tmp_path, 16) as disk:
        disk.fill(leave=200_000)
        with pytest.raises(OSError, match="No space left on device"):
            export_round(warehouse, "production", cfg, disk.root / "tasks")
        assert store.round_kinds(warehouse) == {} and store.unassigned_pair_ids(warehouse) == set(pairs)
        assert list((disk.root / "tasks").iterdir()) == []  # it was: prod-1/ with a JSON and a cut CSV
        disk.free()
        assert export_round(warehouse, "production", cfg, disk.root / "tasks").round == "prod-1"


def test_production_then_adjudication_gives_gold_labels(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 3, 2)  # six pairs
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a directory", encoding="utf-8")
    with pytest.raises(NotADirectoryError):  # its files cannot be written, so the round is not stored
        export_round(warehouse, "production", cfg, a_file)
    assert store.round_kinds(warehouse) == {} and store.unassigned_pair_ids(warehouse) == set(pairs)
    prod = export_round(warehouse, "production", cfg, tmp_path / "tasks")
    assert prod.round == "prod-1" and prod.pairs == 6 and prod.assignments == 12
    assigned = warehouse.query("SELECT pair_id, annotator_id FROM annotation_assignments")
    disputed_pair = pairs[0]
    labels = {(r["pair_id"], r["annotator_id"]): "agree" for r in assigned}
    first_two = sorted(a for p, a in labels if p == disputed_pair)
    labels[(disputed_pair, first_two[1])] = "discuss"
    for tasks_file in sorted(prod.directory.glob("*.json")):
        import_annotations(warehouse, _label_file(tasks_file, labels, tmp_path / "done" / tasks_file.name))
    progress = {(r["round"], r["annotator_id"]): (r["assigned"], r["done"]) for r in store.progress(warehouse)}
    assert sum(a for a, _ in progress.values()) == 12 and all(a == d for a, d in progress.values())
    with pytest.raises(NoPairsLeftError):
        export_round(warehouse, "production", cfg, tmp_path / "tasks")

    with pytest.raises(NotADirectoryError):
        adjudicate(warehouse, cfg, a_file)
    assert "adjudication-1" not in store.round_kinds(warehouse)
    result = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (result.gold, result.disputed, result.pending) == (5, 1, 0)
    assert result.new_round is not None and result.new_round.round == "adjudication-1"
    third = warehouse.query("SELECT pair_id, annotator_id FROM annotation_assignments WHERE round = 'adjudication-1'")
    assert len(third) == 1 and third[0]["pair_id"] == disputed_pair and third[0]["annotator_id"] not in first_two
    # adjudicating again does not send the same pair twice
    assert adjudicate(warehouse, cfg, tmp_path / "tasks").new_round is None

    adj_file = result.new_round.directory / f"{third[0]['annotator_id']}.json"
    import_annotations(warehouse, _label_file(adj_file, {(disputed_pair, third[0]["annotator_id"]): "discuss"}, tmp_path / "adj.json"))
    final = adjudicate(warehouse, cfg, tmp_path / "tasks")
    assert (final.gold, final.disputed) == (6, 0)
    gold = {r["pair_id"]: (r["label"], r["method"]) for r in warehouse.query("SELECT * FROM gold_labels")}
    assert gold[disputed_pair] == ("discuss", "adjudicated")
    assert Counter(m for _, m in gold.values()) == {"agreed": 5, "adjudicated": 1}
    quality = {r["annotator_id"]: (r["labelled_gold_pairs"], r["same_as_gold"]) for r in store.annotator_agreement(warehouse)}
    assert sum(n for n, _ in quality.values()) == 12 and quality[first_two[1]][0] - quality[first_two[1]][1] == 0
    assert quality[first_two[0]][0] - quality[first_two[0]][1] == 1  # said agree where gold is discuss
    [report] = round_reports(warehouse)
    assert report.round == "prod-1" and (report.shares.full, report.shares.none) == (5, 1)
    assert report.confusion == [{"label_a": "agree", "label_b": "discuss", "count": 1, "share": 1.0}]


def _task(pair: str, annotator: str) -> AnnotationTask:
    return AnnotationTask(pair, "pilot-1", annotator, "c", "ادعاء", "u", "dabegad", "a", "t", "https://x.example/a", "نص")


def test_simulated_disagreements_are_mostly_discuss_against_agree_or_unrelated() -> None:
    confusions: Counter[tuple[str, str]] = Counter()
    for i in range(3000):
        truth = ("agree", "unrelated", "discuss", "disagree")[i % 4]
        given = simulated_label(_task(f"p{i}", "ann-2"), truth, 0.8, seed=1)
        if given != truth:
            confusions[tuple(sorted((truth, given)))] += 1  # type: ignore[arg-type]
    involving_discuss = sum(n for pair, n in confusions.items() if "discuss" in pair)
    assert 0.1 < sum(confusions.values()) / 3000 < 0.3
    assert involving_discuss / sum(confusions.values()) > 0.7
    assert simulated_label(_task("p1", "ann-1"), "agree", 0.5, seed=9) == simulated_label(_task("p1", "ann-1"), "agree", 0.5, seed=9)


def test_simulated_export_is_seeded_and_goes_through_the_normal_import(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    add_claims(warehouse, 2, 2)
    pilot = export_round(warehouse, "pilot", cfg, tmp_path / "tasks", size=4)
    tasks_file = pilot.directory / "ann-1.json"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert simulate_export(tasks_file, lambda t: "agree", a, seed=2) == 4
    simulate_export(tasks_file, lambda t: "agree", b, seed=2)
    assert a.read_bytes() == b.read_bytes()
    assert import_annotations(warehouse, a).new == 4


def test_demo_campaign_runs_pilot_production_and_adjudication(warehouse: Warehouse, tmp_path: Path) -> None:
    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 12, 3)
    truth = {p: ("agree", "disagree", "discuss", "unrelated", "unrelated")[i % 5] for i, p in enumerate(pairs)}
    campaign = run_demo_campaign(warehouse, cfg, lambda t: truth[t.pair_id], tmp_path / "demo", seed=4, pilot_size=20)
    assert campaign.rounds[:2] == ["pilot-1", "prod-1"]
    assert campaign.gold == len(pairs) and campaign.disputed == 0
    pilot, prod = campaign.reports
    sent_to_third = warehouse.scalar("SELECT count(*) FROM annotation_assignments WHERE round = 'adjudication-1'")
    assert sent_to_third == prod.shares.none > 0  # every production pair the two annotators disputed, once
    # every pilot pair its three annotators did not all agree on was discussed, with a reason
    assert campaign.discussed == pilot.shares.partial + pilot.shares.none > 0
    reasons = warehouse.query("SELECT round, reason FROM pilot_discussions")
    assert len(reasons) == campaign.discussed and all(r["round"] == "pilot-1" and r["reason"] for r in reasons)
    assert campaign.rounds == ["pilot-1", "prod-1", "adjudication-1"]
    assert campaign.annotations == 20 * 3 + 16 * 2 + sent_to_third
    assert pilot.round == "pilot-1" and pilot.raters_per_pair == 3 and pilot.kappa_pairs == 20
    assert 0.3 < pilot.kappa <= 1.0
    gold = {r["pair_id"]: r["label"] for r in warehouse.query("SELECT pair_id, label FROM gold_labels")}
    assert sum(gold[p] == truth[p] for p in pairs) / len(pairs) > 0.85


def test_a_campaign_stopped_after_its_pilot_resumes_to_an_uninterrupted_ones_gold(warehouse: Warehouse, tmp_path: Path) -> None:
    from warehouse import open_warehouse

    cfg = load_settings().annotation
    pairs = add_claims(warehouse, 12, 3)
    truth = {p: ("agree", "disagree", "discuss", "unrelated", "unrelated")[i % 5] for i, p in enumerate(pairs)}
    pilot_pairs: set[str] = set()

    def stop_in_production(task: AnnotationTask) -> str:
        if task.round != "pilot-1":
            raise OSError(28, "No space left on device")
        pilot_pairs.add(task.pair_id)
        return truth[task.pair_id]

    with pytest.raises(OSError):
        run_demo_campaign(warehouse, cfg, stop_in_production, tmp_path / "demo", seed=4, pilot_size=20)
    assert store.round_kinds(warehouse) == {"pilot-1": "pilot", "prod-1": "production"} and pilot_pairs
    resumed = run_demo_campaign(warehouse, cfg, lambda t: truth[t.pair_id], tmp_path / "demo", seed=4, pilot_size=20)
    assert resumed.rounds == ["pilot-1", "prod-1", "adjudication-1"]  # it was: pilot-2, and other production pairs
    with open_warehouse(tmp_path / "clean.duckdb") as clean:
        add_claims(clean, 12, 3)
        run_demo_campaign(clean, cfg, lambda t: truth[t.pair_id], tmp_path / "clean", seed=4, pilot_size=20)
        expected = clean.query("SELECT pair_id, label FROM gold_labels ORDER BY pair_id")
    assert warehouse.query("SELECT pair_id, label FROM gold_labels ORDER BY pair_id") == expected
    again = run_demo_campaign(warehouse, cfg, lambda t: truth[t.pair_id], tmp_path / "demo", seed=4, pilot_size=20)
    assert again.annotations == 0 and again.gold == resumed.gold  # a finished campaign run again adds nothing


def test_world_truth_reads_the_snapshot_worlds_stances() -> None:
    from snapshots.world import build_world

    from snapshots.demo.campaign import world_truth

    world = build_world()
    truth = world_truth(world)
    post = world.posts[0]
    about = [a for a in world.articles if a.topic_id == post.rumour_id]
    other = next(a for a in world.articles if a.topic_id not in (None, post.rumour_id))
    claim_url = f"http://127.0.0.1:8080/{post.site}{post.path}"

    def task(source: str, url: str, article_url: str) -> AnnotationTask:
        return AnnotationTask("p", "r", "ann-1", "c", "ادعاء", url, source, "a", "t", article_url, "نص")

    assert about and [truth(task(post.site, claim_url, a.url)) for a in about] == [a.stance for a in about]
    assert truth(task(post.site, claim_url, other.url)) == "unrelated"
    headline = next(h for h in world.headlines if any(a.topic_id == h.headline_id for a in world.articles))
    story = next(a for a in world.articles if a.topic_id == headline.headline_id)
    assert truth(task("reuters", f"https://www.reuters.com{headline.path}", story.url)) == story.stance
    assert truth(task("dabegad", "https://dabegad.com/no/such/post/", story.url)) == "unrelated"
