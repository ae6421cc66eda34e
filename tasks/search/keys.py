"""Where a web backend's key comes from: a Prefect Secret block, else the settings.

The key stays a :class:`~pydantic.SecretStr` up to the moment a client puts it in a request: its
repr and str are masked, so it shows in no traceback, Prefect state or parameter; it is never
logged (a key from a Secret block is registered with the log redactor too) and never stored.
"""

from __future__ import annotations

from pydantic import SecretStr

from arastance.logging import register_secrets
from tasks.search.base import SearchAuthError
from tasks.search.http import clean_key, env_var


def resolve_key(value: SecretStr | None, block_name: str | None, setting: str) -> SecretStr:
    """The key from Prefect Secret block ``block_name`` when one is named, else from ``value``.

    ``setting`` names the settings field (e.g. ``search.brave_api_key``) for the error message.
    The whitespace around the key is dropped, and a key no HTTP request can carry is refused
    (:func:`~tasks.search.http.clean_key`).
    """
    if block_name:
        from prefect.blocks.system import Secret

        try:
            secret = Secret.load(block_name).get()
        except (ValueError, RuntimeError) as exc:
            raise SearchAuthError(f"cannot load Prefect Secret block {block_name!r} named by {setting}_block: "
                                  f"{type(exc).__name__}") from None
        plain = clean_key(str(secret or ""), f"Prefect Secret block {block_name!r} named by {setting}_block")
        if not plain:
            raise SearchAuthError(f"Prefect Secret block {block_name!r} named by {setting}_block is empty")
        register_secrets([plain])  # the key as it is sent, hence as a log line would show it
        return SecretStr(plain)
    env = env_var(setting)
    plain = clean_key(value, f"{setting} ({env})")
    if not plain:
        raise SearchAuthError(f"no key for {setting}: set {env} or {setting}_block")
    return SecretStr(plain)
