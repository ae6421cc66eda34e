"""``arastance config``: inspect the effective settings."""

import json

import typer

from arastance.cli.common import console, settings
from arastance.config import masked_settings

config_app = typer.Typer(help="Inspect the configuration (environment, arastance.toml, defaults).", no_args_is_help=True)


@config_app.command("show")
def show() -> None:
    """Print the effective settings as JSON, with every secret masked."""
    console.print_json(json.dumps(masked_settings(settings()), ensure_ascii=False))


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
