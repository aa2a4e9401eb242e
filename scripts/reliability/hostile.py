"""Item 7: hostile programs. Generator programs (`generate: { command: … }`) and challenge solver programs
(`challenge: { solver: { command: … } }`) that behave as badly as a program can, run by `moltipass run --once`.

The programs print the agent's API key and other `moltbook_sk_…`-shaped strings on stdout and stderr, exit
non-zero, hang past their timeout (ignoring SIGTERM), start a `setsid` grandchild (or a child in their own group)
that sleeps, print megabytes, print ESC, BEL, NUL and invalid UTF-8, close stdout early; beside them a
well-behaved generator and a queue of posts, so that some writes are published and can be looked at.

The keys the programs print are read at run time from a directory outside the work directory (the agent's key
and two fake keys made from the seed): no file the harness leaves in the work directory holds one, so whatever
holds one afterwards got it from the runner. Every key is remembered for the secret scan (item 6) too.

Phases, against one `moltbook-sandbox`:
  1. generators: one agent, a recipe with one job per program (every 30 min, timeout 2 s) and a queue job;
     `run --once --json --log-level debug` 30 simulated minutes apart, logging as JSON lines and as text every
     other run; then `moltipass generate` once per program step, with and without `--json`;
  2. solvers: every write challenged (`challenge_rate: 1`), one agent per solver program (pause 1m, so the
     second post is challenged too before the streak stops the agent), three runs 31 minutes apart;
  3. `status` of every agent, with and without `--json`.

Checks: no run dies by a signal, hangs or exits with an undocumented status; every program ran; nothing
published (every post and comment the sandbox holds, pending ones included) contains a control character or a
key-shaped string; no key (nor its 32-character body, nor any key-shaped string) appears in any run's stdout,
stderr, --json report or log, in `status`, or in a state file (its bytes, -wal and -shm included, and sqlite3
dumps); no raw control byte (ESC, BEL, NUL …) reaches a stdout or stderr, and no report reason holds one; no
process a program started survives the run (by the pid files the programs write, by `HOSTILE_MARK` and by
`SPAWNED_BY_MOLTIPASS` in /proc/PID/environ; survivors are then killed); no duplicate post or comment.

    python3 scripts/reliability/hostile.py --seed N [--generator-runs 6]
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "hostile-programs"
# Every status `run --once --detailed-exitcode` documents (README, "Exit codes"; ExitStatus.swift).
RUN_EXITS = {0, 3, 4, 5, 6, 7, 8, 9, 17, 75, 77}
# `moltipass generate`: 0 passes, 15 refused, 16 skipped, 17 failed.
GENERATE_EXITS = {0, 15, 16, 17}
KEY_SHAPE = re.compile(rb"moltbook_sk_[A-Za-z0-9_-]{20,}")
KEY_SHAPE_TEXT = re.compile(r"moltbook_[A-Za-z0-9_-]{20,}")
# C0 controls other than tab, newline and carriage return, DEL, and the C1 range.
CONTROL_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

# The programs. Each is a POSIX shell script written to the work directory; `$S` is the secrets directory
# (outside the work directory), `$P` the pid directory. Each program appends its own pid to P/NAME.pid and the
# pids of what it starts to P/NAME.children. No script holds a key: they read them from $S.
PREAMBLE = """#!/bin/sh
S='{secrets}'
P='{pids}'
NAME='{name}'
echo $$ >> "$P/$NAME.pid"
key=$(cat "$S/agent.key"); fake=$(cat "$S/fake1.key"); fake2=$(cat "$S/fake2.key")
"""
# The write's occurrence from the JSON context on stdin (texts must differ per occurrence: the duplicate guard).
READ_CONTEXT = """ctx=$(cat)
occ=$(printf '%s' "$ctx" | sed -n 's/.*"occurrence":"\\([^"]*\\)".*/\\1/p')
"""

GENERATORS = {
    # name: (behaviours, step kind, body)
    "key-in-text": (("keys on stdout",), "comment", READ_CONTEXT + """
printf 'Notes for %s. My credentials are %s, keep them safe.\\n' "$occ" "$key"
"""),
    "fake-key-json": (("keys on stdout",), "post",
                      READ_CONTEXT + """
