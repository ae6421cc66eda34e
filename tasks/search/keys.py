"""Where a web backend's key comes from: a Prefect Secret block, else the settings.

The key stays a :class:`~pydantic.SecretStr` up to the moment a client puts it in a request: its
repr and str are masked, so it shows in no traceback, Prefect state or parameter; it is never
logged (a key from a Secret block is registered with the log redactor too) and never stored.
"""

from __future__ import annotations

from pydantic import SecretStr

from arastance.logging import register_secrets
from tasks.search.base import SearchAuthError


def resolve_key(value: SecretStr | None, block_name: str | None, setting: str) -> SecretStr:
    """The key from Prefect Secret block ``block_name`` when one is named, else from ``value``.

    ``setting`` names the settings field (e.g. ``search.brave_api_key``) for the error message.
    """
    if block_name:
        from prefect.blocks.system import Secret

        try:
            secret = Secret.load(block_name).get()
        except (ValueError, RuntimeError) as exc:
            raise SearchAuthError(f"cannot load Prefect Secret block {block_name!r} named by {setting}_block: "
                                  f"{type(exc).__name__}") from None
        if not secret:
            raise SearchAuthError(f"Prefect Secret block {block_name!r} named by {setting}_block is empty")
        register_secrets([str(secret)])
        return SecretStr(str(secret))
    if value is None or not value.get_secret_value():
        env = "ARASTANCE_" + setting.replace(".", "__").upper()
        raise SearchAuthError(f"no key for {setting}: set {env} or {setting}_block")
    return value
