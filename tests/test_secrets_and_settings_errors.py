"""Secrets stay out of every error, log line and Prefect state; settings errors blame the right source."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_search import ApiServer, Reply
from pydantic import SecretStr

from arastance.config import SettingsError, load_settings
from arastance.logging import KeyValueFormatter
from tasks.search.base import SearchError
from tasks.search.brave import BraveSearch
from tasks.search.google import GoogleSearch
from tasks.search.keys import resolve_key

KEY = "AIzaSy-leak-canary-0123456789"
PROJECT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("ARASTANCE_LOG_LEVEL", "LOUD"),                      # a model-level check saw every input
        ("ARASTANCE_SEARCH__RESULTS_PER_QUERY", "many"),
        ("ARASTANCE_SEARCH__GOOGLE_APIKEY", "typo"),          # an unknown key next to the real one
        ("ARASTANCE_SEARCH__MAX_RETRIES", "99"),
    ],
)
def test_settings_errors_never_echo_a_key(monkeypatch: pytest.MonkeyPatch, var: str, value: str) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__GOOGLE_API_KEY", KEY)
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY + "-brave")
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert KEY not in str(err.value)
    assert var.removeprefix("ARASTANCE_").lower().replace("__", ".") in str(err.value)


def test_the_cli_start_up_error_shows_no_key(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROJECT), "ARASTANCE_DATA_DIR": str(tmp_path),
           "ARASTANCE_SEARCH__GOOGLE_API_KEY": KEY, "ARASTANCE_LOG_LEVEL": "LOUD"}
    done = subprocess.run([sys.executable, "-c", "from arastance.cli import main; main()", "config", "show"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "log_level" in done.stderr and KEY not in done.stderr + done.stdout


def test_a_list_valued_environment_variable_error_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__GOOGLE_API_KEY", KEY)
    monkeypatch.setenv("ARASTANCE_SEARCH__NEWS_DOMAINS", "a.com,b.com")
    with pytest.raises(SettingsError) as err:
        load_settings()
    message = str(err.value)
    assert "ARASTANCE_SEARCH__NEWS_DOMAINS" in message and "JSON" in message
    assert "arastance.toml" not in message and KEY not in message


def test_a_settings_file_in_the_wrong_encoding_names_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    toml = tmp_path / "arastance.toml"
    toml.write_bytes('[selection]\ntop_k = 3\n# تعليق\n'.encode("cp1256"))
    monkeypatch.setenv("ARASTANCE_CONFIG", str(toml))
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value).startswith(f"{toml}, line 3, column 3:") and "UTF-8" in str(err.value)
    assert "\n" not in str(err.value)


def test_every_log_line_is_redacted_once_the_settings_hold_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SEARCH__BRAVE_API_KEY", KEY)
    load_settings()
    seen: list[str] = []

    class Capture(logging.Handler):  # a plain handler, like Prefect's API log handler: uses getMessage
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())
            seen.append(KeyValueFormatter().format(record))

    logger = logging.getLogger("arastance.test.leak")
    handler = Capture()
    logger.addHandler(handler)
    try:
        logger.warning("request to https://api.example/?key=%s failed", KEY, extra={"token": KEY})
    finally:
        logger.removeHandler(handler)
    assert seen and all(KEY not in line for line in seen)
    assert "key=****" in seen[0]


def test_keys_stay_secret_strings_up_to_the_request() -> None:
    key = resolve_key(SecretStr(KEY), None, "search.google_api_key")
    assert isinstance(key, SecretStr) and KEY not in repr(key) and KEY not in str(key)
    google = GoogleSearch(key, "cx-1", endpoint="http://127.0.0.1:1/")
    assert KEY not in repr(google) and KEY not in repr(vars(google))


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([1, 2, 3], "a JSON list"),
        ({"items": "oops"}, "'items' is a str"),
        ({"items": [["not", "an", "object"]]}, "items[0] is not a result object"),
        ({"items": [{"link": 42}]}, "items[0] is not a result object"),
    ],
)
def test_a_wrong_shaped_google_answer_is_a_clear_search_error(body: object, field: str) -> None:
    server = ApiServer(lambda r: Reply(body=body))
    with server.running():
        with pytest.raises(SearchError) as err:
            GoogleSearch(KEY, "cx-1", endpoint=server.url + "/customsearch/v1", max_retries=0).search("q", None, 10)
    assert field in str(err.value) and "google search: unexpected answer" in str(err.value)
    assert KEY not in str(err.value)


@pytest.mark.parametrize("body", [{"web": ["x"]}, {"web": {"results": {"url": "u"}}}, {"web": {"results": [None]}}])
def test_a_wrong_shaped_brave_answer_is_a_clear_search_error(body: object) -> None:
    server = ApiServer(lambda r: Reply(body=body))
    with server.running():
        with pytest.raises(SearchError, match="brave search: unexpected answer"):
            BraveSearch(KEY, endpoint=server.url, max_retries=0).search("q", None, 5)


def test_odd_optional_google_metadata_only_loses_the_date() -> None:
    item = {"link": "https://news.example/a", "title": "t", "pagemap": ["not", "a", "map"]}
    server = ApiServer(lambda r: Reply(body={"items": [item]}))
    with server.running():
        results = GoogleSearch(KEY, "cx-1", endpoint=server.url, max_retries=0).search("q", None, 10)
    assert [r.url for r in results] == ["https://news.example/a"] and results[0].published_date is None


URL_PASSWORDS = {  # every URL-valued setting, a site's address (an extra field) included
    "ARASTANCE_SEARCH__SEARXNG_URL": ("https://alice:S3cretPW@searx.example.org/", "S3cretPW"),
    "ARASTANCE_CRAWL__ARCHIVE_URL": ("https://bob:ArchPW@wayback.example.org/", "ArchPW"),
    "ARASTANCE_NLP__STANZA_RESOURCES_URL": ("https://carol:StanzaPW@models.example.org/stanza", "StanzaPW"),
    "ARASTANCE_MODEL__ARASTANCE_URL": ("https://dave:ModelPW@data.example.org/arastance.zip", "ModelPW"),
    "ARASTANCE_SITES__MISBAR": ("https://erin:Site%40PW@misbar.example.org/", "Site%40PW"),
}


def test_config_show_hides_the_password_of_every_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from arastance.config import masked_settings

    for var, (url, _) in URL_PASSWORDS.items():
        monkeypatch.setenv(var, url)
    shown = repr(masked_settings(load_settings()))
    assert not [pw for _, pw in URL_PASSWORDS.values() if pw in shown]
    assert "https://alice:****@searx.example.org/" in shown and "https://erin:****@misbar.example.org/" in shown


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("ARASTANCE_SEARCH__SEARXNG_URL", "https://alice:S3cretPW@searx.example.org:99999/"),  # pydantic echoes it
        ("ARASTANCE_NLP__STANZA_RESOURCES_URL", "ftp://alice:S3cretPW@models.example.org/"),   # our message quotes it
        ("ARASTANCE_SITES__MISBAR", "https://alice:S3cretPW@misbar.example.org:99999/"),
    ],
)
def test_an_invalid_url_setting_is_named_without_its_password(
    monkeypatch: pytest.MonkeyPatch, var: str, value: str
) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "S3cretPW" not in str(err.value) and "alice:****@" in str(err.value)


def test_log_lines_hide_the_password_of_a_url_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    for var, (url, _) in URL_PASSWORDS.items():
        monkeypatch.setenv(var, url)
    load_settings()
    record = logging.getLogRecordFactory()("arastance.test.leak", logging.WARNING, __file__, 1,
                                           "login failed with %s and %s", ("S3cretPW", "Site@PW"), None)
    assert record.getMessage() == "login failed with **** and ****"


def test_a_url_password_of_letters_only_is_hidden_in_urls_and_leaves_the_word_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # it was: the bare word was registered, and every log line lost it (backend=****, data/****/warehouse.duckdb)
    monkeypatch.setenv("ARASTANCE_SEARCH__SEARXNG_URL", "http://admin:searxng@127.0.0.1:8888/")
    load_settings()
    record = logging.getLogRecordFactory()("arastance.test.leak", logging.WARNING, __file__, 1,
                                           "backend=%s asked %s", ("searxng", "http://admin:searxng@127.0.0.1:8888/"), None)
    assert record.getMessage() == "backend=searxng asked http://admin:****@127.0.0.1:8888/"


def test_a_process_whose_only_secret_is_a_url_password_hides_it_from_every_handler() -> None:
    # it was: with no key to register, the redacting record factory was never installed, and a plain
    # `%(message)s` handler (Prefect's, Scrapy's) got http://admin:searxng@… in the clear
    code = ("import logging, sys\n"
            "from arastance.config import load_settings\n"
            "load_settings()\n"
            "logging.basicConfig(stream=sys.stdout, format='%(message)s', level=logging.INFO)\n"
            "logging.getLogger('httpx').info('HTTP Request: GET %s', 'http://admin:searxng@127.0.0.1:8888/?q=x')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARASTANCE_")}
    env["ARASTANCE_SEARCH__SEARXNG_URL"] = "http://admin:searxng@127.0.0.1:8888/"
    env["ARASTANCE_DATA_DIR"] = os.environ["ARASTANCE_DATA_DIR"]
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                           cwd=Path(__file__).resolve().parents[1])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "HTTP Request: GET http://admin:****@127.0.0.1:8888/?q=x"


@pytest.mark.parametrize("value", ["op:Sesame@mirror.example/norumors/", "http//op:Sesame@mirror.example/",
                                   "https://op:Sesame/9x@mirror.example/", "op:Sesame/9x@mirror.example/",
                                   "ops@example.org:Sesame9x@mirror.example/"])
def test_a_url_setting_that_is_no_url_is_echoed_without_its_password(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ARASTANCE_SITES__NORUMORS", value)  # the scheme forgotten or mistyped
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "Sesame" not in str(err.value)  # it was: "(got 'op:Sesame@mirror.example/norumors/')"
    assert ":****@mirror.example/" in str(err.value) and "ARASTANCE_SITES__NORUMORS" in str(err.value)


@pytest.mark.parametrize("value", ["http//op:Ses@me9x@mirror.example/", "op:Ses ame9x@mirror.example/",
                                   "http//op:S'e\"s@me9x@mirror.example/", "op:Ses @me9x@mirror.example/"])
def test_a_rejected_value_is_echoed_without_a_password_holding_an_at_sign_a_space_or_a_quote(
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("ARASTANCE_SITES__NORUMORS", value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "me9x" not in str(err.value)  # it was: "http//op:****@me9x@mirror.example/", "op:Ses ame9x@..." whole
    assert "op:****@mirror.example/" in str(err.value)


def test_an_address_in_a_rejected_value_is_not_taken_for_a_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARASTANCE_SITES__NORUMORS", "mailto:ops@example.org")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "mailto:ops@example.org" in str(err.value)  # it was: "mailto:****@example.org"
