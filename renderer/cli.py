"""The command-line shell: parses options, calls the core, maps errors to exit codes.

Subcommands live in `renderer.commands.<name>` and are imported only when invoked,
so `dynamo-render lint` in a pre-commit hook never pays for the renderer, and so on.
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Any

import click

from renderer import EMULATED_OPERATOR, __version__
from renderer.constants import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK
from renderer.errors import DynamoRenderError, InputError, one_line

# name -> (module, one-line help shown by `dynamo-render --help` without importing it)
COMMANDS: dict[str, tuple[str, str]] = {
    "binding": (
        "renderer.commands.binding",
        "Compute or verify checkpoint bindings from snapshots.",
    ),
    "render": (
        "renderer.commands.render",
        "Render a DGD into DCD or Grove manifests, bound to checkpoints.",
    ),
    "lint": (
        "renderer.commands.lint",
        "Check committed manifests for wrong binding copies, and fix them.",
    ),
    "snapshot": ("renderer.commands.snapshot", "Sign and verify captured checkpoint snapshots."),
    "completion": (
        "renderer.commands.completion",
        "Print the shell completion script for bash, zsh or fish.",
    ),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(entry[0])
        command: click.Command = module.command
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            # git and kubectl suggest the command a typo was meant to be; click does not
            import difflib  # noqa: PLC0415 - difflib only for a mistyped command

            close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            from renderer.config import at_config_line, from_context  # noqa: PLC0415 - config reads YAML (ruamel): `import renderer.cli` stays light

            relocated = at_config_line(from_context(ctx), exc)
            if relocated is exc:
                raise
            raise relocated from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Exit codes: 0 success; 1 findings (lint errors, or files lint --fix changed; render"
        " --check: files out of date; binding --verify: no match; snapshot verify: a signature"
        " missing or invalid); 2 usage or input error.\n\n"
        "Run `dynamo-render COMMAND --help` for the options of each command."
    ),
)
@click.version_option(
    __version__,
    "-V",
    "--version",
    prog_name="dynamo-render",
    message=f"%(prog)s, version %(version)s\nemulates {EMULATED_OPERATOR}",
)
@click.option(
    "--config",
    "config_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Read this config file instead of the repository's .dynamo-render.yaml.",
)
@click.option("--no-config", is_flag=True, help="Ignore .dynamo-render.yaml.")
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Refuse an input file of more than N YAML nodes (default 500,000).",
)
@click.option(
    "--max-documents",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Refuse an input file of more than N YAML documents (default 10,000).",
)
@click.pass_context
def cli(
    ctx: click.Context,
    config_path: str | None,
    no_config: bool,
    max_nodes: int | None,
    max_documents: int | None,
) -> None:
    """Render and lint NVIDIA Dynamo workloads pinned to verified checkpoints.

    A binding `v1/<uid>/<generation>/<sha256>` ties a pod template to one captured
    DynamoCheckpoint; the operator refuses to start pods whose binding differs by a byte.
    dynamo-render computes it offline, exactly as the operator does, and renders the
    objects the operator creates: it emulates Dynamo operator 1.5.0 (main 2a6da14c).

    Defaults come from .dynamo-render.yaml at the repository root (the first directory,
    from the current one upwards, that holds the file or a .git); command-line options
    override it. Global options go before COMMAND.
    """
    from renderer.config import apply_to_context, from_context  # noqa: PLC0415 - config reads YAML (ruamel): `import renderer.cli` stays light
    from renderer.source.limits import DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_NODES, set_limits  # noqa: PLC0415 - renderer.source (ruamel) is loaded by the command, not by `import renderer.cli`

    set_limits(nodes=DEFAULT_MAX_NODES, documents=DEFAULT_MAX_DOCUMENTS)  # each run anew

    try:
        apply_to_context(ctx, config_path, disabled=no_config)
    except InputError:
        # A broken config must not hide the help that explains it: runs that only print
        # help or the rule list go on without it; every other run reports it (exit 2).
        if not _only_informational(ctx):
            raise
    config = from_context(ctx)
    if config is not None:  # then the config's, then the command line's
        set_limits(nodes=config.max_nodes, documents=config.max_documents)
    set_limits(nodes=max_nodes, documents=max_documents)  # the command line wins


_INFORMATIONAL = frozenset({"-h", "--help", "--list-rules"})


def _only_informational(ctx: click.Context) -> bool:
    argv: list[str] = ctx.obj.get("argv", []) if isinstance(ctx.obj, dict) else []
    options = argv[: argv.index("--")] if "--" in argv else argv  # after `--`: file names
    return any(arg in _INFORMATIONAL for arg in options)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; library errors become one line on stderr.

    With `argv` None this is the program itself (the console script, `python -m renderer`),
    and the interpreter exits next: its final garbage collection would walk every object
    the run imported (about 8 ms, a tenth of a small lint), so they are frozen out of it
    first. Nothing this tool runs relies on a finalizer of an object kept alive only by a
    reference cycle. In-process callers (tests) pass `argv` and keep a normal collector.
    """
    if argv is None:
        _utf8_stdout()
    code = _run(argv)
    if argv is None:
        gc.freeze()
    return code


