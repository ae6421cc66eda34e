"""Claim analysis: where Stanza's Arabic models live and whether to use them."""

from pathlib import Path
from typing import Literal

from arastance.config.base import SettingsGroup


class NlpSettings(SettingsGroup):
    """``auto`` uses Stanza when its Arabic models are installed, the rule-based analyzer otherwise."""

    analyzer: Literal["auto", "stanza", "rules"] = "auto"
    stanza_dir: Path | None = None
