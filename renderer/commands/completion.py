"""`dynamo-render completion bash|zsh|fish`: the shell completion script, as kubectl and
helm print theirs (`source <(dynamo-render completion bash)`).

The script is click's own: it calls the program back with `_DYNAMO_RENDER_COMPLETE` set,
and click answers with the commands, options and file names that fit.
"""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")
PROG_NAME = "dynamo-render"
COMPLETE_VAR = "_DYNAMO_RENDER_COMPLETE"

EPILOG = """\
Examples:

\b
  # bash (add to ~/.bashrc)
  source <(dynamo-render completion bash)
\b
  # zsh (add to ~/.zshrc)
  source <(dynamo-render completion zsh)
\b
  # fish
  dynamo-render completion fish > ~/.config/fish/completions/dynamo-render.fish

Exit codes: 0 printed; 2 an unknown shell.
"""


@click.command("completion", epilog=EPILOG)
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish) to stdout."""
    from click.shell_completion import get_completion_class

    from renderer.cli import cli

    completion = get_completion_class(shell)
    assert completion is not None  # every choice is one of click's shells
    script = completion(cli, {}, PROG_NAME, COMPLETE_VAR).source()
    click.echo(script, nl=not script.endswith("\n"))