def _utf8_stdout() -> None:
    """Write stdout as UTF-8 whatever the locale (YAML, JSON and SARIF are UTF-8), and let
    a file name that is not UTF-8 (given on the command line, so held with surrogate
    escapes) come out as the bytes it was, instead of failing the write half-way."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(encoding="utf-8", errors="surrogateescape")


def _run(argv: list[str] | None) -> int:
    try:
        args = list(sys.argv[1:] if argv is None else argv)
        result: Any = cli.main(
            args=args, prog_name="dynamo-render", standalone_mode=False, obj={"argv": args}
        )
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        if _is_no_args_help(exc):
            # click >= 8.2 raises the group's help as an error whose message is the help
            # text; print it as click 8.1 did (stdout, exit 0), not squeezed onto one line.
            click.echo(exc.format_message())
            return EXIT_OK
        _show_click_error(exc)
        return EXIT_ERROR
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return EXIT_INTERRUPTED
    except DynamoRenderError as exc:
        # One line, whatever names or values from the input the message quotes.
        click.echo(f"dynamo-render: error: {one_line(str(exc))}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except RecursionError:
        # The input layer caps nesting (YAML and the JSON inside annotations); this is the
        # last line for a shape that slipped past the caps: one message, never a traceback.
        click.echo(
            "dynamo-render: error: an input is nested too deeply to process"
            " (a YAML or JSON value hundreds of levels deep)",
            err=True,
        )
        return EXIT_ERROR
    except BrokenPipeError:
        # `dynamo-render render ... | head`: stop quietly, like other Unix tools.
        sys.stderr.close()
        return EXIT_OK
    return int(result or 0)


def _is_no_args_help(exc: click.ClickException) -> bool:
    """A group called without a subcommand (click >= 8.2 has a class for it; older click
    prints the help and exits itself, never reaching here)."""
    no_args = getattr(click.exceptions, "NoArgsIsHelpError", None)
    return no_args is not None and isinstance(exc, no_args)


def _show_click_error(exc: click.ClickException) -> None:
    """click's own error output, with the message on one line (it may quote an argument).

    Written out rather than by rewriting `exc.message`, which newer click declares final.
    """
    ctx = exc.ctx if isinstance(exc, click.UsageError) else None
    if ctx is not None:
        hint = ""
        if ctx.command.get_help_option(ctx) is not None:
            option = max(ctx.command.get_help_option_names(ctx), key=len)
            hint = f"Try '{ctx.command_path} {option}' for help.\n"
        click.echo(f"{ctx.get_usage()}\n{hint}", err=True, color=ctx.color)
    click.echo(f"Error: {one_line(exc.format_message())}", err=True)
