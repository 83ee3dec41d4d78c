"""One random secret per installation, kept in the data directory (mode 0600), created on first start.

It keys what must not be forgeable by someone who knows or guesses the API token: the session
cookies (mixed with the token, so changing either signs everyone out) and the caches this process
loads back from disk (signed, so a file dropped into the data directory is never unpickled).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

FILE_NAME = "server-secret"
SECRET_BYTES = 32


class SecretUnavailable(RuntimeError):
    """The data directory holds no usable secret and one cannot be created there."""


def server_secret(data_dir: Path) -> bytes:
    """The installation's secret: read from ``data_dir/server-secret``, or created there (0600)."""
    path = Path(data_dir) / FILE_NAME
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it between our read and our create
        return _read(path)
    except OSError as exc:
        raise SecretUnavailable(f"cannot create {path}: {exc.strerror or exc}") from None
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secrets.token_hex(SECRET_BYTES))
    return _read(path)


def _read(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretUnavailable(f"cannot read {path}: {exc}") from None
    if len(text) < SECRET_BYTES:  # truncated or hand-edited: refuse rather than sign with a weak key
        raise SecretUnavailable(f"{path} is too short to be a secret; delete it and restart to create a new one")
    if path.stat().st_mode & 0o077:  # readable by others: tighten it, it is ours
        os.chmod(path, 0o600)
    return bytes.fromhex(text) if _is_hex(text) else text.encode()


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def derive_key(secret: bytes, purpose: str, *parts: str) -> bytes:
    """A key for one purpose (and, e.g., one API token) from the installation secret."""
    message = "\x00".join([purpose, *parts]).encode()
    return hmac.new(secret, message, hashlib.sha256).digest()


def sign(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def verify(key: bytes, data: bytes, signature: bytes) -> bool:
    return hmac.compare_digest(sign(key, data), signature)
