#!/usr/bin/env python3
"""An independent reader (and minimal writer) for the moltipass keychain, format versions 1 and 2.

Written only from docs/keychain-format.md, to check that the document is enough. Needs the
`cryptography` package (pip install cryptography).

  keychain-reader.py read FILE              print the entries as JSON, keys as fingerprints
  keychain-reader.py add FILE NAME          add an agent entry; the key is read from stdin

The passphrase comes from --passphrase-file PATH or MOLTIPASS_PASSPHRASE. Keys are never
printed: `read` shows the first 8 hex digits of SHA-256 over each key instead (model keys too).
Exit status: 0 ok, 1 the one open error, 2 any other error.
"""

import datetime
import fcntl
import hashlib
import json
import os
import stat
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MAGIC = b"MPKCHAIN"
MAX_FILE = 1 << 20
CIPHERS = {1: ChaCha20Poly1305, 2: AESGCM}
ONE_ERROR = "cannot open keychain: wrong passphrase or the file was modified"


class HeaderError(Exception):
    pass


class OpenError(Exception):
    pass


def read_private(path, limit):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise HeaderError(f"{path} is not a regular file")
        if info.st_mode & 0o077:
            raise HeaderError(f"{path} is accessible by group or others; fix it with: chmod 600 {path}")
        if info.st_size > limit:
            raise HeaderError(f"{path} is over {limit} bytes")
        data = b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return data
            data += chunk
            if len(data) > limit:
                raise HeaderError(f"{path} is over {limit} bytes")
    finally:
        os.close(fd)


def parse_header(data):
    """Returns (params dict, header length), applying the doc's checks 2-6 in order."""
    if len(data) < 8 or data[:8] != MAGIC:
        raise HeaderError("not a moltipass keychain")
    if len(data) < 14:
        raise HeaderError("damaged header: truncated")
    version, kdf, log2n, r, p, salt_len = data[8:14]
    if version not in (1, 2):
        raise HeaderError(f"unsupported version {version}")
    if kdf != 1:
        raise HeaderError(f"unknown KDF {kdf}")
    n = 1 << log2n if log2n <= 63 else 0
    if not (1 <= log2n <= 20 and 1 <= r <= 32 and 1 <= p <= 16 and 128 * r * n <= 1 << 30 and n * r * p <= 1 << 24):
        raise HeaderError("KDF parameters out of bounds")
    if not 16 <= salt_len <= 64:
        raise HeaderError("damaged header: salt length")
    length = 35 + salt_len
    if len(data) < length:
        raise HeaderError("damaged header: truncated")
    salt = data[14:14 + salt_len]
    cipher = data[14 + salt_len]
    if cipher not in CIPHERS:
        raise HeaderError(f"unknown cipher {cipher}")
    nonce = data[15 + salt_len:27 + salt_len]
    generation = int.from_bytes(data[27 + salt_len:35 + salt_len], "big")
    return dict(version=version, log2n=log2n, r=r, p=p, salt=salt, cipher=cipher, nonce=nonce,
                generation=generation), length


def derive(passphrase, h):
    return Scrypt(salt=h["salt"], length=32, n=1 << h["log2n"], r=h["r"], p=h["p"]).derive(passphrase)


def open_file(data, passphrase):
    h, length = parse_header(data)
    sealed = data[length:]
    if len(sealed) < 16:
        raise OpenError(ONE_ERROR)
    key = derive(passphrase, h)
    try:
        plaintext = CIPHERS[h["cipher"]](key).decrypt(h["nonce"], sealed, data[:length])
    except InvalidTag:
        raise OpenError(ONE_ERROR)
    entries = json.loads(plaintext.decode("utf-8"))["entries"]
    for entry in entries:
        kind = entry.get("kind", "agent")
        if kind not in ("agent", "model") or (kind == "model" and h["version"] < 2):
            raise HeaderError(f"invalid entry list: kind {kind} in a version {h['version']} file")
    return h, key, entries


def fingerprint(api_key):
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:8]


def passphrase_from(args):
    if "--passphrase-file" in args:
        i = args.index("--passphrase-file")
        path = args[i + 1]
        del args[i:i + 2]
        raw = read_private(path, 64 * 1024)
        if raw.endswith(b"\n"):
            raw = raw[:-1]
            if raw.endswith(b"\r"):
                raw = raw[:-1]
        return raw
    value = os.environ.get("MOLTIPASS_PASSPHRASE", "")
    if not value:
        raise HeaderError("no passphrase: use --passphrase-file or MOLTIPASS_PASSPHRASE")
    return value.encode("utf-8")


def command_read(path, passphrase):
    h, _, entries = open_file(read_private(path, MAX_FILE), passphrase)
    shown = []
    for entry in entries:
        entry = dict(entry)
        entry["key_fingerprint"] = fingerprint(entry.pop("api_key"))
        shown.append(entry)
    cipher = {1: "ChaCha20-Poly1305", 2: "AES-256-GCM"}[h["cipher"]]
    print(json.dumps(dict(version=h["version"], generation=h["generation"], cipher=cipher, log2_n=h["log2n"], r=h["r"], p=h["p"],
                          entries=shown), sort_keys=True))


def command_add(path, name, passphrase):
    api_key = sys.stdin.readline().strip()
    lock_fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        h, key, entries = open_file(read_private(path, MAX_FILE), passphrase)
        if any(e["name"] == name and e.get("kind", "agent") == "agent" for e in entries):
            raise HeaderError(f"an entry named {name} already exists")
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        entries.append(dict(name=name, api_key=api_key, claim_status="unknown", created_at=now, updated_at=now))
        plaintext = json.dumps(dict(entries=entries), sort_keys=True, separators=(",", ":")).encode("utf-8")
        plaintext += b" " * ((len(plaintext) // 256 + 1) * 256 - len(plaintext))
        nonce = os.urandom(12)
        # An agent entry leaves the set of kinds, so the version, as it was.
        header = (MAGIC + bytes([h["version"], 1, h["log2n"], h["r"], h["p"], len(h["salt"])]) + h["salt"]
                  + bytes([h["cipher"]]) + nonce + (h["generation"] + 1).to_bytes(8, "big"))
        sealed = CIPHERS[h["cipher"]](key).encrypt(nonce, plaintext, header)
        directory = os.path.dirname(os.path.abspath(path))
        temp = os.path.join(directory, "." + os.path.basename(path) + ".tmp-" + os.urandom(6).hex())
        old_umask = os.umask(0o077)
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        finally:
            os.umask(old_umask)
        try:
            os.write(fd, header + sealed)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, path)
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    finally:
        os.close(lock_fd)


def main(argv):
    args = list(argv[1:])
    try:
        passphrase = passphrase_from(args)
        if len(args) == 2 and args[0] == "read":
            command_read(args[1], passphrase)
        elif len(args) == 3 and args[0] == "add":
            command_add(args[1], args[2], passphrase)
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except OpenError as error:
        print(error, file=sys.stderr)
        return 1
    except (HeaderError, OSError, ValueError, KeyError) as error:
        print(f"keychain-reader: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
