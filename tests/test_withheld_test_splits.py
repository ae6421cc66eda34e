"""An absent test split (the public corpora withhold theirs) is skipped; one that is there but damaged fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_stance import arastance_records, khouja_rows, tiny_examples, write_arastance, write_baly, write_khouja

from flows.evaluate import load_optional_split_task
from tasks.stance.datasets import DatasetError, SplitAbsentError

optional_split = load_optional_split_task.fn  # the task's own logic, without a Prefect run around it


def _baly_claim(cid: str) -> dict:
    return {"id": cid, "claim": f"ادعاء {cid}", "fact": "false", "article": [f"مقال عن {cid}"],
            "url": [f"https://site.example/{cid}"], "stance": ["agree"], "rationale": [""]}


def test_an_absent_test_file_or_fold_is_skipped(tmp_path: Path) -> None:
    write_khouja(tmp_path / "khouja", "dev", khouja_rows(tiny_examples()))
    write_arastance(tmp_path / "arastance", "dev", arastance_records(tiny_examples()))
    assert optional_split("khouja", tmp_path / "khouja", "test", None) is None
    assert optional_split("arastance", tmp_path / "arastance", "test", None) is None
    four_folds = write_baly(tmp_path / "baly4", {n: [f"R-{n}"] for n in range(1, 5)},
                            {f"R-{n}": _baly_claim(f"R-{n}") for n in range(1, 5)})
    assert optional_split("baly", four_folds, "test", None) is None
    withheld = write_baly(tmp_path / "baly", {**{n: [f"R-{n}"] for n in range(1, 5)}, 5: ["T-1", "T-2"]},
                          {f"R-{n}": _baly_claim(f"R-{n}") for n in range(1, 5)})  # fold 5's claim files withheld
    assert optional_split("baly", withheld, "test", None) is None


def test_a_test_split_that_is_there_but_damaged_fails_naming_it(tmp_path: Path) -> None:
    # it was: any unreadable test split was a warning, and `evaluate` ended with no test score and exit 0
    records = arastance_records(tiny_examples())
    records[1]["stance"][0] = "Supports"
    write_arastance(tmp_path / "arastance", "test", records)
    with pytest.raises(DatasetError, match=r"test\.jsonl, line 2.*unknown stance label 'Supports'") as err:
        optional_split("arastance", tmp_path / "arastance", "test", None)
    assert not isinstance(err.value, SplitAbsentError)
    half = write_baly(tmp_path / "baly", {**{n: [f"R-{n}"] for n in range(1, 5)}, 5: ["T-1", "T-2"]},
                      {cid: _baly_claim(cid) for cid in ["R-1", "R-2", "R-3", "R-4", "T-1"]})  # T-2's file lost
    with pytest.raises(DatasetError, match=r"claim file .*T-2\.json of fold 5 \(claim T-2\) does not exist"):
        optional_split("baly", half, "test", None)
