"""``arastance config``: inspect the effective settings; write a preset."""

import json
from pathlib import Path

import typer

from arastance.cli.common import console, fail, print_table, require_stdout, settings
from arastance.cli.shown_text import assembled
from arastance.config import masked_settings
from arastance.config.presets import PresetError, preset_table, write_preset

config_app = typer.Typer(help="Inspect the configuration (environment, arastance.toml, defaults).", no_args_is_help=True)


@config_app.command("show")
def show() -> None:
    """Print the effective settings as JSON, with every secret masked."""
    require_stdout()
    console.print_json(json.dumps(masked_settings(settings()), ensure_ascii=False))


@config_app.command("preset")
def preset_cmd(
    name: str = typer.Argument(..., help="the preset: paper (the AraStance paper's set-up)"),
    out: Path = typer.Option(Path("arastance.toml"), help="the settings file to write"),
    force: bool = typer.Option(False, help="replace the file if it exists"),
    show: bool = typer.Option(False, help="only print the preset beside the defaults, write nothing"),
) -> None:
    """Write a settings file with every choice of a preset, each with its reason; or show it beside the defaults."""
    try:
        if show:
            require_stdout()
            print_table(preset_table(name), title=f"The {name!r} preset beside the defaults")
            return
        written = write_preset(name, out, force=force)
    except PresetError as exc:
        fail(str(exc))
    console.print(assembled("wrote ", (str(written), "bold"),
                            f": the {name!r} preset (`arastance config show` shows the effect; "
                            "point ARASTANCE_CONFIG at it if it is not ./arastance.toml)"))


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
