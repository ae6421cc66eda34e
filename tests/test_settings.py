"""Configuration: defaults, environment, arastance.toml, validation errors and masking."""

from pathlib import Path

import pytest

from arastance.config import SettingsError, load_settings, masked_settings


def test_defaults_derive_the_warehouse_from_the_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARASTANCE_DATA_DIR")
    s = load_settings()
    assert s.data_dir == Path("data")
    assert s.warehouse == Path("data/warehouse.duckdb")
    assert s.search.backend == "local"
    assert s.selection.window_months == 3 and s.selection.top_k == 10


def test_environment_overrides_nested_groups(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BACKEND", "brave")
    monkeypatch.setenv("ARASTANCE_SELECTION__TOP_K", "7")
    monkeypatch.setenv("ARASTANCE_WAREHOUSE_PATH", str(tmp_path / "w.duckdb"))
    s = load_settings()
    assert s.search.backend == "brave"
    assert s.selection.top_k == 7
    assert s.warehouse == tmp_path / "w.duckdb"


def test_toml_file_is_read_and_environment_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "arastance.toml").write_text(
        '[selection]\nwindow_months = 4\ntop_k = 3\n[sites]\ndabegad = "http://127.0.0.1:9/dabegad/"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("ARASTANCE_SELECTION__TOP_K", "5")
    s = load_settings()
    assert s.selection.window_months == 4
    assert s.selection.top_k == 5
    assert str(s.sites.dabegad) == "http://127.0.0.1:9/dabegad/"


@pytest.mark.parametrize(
    ("var", "value", "named"),
    [
        ("ARASTANCE_SEARCH__BACKEND", "bing", "search.backend (ARASTANCE_SEARCH__BACKEND)"),
        ("ARASTANCE_SELECTION__TOP_K", "0", "selection.top_k (ARASTANCE_SELECTION__TOP_K)"),
        ("ARASTANCE_SITES__REUTERS", "not a url", "sites.reuters (ARASTANCE_SITES__REUTERS)"),
        ("ARASTANCE_LOG_LEVEL", "LOUD", "log_level"),
        ("ARASTANCE_PERIOD__START", "2012-13-01", "period.start (ARASTANCE_PERIOD__START)"),
        ("ARASTANCE_MODEL__CPU_JOBS", "0", "model.cpu_jobs (ARASTANCE_MODEL__CPU_JOBS): Value error, 0 runs nothing"),
        ("ARASTANCE_MODEL__SEED", "-1", "model.seed (ARASTANCE_MODEL__SEED)"),
        ("ARASTANCE_MODEL__SEED", str(2**32), "model.seed (ARASTANCE_MODEL__SEED)"),
        ("ARASTANCE_SITES__DABEGGAD", "https://dabegad.com/", "sites.dabeggad is not a registered site (registered: "
         "araanews, dabegad,"),
        ("ARASTANCE_NLP__STANZA_RESOURCES_URL", "/srv/stanza-resources",
         "nlp.stanza_resources_url (ARASTANCE_NLP__STANZA_RESOURCES_URL): Value error, must be an http(s) URL"),
    ],
)
def test_invalid_values_fail_naming_the_setting(monkeypatch: pytest.MonkeyPatch, var: str, value: str, named: str) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert named in str(err.value)
    assert str(err.value).count(repr(value)) <= 1, "the value is quoted once"  # it was: "got '…' (got '…')"


@pytest.mark.parametrize("var", ["ARASTANCE_DATA_DIR", "ARASTANCE_WAREHOUSE_PATH", "ARASTANCE_SEARCH__INDEX_DIR",
                                 "ARASTANCE_MODEL__DATASETS_DIR", "ARASTANCE_NLP__STANZA_DIR",
                                 "ARASTANCE_CRAWL__DEBUNK_PATTERNS_PATH", "ARASTANCE_ANNOTATION__EXPORT_DIR"])
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_path_is_refused_naming_the_setting(monkeypatch: pytest.MonkeyPatch, var: str, value: str) -> None:
    # it was: Path("") is ".", so ARASTANCE_SEARCH__INDEX_DIR= wrote the index into the working directory; an
    # empty date (ARASTANCE_PERIOD__START=) was refused all along
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    named = var.removeprefix("ARASTANCE_").lower().replace("__", ".")
    assert f"invalid setting {named} ({var}): Value error, an empty path would be the working directory" in \
        str(err.value)


def test_an_empty_path_in_the_toml_file_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "arastance.toml").write_text('[search]\nindex_dir = ""\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"search.index_dir \(ARASTANCE_SEARCH__INDEX_DIR\): Value error, an empty"):
        load_settings()


@pytest.mark.parametrize(("value", "reason"), [("https://", "empty host"),
                                               ("https://mis bar.com/", "invalid international domain name"),
                                               ("ftp://misbar.com/", "URL scheme should be 'http' or 'https'")])
def test_an_extra_site_url_is_checked_as_the_named_sites_are(monkeypatch: pytest.MonkeyPatch, value: str,
                                                             reason: str) -> None:
    # it was: only an http(s) prefix was checked, so "https://" passed and the crawl failed on it
    monkeypatch.setenv("ARASTANCE_SITES__ARAANEWS", value)
    with pytest.raises(SettingsError, match=reason):
        load_settings()
    monkeypatch.delenv("ARASTANCE_SITES__ARAANEWS")
    monkeypatch.setenv("ARASTANCE_SITES__MISBAR", value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "sites.misbar (ARASTANCE_SITES__MISBAR): " in str(err.value) and reason in str(err.value)
    assert f"(got {value!r})" in str(err.value)


def test_an_extra_site_url_is_kept_as_the_named_sites_are_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SITES__MISBAR", "http://127.0.0.1:8800/misbar")
    monkeypatch.setenv("ARASTANCE_SITES__ARAANEWS", "http://127.0.0.1:8800/araanews")
    sites = load_settings().sites
    assert sites.base_url("misbar") == "http://127.0.0.1:8800/misbar"
    assert sites.base_url("araanews") == "http://127.0.0.1:8800/araanews"


def test_news_domains_are_read_as_candidate_domains_are_written(tmp_path: Path) -> None:
    # a www. entry matched no candidate (their domains have no www.), so youm7 was no news source
    (tmp_path / "arastance.toml").write_text(
        '[search]\nnews_domains = ["www.youm7.com", "M.Masrawy.com.", "youm7.com"]\n'
        'stance_dataset_domains = ["www.reuters.com"]\n', encoding="utf-8")
    s = load_settings()
    assert s.search.news_domains == ["youm7.com", "masrawy.com"]
    assert s.search.stance_dataset_domains == ["reuters.com"]


@pytest.mark.parametrize("entry", ["https://www.youm7.com/", "youm7.com/news", "youm7", "you m7.com", ""])
def test_a_news_domain_that_is_not_a_host_name_is_refused_naming_it(tmp_path: Path, entry: str) -> None:
    (tmp_path / "arastance.toml").write_text(f'[search]\nnews_domains = ["aljazeera.net", "{entry}"]\n',
                                             encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "search.news_domains" in str(err.value) and f"news domain {entry!r} is not a host name" in str(err.value)


def test_a_data_directory_that_is_a_file_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # it was: accepted, and each command failed later naming a path under it ("warehouse afile/warehouse.duckdb does
    # not exist; run `arastance warehouse migrate`", which then failed too)
    a_file = tmp_path / "data"
    a_file.write_text("kept\n", encoding="utf-8")
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(a_file))
    with pytest.raises(SettingsError, match=f"data_dir \\(ARASTANCE_DATA_DIR\\): Value error, '{a_file}' is a file, "
                                            "not a directory; the data directory is one, or is made where nothing is"):
        load_settings()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")  # mkdir fails there too
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(tmp_path / "dangling"))
    with pytest.raises(SettingsError, match="dangling' is a symbolic link to nothing, not a directory"):
        load_settings()
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(tmp_path / "not-yet"))  # one made on first use is fine
    assert load_settings().data_dir == tmp_path / "not-yet"


