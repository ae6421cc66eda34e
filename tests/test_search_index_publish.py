"""A local index build is published whole: a load reads one build, whatever another process
publishes meanwhile, builds running at once never mix, and an index written before builds had
their own directories (its files at the top) still loads and is replaced by the next build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tasks.search.local import BUILDS_DIR, LocalIndex, build_dir, records_from_dicts

WORDS = ("جسر", "مطار", "ميناء", "قطار", "ملعب", "سوق")
Corpus = tuple[str, tuple[str, ...]]  # a site, and the words its articles are about, one each


def _rows(corpus: Corpus) -> list[dict[str, str]]:
    """The corpus as JSON Lines rows: one article of the site per word."""
    site, words = corpus
    return [{"url": f"https://{site}/{word}", "title": word, "text": f"خبر عن {word} {word} {word}", "domain": site}
            for word in words]


def _build(corpus: Corpus, index_dir: Path) -> str:
    """Build ``corpus`` into ``index_dir``; its build id."""
    return LocalIndex.build(records_from_dicts(_rows(corpus)), index_dir).build_id or ""


def _build_elsewhere(corpus: Corpus, index_dir: Path, rounds: int = 1) -> subprocess.Popen[bytes]:
    """Another process's `arastance index build` of ``corpus`` (``rounds`` times over)."""
    code = ("import json, sys; from pathlib import Path; from tasks.search.local import LocalIndex, records_from_dicts\n"
            "rows, target, rounds = json.loads(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])\n"
            "for _ in range(rounds): LocalIndex.build(records_from_dicts(rows), target)")
    return subprocess.Popen([sys.executable, "-c", code, json.dumps(_rows(corpus)), str(index_dir), str(rounds)])


def _assert_whole(index: LocalIndex, builds: dict[str, Corpus]) -> str:
    """The site of the one build ``index`` is: its id, its documents and its scores all that build's."""
    assert index.build_id in builds, f"build id {index.build_id} is none of the builds"
    site, words = builds[index.build_id]
    assert len(index) == len(words)
    for word in words:
        assert [r.url for r in index.search(word, None, 3)] == [f"https://{site}/{word}"]
    return site


@pytest.mark.parametrize("layout", ["builds", "files at the top"])
@pytest.mark.parametrize("count", [3, 5])  # as many documents as the old build (a mix passed unseen) or more
def test_a_build_published_while_an_index_loads_leaves_the_load_one_whole_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, count: int) -> None:
    # it was: the loader read the old scores, then the new documents and build id, so "جسر" found
    # https://b.example/قطار, cached under the new build's name for good
    index_dir = tmp_path / "index"
    old, new = ("a.example", WORDS[:3]), ("b.example", WORDS[count - 1::-1])  # other words at each place
    if layout == "builds":
        builds = {_build(old, index_dir): old}
    else:  # as written before builds had their own directories
        builds = {_build(old, tmp_path / "made"): old}
        shutil.copytree(build_dir(tmp_path / "made"), index_dir)
    builds[_build(new, tmp_path / "other")] = new
    read_table = pq.read_table

    def read_while_a_build_is_published(*args: object, **kwargs: object) -> object:
        monkeypatch.setattr(pq, "read_table", read_table)
        assert _build_elsewhere(new, index_dir).wait(timeout=120) == 0
        return read_table(*args, **kwargs)

    monkeypatch.setattr(pq, "read_table", read_while_a_build_is_published)
    loaded = LocalIndex.load(index_dir)
    # a build directory stays as it was: its load is the first build; files at the top were replaced
    # meanwhile: they are read again, from the new build
    assert _assert_whole(loaded, builds) == ("a.example" if layout == "builds" else "b.example")
    assert _assert_whole(LocalIndex.load(index_dir), builds) == "b.example"


def test_an_index_of_files_at_the_top_loads_and_the_next_builds_replace_it(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    old = ("a.example", WORDS[:3])
    built = _build(old, tmp_path / "made")
    shutil.copytree(build_dir(tmp_path / "made"), index_dir)
    assert _assert_whole(LocalIndex.load(index_dir), {built: old}) == "a.example"
    builds = {_build(corpus, index_dir): corpus for corpus in (("b.example", WORDS[:4]), ("c.example", WORDS[1:]))}
    assert _assert_whole(LocalIndex.load(index_dir), builds) == "c.example"
    top = sorted(p.name for p in index_dir.iterdir() if not p.is_dir() or p.is_symlink())
    assert top == [".build.lock", "current", "docs.parquet"]  # the old files are gone
    assert len(list((index_dir / BUILDS_DIR).iterdir())) == 2  # the current build and the one before


def test_an_index_copied_following_its_links_loads_and_the_next_build_replaces_it(tmp_path: Path) -> None:
    # it was: the copy's `current` was a directory, and reading it as a link failed both load and build (EINVAL)
    first = ("a.example", WORDS[:3])
    built = _build(first, tmp_path / "index")
    shutil.copytree(tmp_path / "index", tmp_path / "copy")  # links followed, as copytree and cp -L do
    assert _assert_whole(LocalIndex.load(tmp_path / "copy"), {built: first}) == "a.example"
    second = ("b.example", WORDS[1:])
    rebuilt = _build(second, tmp_path / "copy")
    assert _assert_whole(LocalIndex.load(tmp_path / "copy"), {rebuilt: second}) == "b.example"
    assert (tmp_path / "copy" / "current").is_symlink()


def test_builds_running_at_once_each_publish_whole_and_loads_meanwhile_read_one(tmp_path: Path) -> None:
    # it was: two builds moved their files into place one by one, interleaved, and a load
    # meanwhile mixed them (documents of one, scores of another, the build id of either)
    index_dir = tmp_path / "index"
    corpora = [(f"s{count}.example", WORDS[count:] + WORDS[:count]) for count in range(4)]  # rotated words
    builds = {_build(corpus, tmp_path / corpus[0]): corpus for corpus in corpora}
    _build(corpora[0], index_dir)
    running = [_build_elsewhere(corpus, index_dir, rounds=6) for corpus in corpora]
    loads = 0
    deadline = time.monotonic() + 300
    while any(proc.poll() is None for proc in running) and time.monotonic() < deadline:
        _assert_whole(LocalIndex.load(index_dir), builds)
        loads += 1
    assert [proc.wait(timeout=60) for proc in running] == [0] * len(running) and loads
    _assert_whole(LocalIndex.load(index_dir), builds)
    assert len(list((index_dir / BUILDS_DIR).iterdir())) <= 2  # older builds and partial directories removed
