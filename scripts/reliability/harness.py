"""Shared pieces of the reliability harness (docs/reliability.md): the `moltbook-sandbox` process and its
admin API, a temporary HOME with a keychain, the real `moltipass` binary, result records.

Standard library only. Every item is repeatable: its randomness comes from one printed seed, and the
sandbox is seeded from it too (same seed, same keys and ids for the same request sequence).
"""

import datetime
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

T0 = datetime.datetime(2026, 12, 1, 10, 0, 0, tzinfo=datetime.timezone.utc)
PASSPHRASE = "reliability harness passphrase"


def iso(moment):
    """ISO-8601 in UTC with seconds, as `--now` and the sandbox clock take it."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def log(item, message):
    print(f"{item}: {message}", flush=True)


class HarnessError(Exception):
    pass


class Paths:
    """Where the binaries and the work directory are (set by scripts/reliability/lib.sh)."""

    def __init__(self):
        self.bin = os.environ.get("RELIABILITY_BIN") or ".build-rel/debug"
        self.moltipass = os.path.join(self.bin, "moltipass")
        self.sandbox = os.path.join(self.bin, "moltbook-sandbox")
        self.work = os.environ.get("RELIABILITY_WORK") or "/tmp/moltipass-reliability"
        # Keys the harness registered, one a line, for the secret scan: kept beside the work directory,
        # never inside it, so the scan of the work directory cannot find them there.
        self.known_keys = self.work.rstrip("/") + ".keys"
        for binary in (self.moltipass, self.sandbox):
            if not os.access(binary, os.X_OK):
                raise HarnessError(f"{binary} is missing: build first (scripts/reliability/lib.sh does)")
        os.makedirs(self.work, exist_ok=True)

    def item_dir(self, name):
        path = os.path.join(self.work, name)
        os.makedirs(path, exist_ok=True)
        return path

    def remember_key(self, key):
        fd = os.open(self.known_keys, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a") as handle:
            handle.write(key + "\n")


class Sandbox:
    """A `moltbook-sandbox` process on loopback with a fixed clock; `--verbose` request log in `log_path`."""

    def __init__(self, paths, directory, seed, config=None, verbose=True, extra=()):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.log_path = os.path.join(directory, "sandbox.log")
        arguments = [paths.sandbox, "--port", "0", "--seed", str(seed)] + (["--verbose"] if verbose else [])
        if config is not None:
            config_path = os.path.join(directory, "sandbox-config.json")
            with open(config_path, "w") as handle:
                json.dump(config, handle)
            arguments += ["--config", config_path]
        arguments += list(extra)
        self.log_file = open(self.log_path, "ab")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log_file)
        line = self.process.stdout.readline().decode()
        if "listening on " not in line:
            self.stop()
            raise HarnessError(f"moltbook-sandbox did not start: {line!r}")
        self.base = line.strip().split("listening on ", 1)[1]
        self.root = self.base.split("/api/v1")[0]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()

    def request(self, method, url, body=None, key=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if key is not None:
            request.add_header("Authorization", "Bearer " + key)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            text = error.read()
            try:
                return error.code, json.loads(text)
            except ValueError:
                return error.code, text.decode(errors="replace")

    def admin(self, method, path, body=None):
        status, answer = self.request(method, f"{self.root}/_sandbox/{path}", body)
        if not 200 <= status < 300:
            raise HarnessError(f"sandbox admin {method} {path}: HTTP {status} {answer}")
        return answer

    def api(self, method, path, key, body=None):
        return self.request(method, self.base + path, body, key)

    def set_clock(self, moment):
        self.admin("POST", "clock", {"now": iso(moment)})

    def counters(self):
        return self.admin("GET", "counters")

    def configure(self, patch):
        return self.admin("POST", "config", patch)

    def faults(self, specs):
        return self.admin("POST", "faults", {"faults": specs})

    def clear_faults(self):
        return self.admin("DELETE", "faults")

    def register(self, name, paths, claim=True):
        """Registers `name` through the API (so the harness knows its key for the secret scan); claims it."""
        status, answer = self.api("POST", "/agents/register", None, {"name": name, "description": "reliability"})
        if status != 201:
            raise HarnessError(f"register {name}: HTTP {status} {answer}")
        key = answer["agent"]["api_key"]
        paths.remember_key(key)
        if claim:
            self.admin("POST", f"agents/{name}/claim")
        return key

    def post(self, key, submolt, title, content):
        status, answer = self.api("POST", "/posts", key, {"submolt_name": submolt, "title": title, "content": content})
        if status != 201:
            raise HarnessError(f"post {title}: HTTP {status} {answer}")
        return answer["post"]["id"]

    def comment(self, key, post_id, content):
        status, answer = self.api("POST", f"/posts/{post_id}/comments", key, {"content": content})
        if status != 201:
            raise HarnessError(f"comment: HTTP {status} {answer}")
        return answer["comment"]["id"]

    def posts_by(self, reader_key, author):
        """Titles of `author`'s visible posts, oldest first (every page of `GET /posts?sort=new`)."""
        titles, cursor = [], None
        for _ in range(100):
            path = "/posts?sort=new&limit=100" + (f"&cursor={cursor}" if cursor else "")
            status, answer = self.api("GET", path, reader_key)
            if status != 200:
                raise HarnessError(f"list posts: HTTP {status} {answer}")
            for post in answer.get("posts", []):
                name = post.get("author", {}).get("name") if isinstance(post.get("author"), dict) else post.get("author")
                if name == author:
                    titles.append(post.get("title"))
            cursor = answer.get("next_cursor")
            if not answer.get("has_more") or not cursor:
                break
        return list(reversed(titles))

    def post_detail(self, key, post_id):
        status, answer = self.api("GET", f"/posts/{post_id}", key)
        if status != 200:
            raise HarnessError(f"post {post_id}: HTTP {status} {answer}")
        return answer.get("post", answer)


