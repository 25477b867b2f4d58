"""Snapshot signatures: what they cover, what they ignore, and how each failure reads."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from signing_support import (
    BASELINE,
    MINIMAL,
    make_keys,
    objects_of,
)

from renderer.errors import InputError
from renderer.trust import (
    DOMAIN_PREFIX,
    SIGNATURE_HEADER,
    TrustedKey,
    check_trust,
    load_private_key,
    load_trusted_keys,
    sign_message,
    signed_message,
    verify_trust,
)
from renderer.trust.verify import MALFORMED, MISMATCH, MISSING, UNKNOWN_KEY, UNVERIFIABLE


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, str, list[TrustedKey]]:
    """The baseline vector, signed in tmp_path: (snapshot path, its text, trusted keys)."""
    key, pub = make_keys(tmp_path)
    text = BASELINE.read_text()
    snap = tmp_path / "snap.yaml"
    snap.write_text(text)
    sig = sign_message(signed_message(objects_of(text, str(snap))), load_private_key(str(key)))
    (tmp_path / "snap.yaml.sig").write_text(sig)
    return snap, text, load_trusted_keys([str(pub)])


def _check(snap: Path, text: str, keys: list[TrustedKey]) -> str | None:
    return check_trust(str(snap), objects_of(text, str(snap)), keys)


def _code(snap: Path, text: str, keys: list[TrustedKey]) -> str | None:
    failure = verify_trust(str(snap), objects_of(text, str(snap)), keys)
    return None if failure is None else failure.code


def test_round_trip(signed: tuple[Path, str, list[TrustedKey]]) -> None:
    snap, text, keys = signed
    assert _check(snap, text, keys) is None
    sig = (snap.parent / "snap.yaml.sig").read_text()
    assert re.fullmatch(
        re.escape(SIGNATURE_HEADER)
        + r"\nkey: sha256:[0-9a-f]{64}\nsignature: [A-Za-z0-9+/]{86}==\n",
        sig,
    )
    assert f"key: {keys[0].fingerprint}\n" in sig


def test_message_is_versioned_and_domain_separated() -> None:
    message = signed_message(objects_of(MINIMAL.read_text()))
    assert message.startswith(DOMAIN_PREFIX)
    assert message.startswith(b"dynamo-render snapshot signature v1\n")
    body = message[len(DOMAIN_PREFIX) :].decode("ascii")
    assert body.startswith('{"objects":[{"canonical":"')
    assert body.endswith('"uid":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}],"v":1}')
    assert '"generation":1,' in body
    assert "\n" not in body  # compact: one unambiguous encoding


# Each edit changes one bound field by one character (or one digit).
BOUND_EDITS = {
    "image": ("vllm-runtime:0.6.1", "vllm-runtime:0.6.2"),
    "uid": (
        'uid: "7c9e6679-7425-40de-944b-e07fc1f90ae7"',
        'uid: "7c9e6679-7425-40de-944b-e07fc1f90ae8"',
    ),
    "generation": ("generation: 1\n", "generation: 2\n"),
    "name": ('name: "checkpoint-9f1e2d3c4b5a6978"', 'name: "checkpoint-9f1e2d3c4b5a6979"'),
    "namespace": ('namespace: "dynamo-prod"', 'namespace: "dynamo-prol"'),
    "checkpoint-id label": (
        '"nvidia.com/snapshot-checkpoint-id": "9f1e2d3c4b5a6978"',
        '"nvidia.com/snapshot-checkpoint-id": "9f1e2d3c4b5a6979"',
    ),
    "component label": (
        '    "nvidia.com/dynamo-component": "VllmDecodeWorker"\n    "nvidia.com/dynamo-worker',
        '    "nvidia.com/dynamo-component": "VllmDecodeWorkeR"\n    "nvidia.com/dynamo-worker',
    ),
    "artifact version": (
        '"nvidia.com/snapshot-artifact-version": "1"',
        '"nvidia.com/snapshot-artifact-version": "2"',
    ),
    "container arg": ('"8192"', '"8193"'),
    "resource quantity": ('memory: "32Gi"', 'memory: "33Gi"'),
}


@pytest.mark.parametrize("field", sorted(BOUND_EDITS))
def test_bound_field_change_breaks_the_signature(
    signed: tuple[Path, str, list[TrustedKey]], field: str
) -> None:
    snap, text, keys = signed
    old, new = BOUND_EDITS[field]
    assert text.count(old) == 1, field
    edited = text.replace(old, new)
    assert _code(snap, edited, keys) == MISMATCH
    reason = _check(snap, edited, keys)
    assert reason is not None and "does not match" in reason


def _reindent(text: str) -> str:
    import yaml

    return yaml.safe_dump(yaml.safe_load(text), indent=4, sort_keys=False, width=1000)


def _unquote(text: str) -> str:
    # Safe plain scalars only: a quoted value that stays a string when unquoted.
    # (`"true"` unquoted would become a bool: a real change, which the signature catches.)
    keywords = r"(?!(?:true|false|yes|no|on|off|y|n|null)\")"
    return re.sub(r': "' + keywords + r'([a-z][a-z0-9./-]*)"$', r": \1", text, flags=re.MULTILINE)


def _reorder_keys(text: str) -> str:
    import yaml

    return yaml.safe_dump(yaml.safe_load(text), sort_keys=True, width=1000)


def _as_json(text: str) -> str:
    import json

    import yaml

    return json.dumps(yaml.safe_load(text), indent=1)


def _flow_labels(text: str) -> str:
    """Rewrite the block `metadata.labels` mapping as one flow mapping."""
    block = re.search(r"(?m)^  labels:\n((?:    .*\n)+)", text)
    assert block is not None
    pairs = ", ".join(line.strip() for line in block.group(1).splitlines())
    return text[: block.start()] + "  labels: {" + pairs + "}\n" + text[block.end() :]


FORMAT_EDITS = {
    "re-indented": _reindent,
    "unquoted": _unquote,
    "single-quoted": lambda t: re.sub(r': "([^"\\]*)"$', r": '\1'", t, flags=re.MULTILINE),
    "keys reordered at every level": _reorder_keys,
    "written as JSON": _as_json,
    "comments added": lambda t: (
        "# captured with kubectl\n" + t.replace("spec:\n", "spec: # the job\n")
    ),
    "status changed": lambda t: t.replace('phase: "Ready"', 'phase: "Failed"'),
    "resourceVersion changed": lambda t: t.replace('"48213"', '"99999"'),
    "deletion policy changed": lambda t: t.replace('policy": "Delete"', 'policy": "Retain"'),
    "document markers": lambda t: "---\n" + t + "...\n",
    "flow style labels": _flow_labels,
}


@pytest.mark.parametrize("edit", sorted(FORMAT_EDITS))
def test_formatting_change_keeps_the_signature(
    signed: tuple[Path, str, list[TrustedKey]], edit: str
) -> None:
    snap, text, keys = signed
    edited = FORMAT_EDITS[edit](text)
    assert edited != text, "the edit must change the file"
    assert _check(snap, edited, keys) is None


def test_each_failure_has_its_own_message(
    signed: tuple[Path, str, list[TrustedKey]], tmp_path: Path
) -> None:
    snap, text, keys = signed
    sig_file = snap.parent / "snap.yaml.sig"
    good_sig = sig_file.read_text()
    reasons: dict[str, str | None] = {}

    _, other_pub = make_keys(tmp_path, "other")
    reasons[UNKNOWN_KEY] = _check(snap, text, load_trusted_keys([str(other_pub)]))

    sig_file.write_text(good_sig[: len(good_sig) - 20])
    reasons[MALFORMED] = _check(snap, text, keys)

    other_text = MINIMAL.read_text()  # a signature made for another snapshot
    key = load_private_key(str(tmp_path / "release.key"))
    sig_file.write_text(sign_message(signed_message(objects_of(other_text)), key))
    reasons[MISMATCH] = _check(snap, text, keys)

    sig_file.unlink()
    reasons[MISSING] = _check(snap, text, keys)

    assert all(r is not None for r in reasons.values()), reasons
    assert len(set(reasons.values())) == 4
    assert "signed by an unknown key sha256:" in str(reasons[UNKNOWN_KEY])
    assert "malformed signature file: truncated" in str(reasons[MALFORMED])
    assert "signature does not match the content of" in str(reasons[MISMATCH])
    assert "snapshot is not signed" in str(reasons[MISSING])
    assert str(reasons[MISSING]).startswith(f"{snap}: ")


@pytest.mark.parametrize(
    ("mangle", "detail"),
    [
        (lambda s: "", "empty"),
        (lambda s: s.rstrip("\n"), "truncated (no final newline)"),
        (lambda s: s.replace(" v1\n", " v2\n"), "unsupported version 'v2'"),
        (lambda s: "hello\n" + s, "first line is not"),
        (lambda s: s + "extra: line\n", "expected 3 lines"),
        (lambda s: s.replace("key: sha256:", "key: md5:"), "line 2: key"),
        (lambda s: s.replace("signature: ", "signature: A"), "line 3: signature is not base64"),
        (lambda s: s.replace("==\n", "\n"), "line 3: signature is not base64"),
        (lambda s: s.replace("key:", "kee:"), "line 2: expected 'key:'"),
        (lambda s: s + "\x00" * 5000, "larger than 4096 bytes"),
        (lambda s: s.replace("signature", "signaturé"), "not ASCII"),
    ],
)
def test_malformed_signature_files(
    signed: tuple[Path, str, list[TrustedKey]], mangle: object, detail: str
) -> None:
    snap, text, keys = signed
    sig_file = snap.parent / "snap.yaml.sig"
    sig_file.write_text(mangle(sig_file.read_text()))  # type: ignore[operator]
    assert _code(snap, text, keys) == MALFORMED
    assert detail in str(_check(snap, text, keys))


def test_two_checkpoints_in_file_order(tmp_path: Path) -> None:
    key, pub = make_keys(tmp_path)
    a, b = BASELINE.read_text(), MINIMAL.read_text()
    both = a + "---\n" + b
    snap = tmp_path / "snap.yaml"
    message = signed_message(objects_of(both, str(snap)))
    assert message.count(b'"uid":') == 2
    (tmp_path / "snap.yaml.sig").write_text(sign_message(message, load_private_key(str(key))))
    keys = load_trusted_keys([str(pub)])
    assert _check(snap, both, keys) is None
    # Swapping, dropping, or duplicating a checkpoint changes what the file binds to.
    for variant in (b + "---\n" + a, a, b, both + "---\n" + b):
        assert _code(snap, variant, keys) == MISMATCH
    # A kind: List holding the same two, in the same order, is the same content.
    as_list = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + "\n  ".join(doc.rstrip("\n").splitlines()) + "\n" for doc in (a, b)
    )
    assert _check(snap, as_list, keys) is None


def test_non_checkpoint_objects_are_refused(tmp_path: Path) -> None:
    text = BASELINE.read_text() + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    with pytest.raises(
        InputError,
        match=r"snap\.yaml:\d+:\d+: a signed snapshot holds only "
        r"DynamoCheckpoint objects, found 'ConfigMap' 'x'",
    ):
        signed_message(objects_of(text))
    _, pub = make_keys(tmp_path)
    snap = tmp_path / "snap.yaml"
    (tmp_path / "snap.yaml.sig").write_text("anything\n")
    failure = verify_trust(str(snap), objects_of(text, str(snap)), load_trusted_keys([str(pub)]))
    assert failure is not None and failure.code == UNVERIFIABLE
    assert "cannot be verified" in failure.message


def test_unbindable_checkpoint_is_not_trusted(tmp_path: Path) -> None:
    _, pub = make_keys(tmp_path)
    text = (MINIMAL.parent / "47-error-missing-uid.input.yaml").read_text()
    snap = tmp_path / "snap.yaml"
    (tmp_path / "snap.yaml.sig").write_text("anything\n")
    keys = load_trusted_keys([str(pub)])
    with pytest.raises(InputError, match="automatic checkpoint UID is missing"):
        signed_message(objects_of(text, str(snap)))
    assert _code(snap, text, keys) == UNVERIFIABLE
    # Without a .sig, "not signed" is what the user needs to hear first.
    (tmp_path / "snap.yaml.sig").unlink()
    assert _code(snap, text, keys) == MISSING


def test_stdin_snapshot_cannot_be_trusted(tmp_path: Path) -> None:
    _, pub = make_keys(tmp_path)
    failure = verify_trust("-", objects_of(MINIMAL.read_text()), load_trusted_keys([str(pub)]))
    assert failure is not None and failure.code == UNVERIFIABLE


def test_any_trusted_key_may_sign(
    signed: tuple[Path, str, list[TrustedKey]], tmp_path: Path
) -> None:
    snap, text, _ = signed
    _, other_pub = make_keys(tmp_path, "other")
    both = load_trusted_keys([str(other_pub), str(tmp_path / "release.pub"), str(other_pub)])
    assert len(both) == 2  # duplicates dropped
    assert _check(snap, text, both) is None
    assert _check(snap, text, []) is not None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a PEM public key"),
        (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not a PEM public key"),
        (b"-----BEGIN PRIVATE KEY-----\n", "this is a private key"),
        (b"x" * 70000, "larger than"),
    ],
)
def test_bad_trusted_key_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "k.pub"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        load_trusted_keys([str(path)])
    assert str(info.value).startswith(f"{path}: ")


def test_missing_and_non_ed25519_keys(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    with pytest.raises(InputError, match="cannot read public key"):
        load_trusted_keys([str(tmp_path / "absent.pub")])
    ec_key = ec.generate_private_key(ec.SECP256R1())
    pub = tmp_path / "ec.pub"
    pub.write_bytes(
        ec_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    with pytest.raises(InputError, match="not an Ed25519 key"):
        load_trusted_keys([str(pub)])
    priv = tmp_path / "ec.key"
    priv.write_bytes(
        ec_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(InputError, match="not an Ed25519 key"):
        load_private_key(str(priv))
    with pytest.raises(InputError, match="this is a public key"):
        load_private_key(str(pub))
    enc = tmp_path / "enc.key"
    enc.write_bytes(
        ec_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"pw"),
        )
    )
    with pytest.raises(InputError, match="encrypted private keys are not supported"):
        load_private_key(str(enc))


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not on PATH")
def test_openssl_made_keys_work(tmp_path: Path) -> None:
    key, pub = tmp_path / "release.key", tmp_path / "release.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True)
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True)
    text = MINIMAL.read_text()
    snap = tmp_path / "snap.yaml"
    sig = sign_message(signed_message(objects_of(text, str(snap))), load_private_key(str(key)))
    (tmp_path / "snap.yaml.sig").write_text(sig)
    assert _check(snap, text, load_trusted_keys([str(pub)])) is None
    # The fingerprint is sha256 of the raw 32-byte key, which openssl can show too.
    der = subprocess.run(
        ["openssl", "pkey", "-pubin", "-in", str(pub), "-outform", "DER"],
        check=True,
        capture_output=True,
    ).stdout
    import hashlib

    assert (
        load_trusted_keys([str(pub)])[0].fingerprint
        == "sha256:" + hashlib.sha256(der[-32:]).hexdigest()
    )


def test_importing_trust_does_not_import_cryptography() -> None:
    code = (
        "import sys, renderer.trust, renderer.commands.snapshot;"
        " print('cryptography' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


def test_check_trust_by_file(tmp_path: Path) -> None:
    from renderer.source import load_paths
    from renderer.trust import check_trust_by_file

    key, pub = make_keys(tmp_path)
    signed_snap, unsigned_snap = tmp_path / "a.yaml", tmp_path / "b.yaml"
    signed_snap.write_text(BASELINE.read_text())
    unsigned_snap.write_text(MINIMAL.read_text())
    message = signed_message(load_paths([str(signed_snap)]))
    (tmp_path / "a.yaml.sig").write_text(sign_message(message, load_private_key(str(key))))
    # A directory load, as render and lint do for --checkpoint DIR (the .sig is not YAML).
    objects = load_paths([str(tmp_path)])
    result = check_trust_by_file(objects, load_trusted_keys([str(pub)]))
    assert list(result) == [str(signed_snap), str(unsigned_snap)]
    assert result[str(signed_snap)] is None
    assert "snapshot is not signed" in str(result[str(unsigned_snap)])
