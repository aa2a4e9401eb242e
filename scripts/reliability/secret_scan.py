"""Item 6: the secret scan. Known keys must appear nowhere the suite or the harness wrote.

Known keys:
  - every key the harness registered or stored (kept in $RELIABILITY_WORK.keys, outside the scanned tree);
  - the keys the sandbox hands out first for the seeds the test suite uses: registrations on a fresh sandbox
    are deterministic (docs/sandbox.md, "Determinism"), so the first agents of every test share these keys.

Steps:
  1. the full test suite, once (`swift test --skip-build` in the scratch path) with TMPDIR pointed into the
     work directory, so temporary HOMEs, keychains, state files and logs the tests leave behind are scanned;
  2. a scenario of its own at log level trace: a run that posts, one under a 401 wave, one with a dropped
     connection, one with a half JSON answer, a key the server rejects, `keys verify`, `keys list`, `status`;
     and generated content (issue 21): comments written by the sandbox's OpenAI fake, which requires a model
     key, given once from the keychain (`keys add --model`) and once from a key file, plus `moltipass generate`;
     the model keys are known keys like the agents' (a model that repeats its prompt must not leak them either);
  3. every file under the work directory (logs, SQLite files with their -wal and -shm, recipes, keychains,
     the suite's output and leftovers) is read as bytes and searched for every known key and its 32-character
     body, and for anything shaped like a Moltbook key that is not one of the repository's fixture keys.

    python3 scripts/reliability/secret_scan.py --seed N [--skip-suite]
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import tempfile
import time

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "secret-scan"
SUITE_SEEDS = [1, 3, 5, 6, 7, 9, 10, 42, 99]
KEY_SHAPE = re.compile(rb"moltbook_sk_[A-Za-z0-9_-]{20,}")


def seed_keys(paths, directory):
    """The first three keys a fresh sandbox issues for each seed the suite uses."""
    keys = []
    for seed in SUITE_SEEDS:
        sandbox = Sandbox(paths, os.path.join(directory, f"seed-{seed}"), seed)
        try:
            for n in range(3):
                status, answer = sandbox.api("POST", "/agents/register", None,
                                             {"name": f"probe_{n}", "description": "key probe"})
                keys.append(answer["agent"]["api_key"])
        finally:
            sandbox.stop()
    return keys


def fixture_keys():
    """Key-shaped strings committed in the repository (fixtures, docs, tests): public by construction."""
    found = set()
    for root in ("Tests", "fixtures", "recipes", "docs", "Sources", "README.md"):
        for directory, _, files in os.walk(root) if os.path.isdir(root) else [(".", [], [root])]:
            for name in files:
                with open(os.path.join(directory, name), "rb") as handle:
                    found.update(KEY_SHAPE.findall(handle.read()))
    return found


def suite(work, result, timeout):
    """The full suite once; its output and temp tree are left in the work directory for the scan."""
    directory = os.path.join(work, ITEM, "suite")
    tmp = os.path.join(directory, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, TMPDIR=tmp)
    scratch = os.environ.get("RELIABILITY_SCRATCH", ".build-rel")
    log_path = os.path.join(directory, "swift-test.log")
    started = time.monotonic()
    with open(log_path, "wb") as output:
        try:
            status = subprocess.run(["swift", "test", "--scratch-path", scratch, "--skip-build"], env=env,
                                    stdout=output, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
    with open(log_path, "rb") as handle:
        text = handle.read().decode(errors="replace")
    lines = [line.strip() for line in text.splitlines()
             if re.search(r"Test run with \d+ tests?|Executed \d+ tests?", line)]
    failed = sorted(set(re.findall(r"Test (\w+\(.*?\)) .*?(?:failed|recorded an issue)", text)))
    summary = "; ".join(lines[-2:]) or "no summary line"
    result.fact(f"test suite: exit {status} in {time.monotonic() - started:.0f} s ({summary})"
                + (f"; failing: {', '.join(failed[:6])}" if failed else ""))
    return directory


def scenario(paths, work, result):
    """A run with a known key at log level trace, through success, faults and a rejected key."""
    directory = os.path.join(work, ITEM, "scenario")
    os.makedirs(directory, exist_ok=True)
    model_key = "sk-scan-model-" + os.urandom(16).hex()
    paths.remember_key(model_key)
    # The key files are where the key belongs: outside the scanned tree (as the keychain's passphrase is).
    secrets = tempfile.mkdtemp(prefix="moltipass-scan-secrets-")
    model_key_file = os.path.join(secrets, "sandbox-model.key")
    with open(model_key_file, "w") as handle:
        handle.write(model_key + "\n")
    os.chmod(model_key_file, 0o600)
    sandbox = Sandbox(paths, directory, 20_261_201, {"new_agent_period_seconds": 0},
                      extra=("--openai", "--openai-key-file", model_key_file))
    try:
        home = Home(paths, directory)
        sandbox.set_clock(T0 - datetime.timedelta(days=2))
        host = sandbox.register("scan_host", paths)
        key = sandbox.register("scan_agent", paths)
        target = sandbox.post(host, "general", "Scan target", "Hello.")
        home.init_keychain()
        home.add_key("scan_agent", key)
        ghost = "moltbook_sk_" + "ghostKEYnotKNOWNtoTHEsandbox0042"
        paths.remember_key(ghost)
        home.add_key("scan_ghost", ghost)
        home.file("queue.yaml", harness.queue_text(20))
        recipes = {}
        for agent in ("scan_agent", "scan_ghost"):
            recipes[agent] = home.file(f"{agent}.yaml", f"""agent: {agent}