printf '{"title": "Token %s", "content": "Use %s at %s"}\\n' "$fake" "$fake2" "$occ"
"""),
    "key-stderr-exit2": (("keys on stderr", "non-zero exit"), "comment", """cat >/dev/null
printf 'fatal: auth with %s failed (also tried %s)\\n' "$key" "$fake" >&2
printf 'second line %s\\n' "$fake2" >&2
exit 2
"""),
    "key-stderr-skip": (("keys on stderr", "non-zero exit"), "comment", """cat >/dev/null
printf '%s nothing to say today\\n' "$fake2" >&2
exit 3
"""),
    "hang-ignores-term": (("keys on stderr", "hangs past the timeout"), "comment", """
trap '' TERM
printf 'starting with %s\\n' "$key" >&2
sleep 60
"""),
    "setsid-grandchild-hang": (("setsid grandchild", "hangs past the timeout"), "comment", """
setsid sh -c 'echo $$ >> "$1"; exec sleep 300' sh "$P/$NAME.children" </dev/null >/dev/null 2>&1 &
sleep 60
"""),
    "setsid-grandchild-ok": (("setsid grandchild",), "comment",
                             READ_CONTEXT + """
setsid sh -c 'echo $$ >> "$1"; exec sleep 300' sh "$P/$NAME.children" </dev/null >/dev/null 2>&1 &
sleep 0.2
printf 'A calm note from the setsid program for %s.\\n' "$occ"
"""),
    "group-child-ok": (("child left in its group",), "comment",
                       READ_CONTEXT + """
sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >> "$P/$NAME.children"
printf 'A calm note from the program with a child for %s.\\n' "$occ"
"""),
    "flood-stdout": (("megabytes of output",), "comment", """cat >/dev/null
head -c 5000000 /dev/zero | tr '\\000' 'a'
"""),
    "flood-stderr-keys": (("megabytes of output", "keys on stderr", "non-zero exit"), "comment", """cat >/dev/null
i=0
while [ $i -lt 30000 ]; do printf '%s %s %s leaked line %d\\n' "$key" "$fake" "$fake2" $i; i=$((i + 1)); done >&2
exit 1
"""),
    "control-chars": (("control characters or invalid UTF-8",), "comment", READ_CONTEXT + """
printf 'Hello \\033[31mred\\033[0m \\007bell \\000nul at %s\\n' "$occ"
"""),
    "invalid-utf8": (("control characters or invalid UTF-8",), "comment", READ_CONTEXT + """
printf 'Caf\\351 \\377\\376 at %s\\n' "$occ"
"""),
    "close-stdout": (("stdout closed early", "keys on stderr"), "comment", """exec 1>&-
cat >/dev/null
printf 'closed my stdout, here is %s\\n' "$key" >&2
sleep 0.3
exit 0
"""),
    "control-stderr": (("control characters or invalid UTF-8", "keys on stderr", "non-zero exit"), "comment",
                       """cat >/dev/null
printf '\\033]0;pwned\\007\\000\\033[2J\\377 %s broke\\n' "$key" >&2
exit 1
"""),
    "well-behaved": (("well-behaved",), "comment", READ_CONTEXT + """
printf 'A plain note for %s from the well-behaved program.\\n' "$occ"
"""),
}

SOLVERS = {
    "solver-key-stdout": (("keys on stdout",), """cat >/dev/null
printf '%s\\n' "$key"
"""),
    "solver-key-stderr": (("keys on stderr", "non-zero exit"), """cat >/dev/null
printf 'cannot solve, my key is %s and %s\\n' "$key" "$fake" >&2
exit 1
"""),
    "solver-hang": (("keys on stderr", "hangs past the timeout"), """
trap '' TERM
printf 'thinking with %s\\n' "$fake2" >&2
sleep 60
"""),
    "solver-setsid": (("setsid grandchild",), """cat >/dev/null
setsid sh -c 'echo $$ >> "$1"; exec sleep 300' sh "$P/$NAME.children" </dev/null >/dev/null 2>&1 &
sleep 0.2
echo 1234567.25
"""),
    "solver-group-child": (("child left in its group",), """cat >/dev/null
sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >> "$P/$NAME.children"
echo 7654321.5
"""),
    "solver-flood": (("megabytes of output",), """cat >/dev/null
head -c 4000000 /dev/zero | tr '\\000' '9'
"""),
    "solver-control": (("control characters or invalid UTF-8", "keys on stderr"), """cat >/dev/null
printf '\\033[2J\\007 12.00 \\000\\377\\n'
printf '\\033]0;%s\\007\\n' "$key" >&2
"""),
    "solver-close-stdout": (("stdout closed early", "keys on stderr"), """exec 1>&-
cat >/dev/null
printf 'no stdout, key %s\\n' "$key" >&2
sleep 0.3
"""),
}


def write_program(directory, name, body, secrets, pids):
    path = os.path.join(directory, name + ".sh")
    with open(path, "w") as handle:
        handle.write(PREAMBLE.format(secrets=secrets, pids=pids, name=name) + body)
    os.chmod(path, 0o755)
    return path


def fake_key(rng):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "moltbook_sk_" + "".join(rng.choice(alphabet) for _ in range(32))


def generator_recipe(agent, base, target, programs, secrets, pids):
    jobs = ["""  - id: queue-posts
    schedule: { every: 30m }
    steps:
      - post: { submolt: general, queue: queue.yaml }"""]
    for name, (_, kind, _) in GENERATORS.items():
        where = "submolt: general" if kind == "post" else f"post: {target}"
        jobs.append(f"""  - id: {name}
    schedule: {{ every: 30m }}
    steps:
      - {kind}:
          {where}
          generate:
            command: [{programs[name]}]
            timeout: 2s
            env: [HOSTILE_MARK]""")
    return f"""agent: {agent}
time_zone: UTC
base_url: {base}
jobs:
""" + "\n".join(jobs) + "\n"


def solver_recipe(agent, base, program, queue):
    return f"""agent: {agent}
time_zone: UTC
base_url: {base}
challenge:
  solver: {{ command: {program}, timeout: 2s }}
  on_fail: {{ pause: 1m }}