class Home:
    """A temporary HOME with XDG directories, a 0600 passphrase file and a keychain (scrypt N = 2^10)."""

    def __init__(self, paths, directory, log_name="runs.log"):
        self.paths = paths
        self.path = directory
        self.passphrase_file = os.path.join(directory, "passphrase")
        fd = os.open(self.passphrase_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(PASSPHRASE + "\n")
        self.state = os.path.join(directory, "state.sqlite")
        self.log_path = os.path.join(directory, log_name)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": directory,
            "XDG_CONFIG_HOME": directory + "/config",
            "XDG_DATA_HOME": directory + "/data",
            "XDG_STATE_HOME": directory + "/state",
            "XDG_CACHE_HOME": directory + "/cache",
            "TMPDIR": directory,
            "MOLTIPASS_PASSPHRASE_FILE": self.passphrase_file,
            "LANG": "C.UTF-8",
        }
        self.keychain = directory + "/config/moltipass/keychain"

    def run(self, arguments, stdin=None, timeout=120):
        """Runs `moltipass ARGS`; stdout and stderr are appended to the log (scanned for secrets later)."""
        started = time.monotonic()
        result = subprocess.run(
            [self.paths.moltipass] + arguments, env=self.env, cwd=self.path, input=stdin,
            capture_output=True, text=True, timeout=timeout)
        self.record(arguments, result.returncode, result.stdout, result.stderr, time.monotonic() - started)
        return result

    def record(self, arguments, status, stdout, stderr, seconds):
        with open(self.log_path, "a") as handle:
            handle.write(f"$ moltipass {' '.join(arguments)}  -> {status} ({seconds:.2f} s)\n{stdout}{stderr}\n")

    def start(self, arguments):
        """Starts `moltipass ARGS` in the background with its output going to the log."""
        handle = open(self.log_path, "a")
        handle.write(f"$ moltipass {' '.join(arguments)}  (background)\n")
        handle.flush()
        process = subprocess.Popen(
            [self.paths.moltipass] + arguments, env=self.env, cwd=self.path, stdout=handle, stderr=handle,
            stdin=subprocess.DEVNULL)
        handle.close()
        return process

    def init_keychain(self, log2n=10):
        result = self.run(["keys", "init", "--scrypt-log2n", str(log2n)])
        if result.returncode != 0:
            raise HarnessError(f"keys init: {result.returncode} {result.stderr}")

    def add_key(self, name, key):
        result = self.run(["keys", "add", name], stdin=key + "\n")
        if result.returncode != 0:
            raise HarnessError(f"keys add {name}: {result.returncode} {result.stderr}")

    def file(self, name, text):
        path = os.path.join(self.path, name)
        with open(path, "w") as handle:
            handle.write(text)
        return path

    def run_once(self, recipes, at, extra=(), timeout=120):
        return self.run(["run", *recipes, "--once", "--detailed-exitcode", "--state", self.state, "--now", iso(at),
                         *extra], timeout=timeout)

    def once_arguments(self, recipes, at, extra=()):
        return ["run", *recipes, "--once", "--detailed-exitcode", "--state", self.state, "--now", iso(at), *extra]

    def query(self, sql):
        """Rows of `sql` on the state file (read-only)."""
        connection = sqlite3.connect(f"file:{self.state}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql).fetchall()
        finally:
            connection.close()


def queue_text(count, prefix="Item"):
    return "".join(f'- title: "{prefix} {n}"\n  content: "Body {n} of the reliability queue."\n' for n in range(count))


def journal_summary(home):
    """Journal rows by (action, state)."""
    rows = home.query("SELECT action, state, count(*) FROM journal GROUP BY action, state ORDER BY action, state")
    return {f"{action}/{state}": count for action, state, count in rows}


def contiguous_queue(titles, prefix="Item"):
    """Whether the titles are `Item 0`, `Item 1`, … in order, each once (no item lost, skipped or repeated)."""
    return titles == [f"{prefix} {n}" for n in range(len(titles))]


class Result:
    """An item's verdict: printed, and written as JSON for run-all and docs/reliability.md."""

    def __init__(self, item, seed, command):
        self.item, self.seed, self.command = item, seed, command
        self.failures = []
        self.facts = []
        self.started = time.monotonic()

    def check(self, condition, message):
        if not condition:
            self.failures.append(message)
            log(self.item, "FAIL " + message)
        return condition

    def fact(self, text):
        self.facts.append(text)
        log(self.item, text)

    def finish(self):
        seconds = time.monotonic() - self.started
        verdict = "pass" if not self.failures else "FAIL"
        summary = "; ".join(self.facts + [f"FAIL: {f}" for f in self.failures])
        record = {
            "item": self.item, "seed": self.seed, "command": self.command, "verdict": verdict,
            "summary": summary, "seconds": round(seconds),
        }
        results = os.environ.get("RELIABILITY_RESULTS")
        if results:
            os.makedirs(results, exist_ok=True)
            with open(os.path.join(results, self.item + ".json"), "w") as handle:
                json.dump(record, handle)
        log(self.item, f"{verdict} in {seconds:.0f} s (seed {self.seed})")
        return 0 if not self.failures else 1


def seeded(seed):
    return random.Random(seed)


def main_guard(function):
    try:
        sys.exit(function())
    except HarnessError as error:
        print(f"harness error: {error}", file=sys.stderr)
        sys.exit(2)
