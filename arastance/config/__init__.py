"""Typed settings, one object for the whole pipeline.

Values come, highest priority first, from keyword arguments, ``ARASTANCE_*`` environment
variables (nested groups with ``__``, e.g. ``ARASTANCE_SEARCH__BACKEND=brave``), an
``arastance.toml`` file (path in ``ARASTANCE_CONFIG``, default ``./arastance.toml``) and the
defaults below. Each stage owns one settings group in its own module of this package.
"""

from arastance.config.settings import Settings, SettingsError, load_settings, masked_settings

__all__ = ["Settings", "SettingsError", "load_settings", "masked_settings"]
