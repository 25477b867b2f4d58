"""internal/dynamo/utils.go: shell quoting and flag injection into container commands
(plus isPythonCommand from backend_sglang.go, which the injection depends on).

Regular expressions follow Go's RE2 syntax rules: ``\\s`` is ASCII whitespace only,
``\\d`` ASCII digits, ``$`` the end of the text (Python's ``\\Z``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from renderer.goruntime.strings import fields as go_fields

JSON = dict[str, Any]

_BASH_C_SPECIAL = frozenset(" \t\n'\"\\{}[]$`!")


@cache
def _shell_safe_token() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9_@%+=:,./-]+\Z")


@cache
def _python_command() -> re.Pattern[str]:
    return re.compile(r"(.*/)?(python[0-9]*(\.[0-9]+)*)\Z")


def is_python_command(cmd: str) -> bool:
    """isPythonCommand: python, python3, pythonX.Y, optionally with a directory."""
    if cmd in {"python", "python3"}:
        return True
    return _python_command().match(cmd) is not None


def shell_quote_for_bash_c(s: str) -> str:
    """shellQuoteForBashC: double-quote tokens with shell-special characters."""
    if any(ch in _BASH_C_SPECIAL for ch in s):
        escaped = s.replace("\\", "\\\\")  # first, so later escapes are not doubled
        escaped = escaped.replace('"', '\\"')
        escaped = escaped.replace("$", "\\$")
        escaped = escaped.replace("`", "\\`")
        escaped = escaped.replace("'", "'\"'\"'")
        return '"' + escaped + '"'
    return s


def shell_quote_posix(s: str) -> str:
    """shellQuotePOSIX: one argv token that survives ``sh -c`` unchanged."""
    if _shell_safe_token().match(s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def has_arg(args: list[str], flag: str, value: str) -> bool:
    """hasArg: ``flag value`` / ``flag=value`` inside a token, or as adjacent tokens."""
    joined = flag + " " + value
    equals = flag + "=" + value
    for i, arg in enumerate(args):
        if joined in arg or equals in arg:
            return True
        if arg == flag and i + 1 < len(args) and args[i + 1] == value:
            return True
    return False


def container_has_arg(container: JSON | None, flag: str, value: str) -> bool:
    """containerHasArg: the pair in the container's args."""
    if container is None:
        return False
    return has_arg(list(container.get("args") or []), flag, value)


def container_command_line_has_arg(container: JSON | None, flag: str, value: str) -> bool:
    """containerCommandLineHasArg: the pair anywhere in command + args (also split)."""
    if container is None:
        return False
    command_line = [*(container.get("command") or []), *(container.get("args") or [])]
    if has_arg(command_line, flag, value):
        return True
    expanded = [field for arg in command_line for field in go_fields(arg)]
    return has_arg(expanded, flag, value)


def inject_flags_into_container_command(
    container: JSON, flags: str, needs_shell: bool, framework: str
) -> None:
    """injectFlagsIntoContainerCommand (in place)."""
    command: list[str] = list(container.get("command") or [])
    args: list[str] = list(container.get("args") or [])
    if command and is_python_command(command[0]):
        if needs_shell:
            # A shell wrapper so $(...) in the flags is interpreted; every token quoted.
            full_command = " ".join(shell_quote_for_bash_c(tok) for tok in command)
            original_args = " ".join(shell_quote_for_bash_c(arg) for arg in args)
            if args:
                shell_command = f"exec {full_command} {original_args} {flags}"
            else:
                shell_command = f"exec {full_command} {flags}"
            container["command"] = ["sh", "-c"]
            container["args"] = [shell_command]
        else:
            container["args"] = [*args, *go_fields(flags)]
        return
    for i, arg in enumerate(args):
        modified = inject_flags_into_python_command(arg, flags, framework)
        if modified != arg:
            args[i] = modified
            container["args"] = args
            break  # only the first arg that takes the flags


def inject_flags_into_python_command(arg: str, flags: str, framework: str) -> str:
    """injectFlagsIntoPythonCommand: flags right after each ``python ... <framework>`` run."""
    # framework goes into the pattern unescaped, as Go's Sprintf puts it.
    pattern = re.compile(
        rf"(python[0-9.]*[\t\n\f\r ]+[^|&;]*{framework}[^|&;]*?)([\t\n\f\r ]|\Z|[|&;])"
    )
    return pattern.sub(lambda m: m.group(1) + " " + flags + m.group(2), arg)
