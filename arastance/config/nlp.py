"""Claim analysis: where Stanza's Arabic models live and whether to use them."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel


class NlpSettings(BaseModel):
    """``auto`` uses Stanza when its Arabic models are installed, the rule-based analyzer otherwise."""

    analyzer: Literal["auto", "stanza", "rules"] = "auto"
    stanza_dir: Path | None = None