base_url: {sandbox.base}
jobs:
  - id: talk
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: queue.yaml }}
      - comment: {{ post: {target}, content: "Trace at {{{{ date: HH:mm }}}}" }}
      - vote: {{ ensure: upvoted, post: {target} }}
""")
        trace = ["--log-level", "trace", "--log-format", "json", "--json"]
        now = T0
        statuses = []
        for faults in ([], [{"mode": "auth_wave", "count": 3}], [{"mode": "drop", "method": "POST"}],
                       [{"mode": "malformed_json", "method": "POST"}], [{"mode": "redirect"}], []):
            sandbox.set_clock(now)
            if faults:
                sandbox.faults(faults)
            statuses.append(home.run_once([recipes["scan_agent"]], now, trace).returncode)
            sandbox.clear_faults()
            now += datetime.timedelta(minutes=31)
        # Exactly on the grid: a recipe's first run fires what is due now, nothing from before it.
        ghost_at = T0 + datetime.timedelta(hours=4)
        sandbox.set_clock(ghost_at)
        statuses.append(home.run_once([recipes["scan_ghost"]], ghost_at, trace).returncode)
        for agent in ("scan_agent", "scan_ghost"):
            statuses.append(home.run(["keys", "verify", agent, "--base-url", sandbox.base]).returncode)
        statuses.append(home.run(["keys", "list", "--json"]).returncode)
        statuses.append(home.run(["status", *recipes.values(), "--state", home.state, "--json"]).returncode)
        # Generated comments: the model key from the keychain, then from a file; then `generate` by hand.
        added = home.run(["keys", "add", "--model", "scan_model"], stdin=model_key + "\n").returncode
        own_key_file = os.path.join(secrets, "model.key")
        with open(own_key_file, "w") as handle:
            handle.write(model_key + "\n")
        os.chmod(own_key_file, 0o600)
        generated = []
        for index, source in enumerate(("key: scan_model", f"key_file: {own_key_file}")):
            path = home.file(f"scan_generated_{index}.yaml", f"""agent: scan_agent