def test_unknown_key_in_toml_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "arastance.toml").write_text("[search]\nbakend = 'local'\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=r"search\.bakend"):
        load_settings()


@pytest.mark.parametrize("group", ["sites", "crawl", "selection", "search", "nlp", "annotation", "model", "orchestration"])
def test_every_group_rejects_an_unknown_key(tmp_path: Path, group: str) -> None:
    (tmp_path / "arastance.toml").write_text(f"[{group}]\ntop_kk = 3\n", encoding="utf-8")
    with pytest.raises(SettingsError, match=rf"{group}\.top_kk"):
        load_settings()


def test_derived_paths_follow_their_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARASTANCE_DATA_DIR", str(tmp_path / "d"))
    s = load_settings()
    assert (s.annotation_dir, s.dataset_dir, s.models_dir) == (tmp_path / "d/annotation", tmp_path / "d/dataset", tmp_path / "d/models")
    assert s.embedding_cache == tmp_path / "d/cache/e5.sqlite" and s.search_index_dir == tmp_path / "d/search_index"
    monkeypatch.setenv("ARASTANCE_ANNOTATION__TASKS_DIR", str(tmp_path / "tasks"))
    monkeypatch.setenv("ARASTANCE_ANNOTATION__EXPORT_DIR", str(tmp_path / "export"))
    monkeypatch.setenv("ARASTANCE_MODEL__MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ARASTANCE_SEARCH__INDEX_DIR", str(tmp_path / "index"))
    s = load_settings()
    assert (s.annotation_dir, s.dataset_dir, s.models_dir, s.search_index_dir) == (
        tmp_path / "tasks", tmp_path / "export", tmp_path / "models", tmp_path / "index")


def test_missing_named_config_file_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_CONFIG", "nowhere.toml")
    with pytest.raises(SettingsError, match="nowhere.toml"):
        load_settings()


def test_malformed_toml_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "arastance.toml").write_text("[search\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="arastance.toml"):
        load_settings()


def test_secrets_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__GOOGLE_API_KEY", "AIza-very-secret")
    shown = masked_settings(load_settings())
    assert shown["search"]["google_api_key"] == "****"
    assert "AIza-very-secret" not in repr(shown)


def test_a_period_ending_before_it_starts_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_PERIOD__START", "2018-12-31")
    monkeypatch.setenv("ARASTANCE_PERIOD__END", "2012-01-01")
    with pytest.raises(SettingsError, match="period.start 2018-12-31 is after period.end 2012-01-01"):
        load_settings()


def test_every_transformer_members_seed_must_be_one_numpy_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: accepted, and the last member failed only after the others had trained
    monkeypatch.setenv("ARASTANCE_MODEL__SEED", str(2**32 - 2))
    assert load_settings().model.seed == 2**32 - 2
    monkeypatch.setenv("ARASTANCE_MODEL__TRANSFORMER_MEMBERS", "3")
    with pytest.raises(SettingsError, match=r"model.seed 4294967294 \+ model.transformer_members 3 - 1 is more than"):
        load_settings()
