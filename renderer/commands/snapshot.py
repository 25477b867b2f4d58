"""`dynamo-render snapshot keygen|sign|verify`: detached Ed25519 signatures for snapshots.

The signature covers each checkpoint's uid, generation, namespace, name and canonical
projection (what its binding hashes), not the YAML formatting: see docs/security.md.

Each subcommand parses its options into `KeygenArgs`, `SignArgs` or `VerifyArgs`;
`execute(args, out, err)` does the work and returns the exit code.
"""

from __future__ import annotations

import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import click

from renderer.atomic import write_file
from renderer.commands.options import max_bytes_option
from renderer.constants import EXIT_FINDINGS, EXIT_OK
from renderer.errors import UsageError, one_line
from renderer.writeroot import require_inside, roots_for


def _load_snapshot(path: str, max_bytes: int) -> bytes:
    """The signed message of one snapshot file (InputError, exit 2, when it has none)."""
    from renderer.source import load_paths
    from renderer.trust import signed_message

    try:
        is_file = path != "-" and stat.S_ISREG(Path(path).stat().st_mode)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or "cannot read it"
        raise UsageError(f"{path}: {reason}") from None
    if not is_file:
        raise UsageError(f"{path}: not a file (a signature lives next to its snapshot file)")
    return signed_message(load_paths([path], max_bytes=max_bytes))


_MAX_BYTES = max_bytes_option("Refuse snapshot files larger than this.")


@dataclass(frozen=True)
class KeygenArgs:
    prefix: str  # PREFIX.key and PREFIX.pub
    force: bool = False
    write_roots: tuple[str, ...] = ()  # where the key files may go (empty: anywhere)


@dataclass(frozen=True)
class SignArgs:
    snapshots: tuple[str, ...]
    key_path: str
    max_bytes: int
    write_roots: tuple[str, ...] = ()  # where the .sig files may go (empty: anywhere)


@dataclass(frozen=True)
class VerifyArgs:
    snapshots: tuple[str, ...]
    key_paths: tuple[str, ...]
    max_bytes: int


SnapshotArgs = KeygenArgs | SignArgs | VerifyArgs


def execute(args: SnapshotArgs, out: TextIO, err: TextIO) -> int:
    """Run one subcommand as the command line would; returns the exit code."""
    if isinstance(args, KeygenArgs):
        return _keygen(args, out)
    if isinstance(args, SignArgs):
        return _sign(args, out)
    return _verify(args, out, err)


def _keygen(args: KeygenArgs, out: TextIO) -> int:
    from renderer.trust import generate_key_pair

    # (by text: `Path("keys/").name` is "keys", yet the files would be `keys/.key`)
    if args.prefix.rpartition("/")[2] in ("", ".", ".."):
        # `--out ''` or `--out dir/` would write hidden `.key`/`.pub` files nobody asked for
        raise UsageError(
            f"--out '{one_line(args.prefix)}' names no file: give a prefix such as"
            " `release` or `keys/release` (it writes PREFIX.key and PREFIX.pub)"
        )
    private_pem, public_pem, fingerprint = generate_key_pair()
    key_path, pub_path = f"{args.prefix}.key", f"{args.prefix}.pub"
    _require_inside((key_path, pub_path), args.write_roots)
    if not args.force:
        for existing in (key_path, pub_path):
            if Path(existing).exists():
                raise UsageError(f"{existing} already exists (pass --force to replace it)")
    write_file(key_path, private_pem, mode=0o600)
    write_file(pub_path, public_pem)
    out.write(f"wrote {one_line(key_path)} (private, keep it secret) and {one_line(pub_path)}\n")
    out.write(f"key fingerprint: {fingerprint}\n")
    return EXIT_OK


def _sign(args: SignArgs, out: TextIO) -> int:
    from renderer.trust import load_private_key, sign_message, signature_path

    key = load_private_key(args.key_path)
    # Build every message first: one bad snapshot means no signature is written.
    messages = [(path, _load_snapshot(path, args.max_bytes)) for path in args.snapshots]
    _require_inside([signature_path(path) for path, _ in messages], args.write_roots)
    for path, message in messages:
        write_file(signature_path(path), sign_message(message, key).encode("ascii"))
        out.write(
            f"signed {one_line(path)} -> {one_line(signature_path(path))} ({key.fingerprint})\n"
        )
    return EXIT_OK


def _require_inside(paths: Sequence[str], roots: Sequence[str]) -> None:
    """Every path inside the write roots, checked before anything is written (a snapshot
    folder committed as a symlink must not carry a signature out of the repository)."""
    if roots:
        for path in paths:
            require_inside(path, roots)