base_url: {sandbox.base}
jobs:
  - id: written{index}
    schedule: {{ every: 30m }}
    steps:
      - comment:
          post: {target}
          generate:
            openai:
              base_url: {sandbox.root}/openai/v1
              model: scan-model
              system: "Say nothing secret."
              prompt: "Answer {{{{ post.title }}}} ({index})"
              {source}
""")
            # On the half-hour grid: a recipe's first run fires what is due now.
            at = T0 + datetime.timedelta(hours=5, minutes=30 * index)
            sandbox.set_clock(at)
            generated.append(home.run_once([path], at, trace).returncode)
        generated.append(home.run(["generate", path, "--step", "written1/1", "--json"]).returncode)
        statuses += [added] + generated
        result.fact(f"scenario at log level trace (post, 401 wave, drop, half JSON, redirect, clean; rejected key; "
                    f"keys verify ×2, keys list, status; keys add --model, two generated comments, generate): "
                    f"exits {statuses}")
        result.check(added == 0 and generated[:2] == [0, 0],
                     f"the generated comments did not go through: keys add --model {added}, runs {generated}")
        result.check(statuses[6] == 77 and statuses[8] == 77, f"the rejected key was not reported as such: {statuses}")
    finally:
        sandbox.stop()
        shutil.rmtree(secrets, ignore_errors=True)


def scan(work, known, allowed):
    """(files scanned, bytes, hits): every file under `work`, as bytes."""
    needles = set()
    for key in known:
        needles.add(key.encode())
        needles.add(key.removeprefix("moltbook_sk_").encode())
    files = size = 0
    hits = []
    for directory, subdirectories, names in os.walk(work):
        if directory == work and "bin" in subdirectories:
            subdirectories.remove("bin")  # the copied binaries (docs/reliability.md): 80 MB of code, no state
        for name in names:
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            files += 1
            size += len(data)
            for needle in needles:
                if needle in data:
                    hits.append((path, needle.decode()[:16] + "…"))
            for shaped in set(KEY_SHAPE.findall(data)):
                if shaped not in allowed and shaped.decode() not in known:
                    hits.append((path, "key-shaped " + shaped.decode()[:16] + "…"))
    return files, size, hits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--suite-timeout", type=int, default=900)
    args = parser.parse_args()
    result = Result(ITEM, args.seed, f"scripts/reliability/secret-scan --seed {args.seed}")
    paths = harness.Paths()
    work = paths.work
    probes = os.path.join(work, ITEM, "probes")
    os.makedirs(probes, exist_ok=True)
    seeded_keys = seed_keys(paths, probes)
    if not args.skip_suite:
        suite(work, result, args.suite_timeout)
    scenario(paths, work, result)
    with open(paths.known_keys) as handle:
        registered = [line.strip() for line in handle if line.strip()]
    known = set(registered) | set(seeded_keys)
    allowed = fixture_keys()
    # Control: a file holding one known key inside the scanned tree must be found, or the scan is broken.
    control = os.path.join(work, ITEM, "control")
    os.makedirs(control, exist_ok=True)
    sample = sorted(known)[0]
    with open(os.path.join(control, "planted.bin"), "wb") as handle:
        handle.write(b"\x00state\x00" + sample.encode() + b"\x00")
    _, _, planted = scan(control, known, allowed)
    result.check(len(planted) >= 1, "the control key planted in a file was not found: the scan is broken")
    os.remove(os.path.join(control, "planted.bin"))
    files, size, hits = scan(work, known, allowed)
    result.fact(f"scanned {files} files ({size / 1e6:.1f} MB) under the work directory for {len(known)} known keys "
                f"({len(set(registered))} the harness registered or stored, {len(seeded_keys)} the suite's sandboxes hand "
                f"out first) and for any key-shaped string outside the {len(allowed)} fixture keys: {len(hits)} hits "
                f"(a planted control key was found: {len(planted) >= 1})")
    for path, what in hits[:20]:
        result.check(False, f"{what} in {os.path.relpath(path, work)}")
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
