"""Item 5: the key file through the real binary — tamper sweep and crash mid-write.

Sweep: a real keychain (two entries, scrypt N = 2^10) is changed one byte at a time (every offset, masks
0x01, 0x80 and 0xFF), cut at every length and extended by 1, 16 and 256 bytes; `moltipass keys list` must
then exit 12 with "cannot open keychain: wrong passphrase or the file was modified", or, inside the header
fields the format lets a reader judge before the key derivation (magic, version, KDF id and parameters,
salt length, cipher id), with one of the format errors. Never exit 0, never die by a signal, never hang.

Crash mid-write: `keys add` and `keys passwd` are killed with SIGKILL at random points of their measured
run time; after each kill the file opens with the old content or the new one (for passwd: under exactly
one of the two passphrases), and the next write works.

    python3 scripts/reliability/keyfile.py --seed N [--add-kills 100] [--passwd-kills 60]
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import string
import subprocess
import time

import harness
from harness import Home, Result, log

ITEM = "keyfile"
ONE_ERROR = "cannot open keychain: wrong passphrase or the file was modified"
FORMAT_ERRORS = ("is not a moltipass keychain", "has a damaged header", "uses format version",
                 "names unknown key-derivation function", "names unknown cipher",
                 "asks for scrypt parameters outside the accepted bounds")
ALPHABET = string.ascii_letters + string.digits + "_-"


def fake_key(rng):
    return "moltbook_sk_" + "".join(rng.choice(ALPHABET) for _ in range(32))


def list_names(home, keychain, passphrase_file=None, timeout=30):
    arguments = ["keys", "list", "--json", "--keychain", keychain]
    if passphrase_file:
        arguments += ["--passphrase-file", passphrase_file]
    started = time.monotonic()
    try:
        outcome = subprocess.run([home.paths.moltipass] + arguments, env=home.env, capture_output=True, text=True,
                                 timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", "", time.monotonic() - started
    output = outcome.stdout if outcome.returncode == 0 else outcome.stdout + outcome.stderr
    return outcome.returncode, output, time.monotonic() - started


def judge(status, output, header_error_allowed):
    """None if the outcome is acceptable, else what is wrong."""
    if status == "hang":
        return "no answer within 30 s"
    if status == 0:
        return "opened (wrong success)"
    if status < 0:
        return f"killed by signal {-status}"
    if status != 12:
        return f"exit {status}: {output.strip()[:200]}"
    if ONE_ERROR in output:
        return None
    if header_error_allowed and any(text in output for text in FORMAT_ERRORS):
        return None
    return f"unexpected message: {output.strip()[:200]}"


def sweep(home, result, original, salt_length, workers):
    """Every flip, truncation and extension of `original`; returns (cases, problems, slowest)."""
    header = 35 + salt_length
    cases = []
    for offset in range(len(original)):
        for mask in (0x01, 0x80, 0xFF):
            mutated = bytearray(original)
            mutated[offset] ^= mask
            cases.append((f"flip {mask:#04x} at {offset}", bytes(mutated), offset < 14 or offset == 14 + salt_length))
    for length in range(len(original)):
        cases.append((f"cut to {length}", original[:length], length < header))
    for extra in (1, 16, 256):
        cases.append((f"{extra} bytes appended", original + bytes(extra), False))

    def check(index_case):
        index, (label, data, header_allowed) = index_case
        path = os.path.join(home.path, f"sweep-{index % workers}", "keychain")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        status, output, seconds = list_names(home, path)
        return label, judge(status, output, header_allowed), seconds, status, output

    for n in range(workers):
        os.makedirs(os.path.join(home.path, f"sweep-{n}"), mode=0o700, exist_ok=True)
    problems, slowest, kinds = [], 0.0, {}
    # Each worker owns one file; a case runs only in its worker's slot (index % workers).
    batches = [list(enumerate(cases))[n::workers] for n in range(workers)]
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for outcomes in pool.map(lambda batch: [check(c) for c in batch], batches):
            for label, problem, seconds, status, output in outcomes:
                slowest = max(slowest, seconds)
                kind = "the one error" if ONE_ERROR in output else "format error" if status == 12 else str(status)
                kinds[kind] = kinds.get(kind, 0) + 1
                if problem:
                    problems.append(f"{label}: {problem}")
    return len(cases), problems, slowest, kinds


def names_and_status(home, keychain, passphrase_file):
    status, output, _ = list_names(home, keychain, passphrase_file)
    if status != 0:
        return status, None
    return 0, sorted(entry["name"] for entry in json.loads(output))


def leftovers(directory):
    return [name for name in os.listdir(directory) if ".tmp-" in name]


def crash_add(home, result, rng, kills):
    """`keys add` killed at random points: the file always opens, with or without the new entry."""
    directory = os.path.join(home.path, "crash-add")
    os.makedirs(directory, mode=0o700)
    keychain = os.path.join(directory, "keychain")
    base = ["--keychain", keychain]
    home.run(["keys", "init", "--scrypt-log2n", "10"] + base)
    started = time.monotonic()
    home.run(["keys", "add", "first"] + base, stdin=fake_key(rng) + "\n")
    window = 1.3 * (time.monotonic() - started)
    expected = ["first"]
    killed = added = 0
    for n in range(kills):
        name = f"agent{n}"
        key = fake_key(rng)
        home.paths.remember_key(key)
        process = subprocess.Popen([home.paths.moltipass, "keys", "add", name] + base, env=home.env,
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        process.stdin.write((key + "\n").encode())
        process.stdin.close()
        time.sleep(rng.uniform(0.3, 1.0) * window)
        process.kill()
        status = process.wait()
        killed += status == -9
        code, names = names_and_status(home, keychain, None)
        if not result.check(code == 0, f"keys add killed (#{n}): the file no longer opens (exit {code})"):
            return killed, added, leftovers(directory)
        if names == sorted(expected + [name]):
            expected.append(name)
            added += 1
        elif not result.check(names == sorted(expected), f"keys add killed (#{n}): entries {names}"):
            return killed, added, leftovers(directory)
    left = leftovers(directory)
    # The next write works after all the kills, and clears the temp files they left.
    final = home.run(["keys", "add", "after"] + base, stdin=fake_key(rng) + "\n")
    result.check(final.returncode == 0, f"keys add after the kills: exit {final.returncode} {final.stderr.strip()}")
    result.check(not leftovers(directory), f"temp files left after the next write: {leftovers(directory)}")
    return killed, added, left


def crash_passwd(home, result, rng, kills):
    """`keys passwd` killed at random points: the file opens under exactly one of the two passphrases."""
    directory = os.path.join(home.path, "crash-passwd")
    os.makedirs(directory, mode=0o700)
    keychain = os.path.join(directory, "keychain")
    secrets = []
    for n in range(2):
        path = os.path.join(directory, f"passphrase-{n}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(f"passphrase number {n} of the crash test\n")
        secrets.append(path)
    current = 0
    home.run(["keys", "init", "--scrypt-log2n", "12", "--keychain", keychain, "--passphrase-file", secrets[0]])
    home.run(["keys", "add", "alpha", "--keychain", keychain, "--passphrase-file", secrets[0]],
             stdin=fake_key(rng) + "\n")
    started = time.monotonic()
    home.run(["keys", "passwd", "--keychain", keychain, "--passphrase-file", secrets[0],
              "--new-passphrase-file", secrets[1]])
    current = 1
    window = 1.3 * (time.monotonic() - started)
    killed = changed = 0
    for n in range(kills):
        new = 1 - current
        process = subprocess.Popen(
            [home.paths.moltipass, "keys", "passwd", "--keychain", keychain, "--passphrase-file", secrets[current],
             "--new-passphrase-file", secrets[new]], env=home.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 1.0) * window)
        process.kill()
        killed += process.wait() == -9
        old_code, old_names = names_and_status(home, keychain, secrets[current])
        new_code, new_names = names_and_status(home, keychain, secrets[new])
        opened = [code == 0 for code in (old_code, new_code)]
        if not result.check(opened.count(True) == 1,
                            f"keys passwd killed (#{n}): opens with old {old_code}, with new {new_code}"):
            return killed, changed, leftovers(directory)
        names = old_names if opened[0] else new_names
        result.check(names == ["alpha"], f"keys passwd killed (#{n}): entries {names}")
        if opened[1]:
            current, changed = new, changed + 1
    left = leftovers(directory)
    # A completed change clears what the kills left: no file there opens with the retired passphrase.
    retired, current = current, 1 - current
    final = home.run(["keys", "passwd", "--keychain", keychain, "--passphrase-file", secrets[retired],
                      "--new-passphrase-file", secrets[current]])
    result.check(final.returncode == 0, f"keys passwd after the kills: exit {final.returncode} {final.stderr.strip()}")
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.startswith("passphrase-") or name.endswith(".lock"):
            continue
        status, _, _ = list_names(home, path, secrets[retired])
        result.check(status != 0, f"{name} still opens with the retired passphrase")
    return killed, changed, left


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--add-kills", type=int, default=100)
    parser.add_argument("--passwd-kills", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    result = Result(ITEM, args.seed, f"scripts/reliability/keyfile --seed {args.seed}")
    rng = harness.seeded(args.seed)
    paths = harness.Paths()
    directory = paths.item_dir(ITEM)
    shutil.rmtree(directory)
    os.makedirs(directory)
    home = Home(paths, directory)
    home.init_keychain()
    for name in ("alice", "bob"):
        key = fake_key(rng)
        paths.remember_key(key)
        home.add_key(name, key)
    with open(home.keychain, "rb") as handle:
        original = handle.read()
    salt_length = original[13]
    status, output, _ = list_names(home, home.keychain)
    result.check(status == 0, f"the untouched file does not open: {status} {output.strip()}")
    log(ITEM, f"seed {args.seed}: sweeping a {len(original)}-byte keychain (header {35 + salt_length} bytes)")
    cases, problems, slowest, kinds = sweep(home, result, original, salt_length, args.workers)
    result.fact(f"sweep: {cases} tampered files ({len(original)} offsets × 3 masks, every truncation, 3 extensions): "
                f"{kinds}; {len(problems)} problems; slowest answer {slowest:.2f} s")
    for problem in problems[:20]:
        result.check(False, "sweep " + problem)

    killed, added, left = crash_add(home, result, rng, args.add_kills)
    result.fact(f"keys add: {killed} of {args.add_kills} killed mid-way, {added} entries made it; "
                f"the file opened after every kill; {len(left)} temp files left, removed by the next write")
    killed, changed, left_passwd = crash_passwd(home, result, rng, args.passwd_kills)
    result.fact(f"keys passwd: {killed} of {args.passwd_kills} killed mid-way, {changed} changes made it; "
                f"always exactly one passphrase opened it; {len(left_passwd)} temp files left, removed by the next "
                f"change (then nothing opens with the retired passphrase)")
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