def _verify(args: VerifyArgs, out: TextIO, err: TextIO) -> int:
    from renderer.trust import load_trusted_keys, verify_message

    keys = load_trusted_keys(args.key_paths)
    messages = [(path, _load_snapshot(path, args.max_bytes)) for path in args.snapshots]
    failed = False
    for path, message in messages:
        failure = verify_message(path, message, keys)
        if failure is None:
            out.write(f"{one_line(path)}: signature valid\n")
        else:
            failed = True
            err.write(f"dynamo-render: {one_line(failure.message)}\n")
    return EXIT_FINDINGS if failed else EXIT_OK


GROUP_EPILOG = """\
Examples:

\b
  dynamo-render snapshot keygen --out release      # release.key (secret) and release.pub
  dynamo-render snapshot sign snapshots/decode.yaml --key release.key
  dynamo-render snapshot verify snapshots/decode.yaml --key release.pub

`render` and `lint` take --trusted-key release.pub to use only signed snapshots.
"""


@click.group("snapshot", epilog=GROUP_EPILOG)
def command() -> None:
    """Sign and verify captured DynamoCheckpoint snapshots (Ed25519, detached .sig files).

    The signature covers each checkpoint's uid, generation, namespace, name and the
    canonical projection its binding hashes; re-indenting or re-quoting the YAML, or
    changing status or resourceVersion, keeps it valid.
    """


@command.command(
    "keygen",
    short_help="Make an Ed25519 key pair (PREFIX.key, PREFIX.pub).",
    epilog="Prints the key's fingerprint. Exit codes: 0 written; 2 a key file exists (without"
    " --force) or cannot be written.",
)
@click.option(
    "--out",
    "prefix",
    required=True,
    metavar="PREFIX",
    help="Write PREFIX.key (private, mode 0600) and PREFIX.pub.",
)
@click.option("--force", is_flag=True, help="Replace existing key files.")
def keygen(prefix: str, force: bool) -> None:
    """Make an Ed25519 key pair (same as `openssl genpkey -algorithm ed25519`): a PKCS8
    PEM private key and a SubjectPublicKeyInfo PEM public key."""
    roots = tuple(roots_for(click.get_current_context(), [str(Path(prefix).parent)]))
    execute(KeygenArgs(prefix, force, roots), sys.stdout, sys.stderr)


@command.command(
    "sign",
    short_help="Write SNAPSHOT.sig with a private key.",
    epilog="Exit codes: 0 every SNAPSHOT signed; 2 usage or input error (an unusable key, a"
    " snapshot that is not a file, is not valid YAML or holds another kind of object): then"
    " no signature is written.",
)
@click.argument("snapshots", nargs=-1, required=True, metavar="SNAPSHOT...")
@click.option(
    "--key",
    "key_path",
    required=True,
    metavar="PRIVATE_KEY",
    help="Ed25519 private key, PKCS8 PEM.",
)
@_MAX_BYTES
def sign(snapshots: tuple[str, ...], key_path: str, max_bytes: int) -> None:
    """Write SNAPSHOT.sig beside each SNAPSHOT file, a signature over what the bindings
    of its DynamoCheckpoint objects depend on."""
    # a .sig goes beside its snapshot: the folders named are the caller's choice
    folders = [str(Path(p).parent) for p in snapshots]
    roots = tuple(roots_for(click.get_current_context(), folders))
    execute(SignArgs(snapshots, key_path, max_bytes, roots), sys.stdout, sys.stderr)


@command.command(
    "verify",
    short_help="Check SNAPSHOT.sig against trusted public keys.",
    epilog="Prints `SNAPSHOT: signature valid` on stdout, or the reason on stderr. Exit codes:"
    " 0 every signature valid; 1 one is missing or invalid; 2 usage or input error.",
)
@click.argument("snapshots", nargs=-1, required=True, metavar="SNAPSHOT...")
@click.option(
    "--key",
    "key_paths",
    required=True,
    multiple=True,
    metavar="PUBLIC_KEY",
    help="Trusted Ed25519 public key, PEM (repeatable: any one of them may sign).",
)
@_MAX_BYTES
@click.pass_context
def verify(
    ctx: click.Context, snapshots: tuple[str, ...], key_paths: tuple[str, ...], max_bytes: int
) -> None:
    """Check the SNAPSHOT.sig beside each SNAPSHOT file against the trusted keys."""
    code = execute(VerifyArgs(snapshots, key_paths, max_bytes), sys.stdout, sys.stderr)
    if code:
        ctx.exit(code)