jobs:
  - id: posts
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: {queue} }}
"""


class Hostile:
    def __init__(self, args, paths, result):
        self.args, self.paths, self.result = args, paths, result
        self.rng = harness.seeded(args.seed)
        self.directory = paths.item_dir(ITEM)
        self.mark = f"hostile-{args.seed}-{os.getpid()}"
        self.sandbox = Sandbox(paths, self.directory, args.seed % 2**32,
                               {"new_agent_period_seconds": 0, "hide_pending_content": False})
        self.home = Home(paths, self.directory)
        self.home.env["HOSTILE_MARK"] = self.mark
        # The keys the programs print: outside the work directory, like a key file belongs.
        self.secrets = tempfile.mkdtemp(prefix="moltipass-hostile-secrets-")
        self.pids = os.path.join(self.directory, "pids")
        self.programs_dir = os.path.join(self.directory, "programs")
        os.makedirs(self.pids, exist_ok=True)
        os.makedirs(self.programs_dir, exist_ok=True)
        self.keys = []  # every key a program may print (the agents' and the fakes)
        self.agent_keys = {}
        self.outputs = []  # (label, bytes) of every stdout and stderr
        self.runs = 0
        self.exits = {}
        self.bad_exits = []
        self.reports = 0
        self.reasons = []
        self.survivors = []
        self.states = []
        self.now = T0

    # MARK: set-up

    def setup(self):
        sandbox, home = self.sandbox, self.home
        sandbox.set_clock(T0 - datetime.timedelta(days=2))
        host = sandbox.register("hp_host", self.paths)
        self.target = sandbox.post(host, "general", "Hostile target", "Programs comment here.")
        writer = self.register("hp_writer")
        fakes = [fake_key(self.rng), fake_key(self.rng)]
        for fake in fakes:
            self.paths.remember_key(fake)
        self.keys += fakes
        self.write_secret("agent.key", writer)
        for index, fake in enumerate(fakes, 1):
            self.write_secret(f"fake{index}.key", fake)
        home.init_keychain()
        home.add_key("hp_writer", writer)
        home.file("queue.yaml", harness.queue_text(50))
        self.generators = {name: write_program(self.programs_dir, name, body, self.secrets, self.pids)
                           for name, (_, _, body) in GENERATORS.items()}
        self.generator_recipe = home.file(
            "hp_writer.yaml", generator_recipe("hp_writer", sandbox.base, self.target, self.generators,
                                               self.secrets, self.pids))
        self.generator_state = os.path.join(home.path, "state-generators.sqlite")
        self.states.append(self.generator_state)
        # Solver agents: each its own key; the solver prints the key of the agent it answers for.
        self.solver_recipes = {}
        for name in SOLVERS:
            agent = "hp_" + name.replace("-", "_")[:28]
            key = self.register(agent)
            home.add_key(agent, key)
            home.file(f"queue-{agent}.yaml", harness.queue_text(10, prefix=f"{agent} item"))
            secrets = os.path.join(self.secrets, agent)
            os.makedirs(secrets, exist_ok=True)
            for file_name, value in (("agent.key", key), ("fake1.key", fakes[0]), ("fake2.key", fakes[1])):
                self.write_secret(os.path.join(agent, file_name), value)
            program = write_program(self.programs_dir, name, SOLVERS[name][1], secrets, self.pids)
            self.solver_recipes[name] = (agent, home.file(
                f"{agent}.yaml", solver_recipe(agent, sandbox.base, program, f"queue-{agent}.yaml")))
        self.solver_state = os.path.join(home.path, "state-solvers.sqlite")
        self.states.append(self.solver_state)

    def register(self, name):
        key = self.sandbox.register(name, self.paths)
        self.keys.append(key)
        self.agent_keys[name] = key
        return key

    def write_secret(self, name, value):
        path = os.path.join(self.secrets, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(value + "\n")

    # MARK: running

    def moltipass(self, arguments, label, allowed, timeout=120):
        """Runs the binary with bytes for output (a program's invalid UTF-8 must not break the harness);
        then looks for what the programs left running. Returns (status, stdout, stderr)."""
        started = time.monotonic()
        process = subprocess.Popen([self.paths.moltipass] + arguments, env=self.home.env, cwd=self.home.path,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            status = process.returncode
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
            status = "hang"
        seconds = time.monotonic() - started
        with open(self.home.log_path, "ab") as handle:
            handle.write(f"$ moltipass {' '.join(arguments)}  -> {status} ({seconds:.2f} s)\n".encode()
                         + stdout + stderr + b"\n")
        self.runs += 1
        self.exits[status] = self.exits.get(status, 0) + 1
        if status == "hang" or status < 0 or status not in allowed:
            self.bad_exits.append(f"{label}: {status}")
            self.result.check(False, f"{label}: exit {status} ({stderr[-300:].decode(errors='replace')!r})")
        self.outputs.append((f"{label} stdout", stdout))
        self.outputs.append((f"{label} stderr", stderr))
        self.look_for_survivors(label, process.pid)
        return status, stdout, stderr

    def run_once(self, recipes, state, label, log_format):
        self.sandbox.set_clock(self.now)
        arguments = ["run", *recipes, "--once", "--detailed-exitcode", "--json", "--log-level", "debug",
                     "--log-format", log_format, "--state", state, "--now", harness.iso(self.now)]
        status, stdout, _ = self.moltipass(arguments, label, RUN_EXITS)
        try:
            report = json.loads(stdout)
        except ValueError:
            self.result.check(False, f"{label}: --json output does not parse: {stdout[:200]!r}")
            return status, {}
        self.reports += 1
        for item in report.get("items", []):
            if item.get("reason"):
                self.reasons.append((label, item.get("job", ""), item.get("outcome"), item["reason"]))
        return status, report

    def look_for_survivors(self, label, run_pid):
        """Processes the programs started that are still alive once the run has exited."""
        time.sleep(0.3)
        found = {}
        mark = f"HOSTILE_MARK={self.mark}".encode()
        tag = f"SPAWNED_BY_MOLTIPASS={run_pid}.".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            environ = read_environ(pid)
            if environ is None or not alive(pid):
                continue
            variables = environ.split(b"\0")
            if mark in variables or any(v.startswith(tag) for v in variables):
                found[pid] = "environment"
        for name in os.listdir(self.pids):
            with open(os.path.join(self.pids, name)) as handle:
                for line in handle:
                    if line.strip().isdigit():
                        pid = int(line.strip())
                        environ = read_environ(pid)
                        # The pid is ours only while it carries the mark (a pid is reused).
                        if environ is not None and alive(pid) and f"HOSTILE_MARK={self.mark}".encode() in environ:
                            found.setdefault(pid, name)
        for pid, how in sorted(found.items()):
            program = self.program_of(pid)
            self.survivors.append((label, pid, program, how))
            log(ITEM, f"{label}: process {pid} ({program}, found by {how}) survived the run")
            try:
                os.kill(pid, signal.SIGKILL)  # a descendant of a run this harness started
            except ProcessLookupError:
                pass

    def program_of(self, pid):
        for name in os.listdir(self.pids):
            with open(os.path.join(self.pids, name)) as handle:
                if str(pid) in handle.read().split():
                    return name
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                return handle.read().replace(b"\0", b" ").decode(errors="replace")[:80]
        except OSError:
            return "?"

    def invocations(self, name):
        path = os.path.join(self.pids, name + ".pid")
        if not os.path.exists(path):
            return 0
        with open(path) as handle:
            return sum(1 for line in handle if line.strip())

    # MARK: phases

    def generator_phase(self):
        statuses = []
        for index in range(self.args.generator_runs):
            # On the half-hour grid plus 20 s: each run has every job's occurrence due.
            self.now = T0 + datetime.timedelta(minutes=30 * index, seconds=20)
            # Logs as JSON lines and as text, every other run (text is what a terminal or cron mail shows).
            status, report = self.run_once([self.generator_recipe], self.generator_state, f"generator run {index}",
                                           ("json", "text")[index % 2])
            statuses.append(status)
        log(ITEM, f"generator runs: exits {statuses}")
        # `moltipass generate` for every program step, with --json and as text.
        for job in GENERATORS:
            for form in (["--json"], []):
                status, stdout, _ = self.moltipass(
                    ["generate", self.generator_recipe, "--step", f"{job}/1", *form, "--state",
                     self.generator_state], f"generate {job}{' --json' if form else ''}", GENERATE_EXITS)
                if not form:
                    continue
                try:
                    answer = json.loads(stdout)
                except ValueError:
                    self.result.check(False, f"generate {job}: --json output does not parse: {stdout[:200]!r}")
                    continue
                self.reports += 1
                if answer.get("reason"):
                    self.reasons.append((f"generate {job}", job, answer.get("outcome"), answer["reason"]))

    def solver_phase(self):
        self.sandbox.configure({"challenge_rate": 1})
        recipes = [recipe for _, recipe in self.solver_recipes.values()]
        statuses = []
        for index in range(3):
            self.now = T0 + datetime.timedelta(hours=4, minutes=31 * index, seconds=20)
            status, report = self.run_once(recipes, self.solver_state, f"solver run {index}",
                                           ("text", "json")[index % 2])
            statuses.append(status)
        self.sandbox.configure({"challenge_rate": 0})
        log(ITEM, f"solver runs: exits {statuses}")

    def statuses(self):
        for recipes, state in (([self.generator_recipe], self.generator_state),
                               ([r for _, r in self.solver_recipes.values()], self.solver_state)):
            for form in (["--json"], []):
                self.moltipass(["status", *recipes, "--state", state, *form, "--now", harness.iso(self.now)],
                               f"status {' '.join(form)} ({os.path.basename(state)})".replace("  ", " "), {0})

    # MARK: checks

    def published(self):
        """(kind, author, title, content) of every post and comment the sandbox holds, pending ones too."""
        texts = []
        reader = self.sandbox.register("hp_reader", self.paths)
        for author in ["hp_host", "hp_writer"] + [agent for agent, _ in self.solver_recipes.values()]:
            for title, content in self.posts_of(reader, author):
                texts.append(("post", author, title, content))
        comments = self.sandbox.admin("GET", "comments")
        for comment in comments.get("comments", []):
            texts.append(("comment", comment.get("author"), "", comment.get("content") or ""))
        return texts

    def posts_of(self, reader_key, author):
        found, cursor = [], None
        for _ in range(50):
            path = "/posts?sort=new&limit=100" + (f"&cursor={cursor}" if cursor else "")
            status, answer = self.sandbox.api("GET", path, reader_key)
            if status != 200:
                raise harness.HarnessError(f"list posts: HTTP {status} {answer}")
            for post in answer.get("posts", []):
                name = post.get("author")
                if isinstance(name, dict):
                    name = name.get("name")
                if name == author:
                    found.append((post.get("title") or "", post.get("content") or ""))
            cursor = answer.get("next_cursor")
            if not answer.get("has_more") or not cursor:
                break
        return found

    def needles(self):
        found = set()
        for key in self.keys:
            found.add(key.encode())
            found.add(key.removeprefix("moltbook_sk_").encode())
        return found

    def scan(self, label, data, hits):
        for needle in self.needles():
            if needle in data:
                hits.append(f"{label}: a known key ({needle.decode()[:6]}…)")
        for shaped in set(KEY_SHAPE.findall(data)):
            if shaped.decode() not in self.keys:
                hits.append(f"{label}: a key-shaped string ({shaped.decode()[:14]}…)")

    def state_bytes(self, state):
        """The raw bytes of the state file and its -wal/-shm, and an sqlite3 dump of it."""
        pieces = []
        for suffix in ("", "-wal", "-shm", "-journal"):
            if os.path.exists(state + suffix):
                with open(state + suffix, "rb") as handle:
                    pieces.append((os.path.basename(state) + suffix, handle.read()))
        connection = sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=10)
        try:
            dump = "\n".join(connection.iterdump()).encode("utf-8", errors="surrogateescape")
        finally:
            connection.close()
        pieces.append((os.path.basename(state) + " (sqlite3 dump)", dump))
        if shutil.which("sqlite3"):
            cli = subprocess.run(["sqlite3", f"file:{state}?mode=ro", ".dump"], capture_output=True, timeout=60)
            pieces.append((os.path.basename(state) + " (sqlite3 .dump)", cli.stdout))
        return pieces

    def verify(self):
        result, sandbox = self.result, self.sandbox
        counters = sandbox.counters()
        # Every program ran.
        never = [name for name in list(GENERATORS) + list(SOLVERS) if self.invocations(name) == 0]
        result.check(not never, f"programs that never ran: {never}")
        invoked = sum(self.invocations(name) for name in list(GENERATORS) + list(SOLVERS))

        # Published writes.
        texts = self.published()
        dirty = []
        for kind, author, title, content in texts:
            for field in (title, content):
                if CONTROL_TEXT.search(field):
                    dirty.append(f"{kind} by {author}: a control character ({field[:40]!r})")
                if KEY_SHAPE_TEXT.search(field) or any(k in field for k in self.keys):
                    dirty.append(f"{kind} by {author}: a key-shaped string")
        for line in dirty[:10]:
            result.check(False, "published " + line)
        good = sum(1 for kind, author, _, content in texts if kind == "comment" and author == "hp_writer")

        # Keys in outputs and states.
        hits = []
        control_streams = []
        for label, data in self.outputs:
            self.scan(label, data, hits)
            if CONTROL_BYTES.search(data):
                control_streams.append(label)
        with open(self.home.log_path, "rb") as handle:
            self.scan("runs.log", handle.read(), hits)
        state_pieces = 0
        for state in self.states:
            for label, data in self.state_bytes(state):
                state_pieces += 1
                self.scan(label, data, hits)
        # The scan must be able to find a key: a control planted in a copy of a stream.
        planted = []
        self.scan("control", b"\x00log\x00" + self.keys[0].encode() + b"\x00", planted)
        result.check(bool(planted), "the control key was not found: the scan is broken")
        for hit in sorted(set(hits))[:12]:
            result.check(False, hit)
        for label in control_streams[:5]:
            result.check(False, f"raw control bytes in {label}")
        control_reasons = [r for r in self.reasons if CONTROL_TEXT.search(r[3])]
        for label, job, _, reason in control_reasons[:5]:
            result.check(False, f"{label}, {job}: a reason with a control character: {reason[:80]!r}")

        # Survivors.
        by_program = {}
        for _, _, program, _ in self.survivors:
            name = program.rsplit(".", 1)[0] if program.endswith((".pid", ".children")) else program
            name = name.removesuffix(".sh")
            by_program[name] = by_program.get(name, 0) + 1
        result.check(not self.survivors, f"{len(self.survivors)} processes survived their run: {by_program}")

        result.check(counters["duplicate_contents"] == 0, f"{counters['duplicate_contents']} duplicate posts/comments")
        result.check(not self.bad_exits, f"runs with an undocumented exit, a signal or a hang: {self.bad_exits[:5]}")

        # What the reports said, by program (the reasons are redacted; shown shortened in the log).
        outcomes = {}
        for label, job, outcome, reason in self.reasons:
            if label.startswith("generator run") and job in GENERATORS:
                outcomes.setdefault(job, {})
                outcomes[job][outcome] = outcomes[job].get(outcome, 0) + 1
        for job, tally in outcomes.items():
            log(ITEM, f"{job}: {tally}")

        behaviours = {}
        for tags in [g[0] for g in GENERATORS.values()] + [v[0] for v in SOLVERS.values()]:
            for tag in tags:
                behaviours[tag] = behaviours.get(tag, 0) + 1
        result.fact(f"{self.runs} runs of the binary ({self.args.generator_runs} `run --once` of the generators, 3 "
                    f"of the {len(SOLVERS)} solver agents, {2 * len(GENERATORS)} `generate` with and without --json, "
                    f"4 `status` with and without --json), exits "
                    f"{dict(sorted(self.exits.items(), key=lambda kv: str(kv[0])))}; signals, hangs or undocumented "
                    f"exits {len(self.bad_exits)}")
        result.fact(f"{len(GENERATORS)} generator programs and {len(SOLVERS)} solver programs, {invoked} "
                    f"invocations; programs by behaviour: "
                    + ", ".join(f"{tag} {count}" for tag, count in behaviours.items()))
        result.fact(f"solver challenges: {counters['challenges_issued']} issued, {counters['challenges_failed']} "
                    f"answered wrongly, {counters['challenges_expired']} declined (expired unanswered), "
                    f"{counters['challenges_verified']} verified; suspensions {counters['suspensions']}")
        result.fact(f"published writes checked: {len(texts)} ({good} generated comments of the writer); "
                    f"{len(dirty)} with a control character or a key-shaped string; duplicates "
                    f"{counters['duplicate_contents']}")
        result.fact(f"keys found: {len(set(hits))} in {len(self.outputs)} stdout/stderr streams ({self.reports} "
                    f"--json reports), the log and {state_pieces} state views ({len(self.states)} state files: bytes, "
                    f"-wal/-shm, sqlite3 dumps) for {len(self.keys)} known keys and any key-shaped string "
                    f"(control key found: {bool(planted)}); streams with raw control bytes {len(control_streams)}, "
                    f"reasons with control characters {len(control_reasons)}")
        result.fact(f"survivors: {len(self.survivors)}" + (f" {by_program}" if by_program else ""))

    def close(self):
        self.sandbox.stop()
        shutil.rmtree(self.secrets, ignore_errors=True)


def read_environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError:
        return None


def alive(pid):
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
    except OSError:
        return False
    state = stat[stat.rfind(")") + 2:].split(" ", 1)[0]
    return state not in ("Z", "X")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--generator-runs", type=int, default=6)
    args = parser.parse_args()
    command = f"scripts/reliability/hostile-programs --seed {args.seed} --generator-runs {args.generator_runs}"
    result = Result(ITEM, args.seed, command)
    paths = harness.Paths()
    hostile = Hostile(args, paths, result)
    log(ITEM, f"seed {args.seed}: {len(GENERATORS)} generator programs, {len(SOLVERS)} solver programs")
    try:
        hostile.setup()
        hostile.generator_phase()
        hostile.solver_phase()
        hostile.statuses()
        hostile.verify()
    finally:
        hostile.close()
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
