"""The benchmarks of BENCHMARKS.md (issue 9), driven by bench/run-all.

Each item measures one promise, writes its row to bench/results/ITEM.json (numbers, the target,
met or the gap, the command that reproduces it) and `render` turns the rows into BENCHMARKS.md.
Standard library only; the tools (hyperfine, /usr/bin/time, curl, python3-yaml, python3-requests,
psql) are installed by run-all; fleet also starts PostgreSQL with scripts/postgres-server. Binaries come from BENCH_BIN (the release build run-all makes). With
BENCH_BASELINE_BIN and BENCH_BASELINE_REV (run-all --baseline REV), cold-start and plan-speed also
measure that revision's binaries interleaved with the working tree's and write
bench/results/baseline/ITEM.json, the "before vs after" table.

usage: python3 bench/bench.py ITEM…     items: cold-start one-action utilisation plan-speed pass-cost daemon
                                                client fleet
       python3 bench/bench.py render
"""

import datetime
import glob
import hashlib
import json
import os
import platform
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import types
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "reliability"))
import harness  # noqa: E402  (the sandbox process and its API, shared with the reliability harness)
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, ".build-bench", "release")
MOLTIPASS = os.path.join(BIN, "moltipass")
SANDBOX = os.path.join(BIN, "moltbook-sandbox")
CLIENT_BENCH = os.path.join(BIN, "moltipass-bench")
RESULTS = os.path.join(ROOT, "bench", "results")
# run-all --baseline REV: REV's release binaries, measured side by side with BIN's.
BASELINE_BIN = os.environ.get("BENCH_BASELINE_BIN") or None
BASELINE_REV = os.environ.get("BENCH_BASELINE_REV") or "baseline"
BASELINE_RESULTS = os.path.join(RESULTS, "baseline")
PYTHON = os.environ.get("BENCH_PYTHON", "/usr/bin/python3")
PASSPHRASE = "benchmark passphrase, not a secret"
# plan's fixed start: the figures do not depend on the day they are taken.
PLAN_FROM = "2026-03-02T00:00:00Z"


def log(message):
    print(f"bench: {message}", flush=True)


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def save(item, row):
    row["item"] = item
    host = current_run()
    row["measured"] = {"date": host["date"], "commit": host["commit"], "load": os.getloadavg()[0]}
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, item + ".json"), "w") as handle:
        json.dump(row, handle, indent=2, sort_keys=True)
        handle.write("\n")
    log(f"{item}: {row['result']}")


class Work:
    """A temporary directory that is HOME for every process the benchmarks start."""

    def __init__(self, name):
        self.path = tempfile.mkdtemp(prefix=f"moltipass-bench-{name}-")
        self.passphrase = self.file("passphrase", PASSPHRASE + "\n", mode=0o600)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.path,
            "XDG_CONFIG_HOME": self.path + "/config",
            "XDG_STATE_HOME": self.path + "/state",
            "TMPDIR": self.path,
            "LANG": "C.UTF-8",
            "MOLTIPASS_PASSPHRASE_FILE": self.passphrase,
        }

    def file(self, name, text, mode=0o644):
        path = os.path.join(self.path, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        return path

    def run(self, arguments, stdin=None, check=True, extra_env=None, timeout=600):
        env = dict(self.env, **(extra_env or {}))
        result = subprocess.run(
            arguments, env=env, cwd=self.path, input=stdin, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(arguments)}: exit {result.returncode}\n{result.stderr[-2000:]}")
        return result

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def current_run():
    with open(os.path.join(RESULTS, "current-run.json")) as handle:
        return json.load(handle)


def save_comparison(item, rows, how):
    """The before-vs-after rows of an item (run-all --baseline): each row has the benchmark, the
    medians before and after (seconds), after/before and how many runs each side had."""
    host = current_run()
    os.makedirs(BASELINE_RESULTS, exist_ok=True)
    comparison = {"item": item, "before": BASELINE_REV, "after": host["commit"], "date": host["date"],
                  "load": os.getloadavg()[0], "rows": rows, "how": how}
    with open(os.path.join(BASELINE_RESULTS, item + ".json"), "w") as handle:
        json.dump(comparison, handle, indent=2, sort_keys=True)
        handle.write("\n")
    for row in rows:
        if row.get("after_s") is not None and row.get("before_s") is not None:
            log(f"{item} before vs after: {row['benchmark']}: {shown(row['before_s'], row['unit'])} -> "
                f"{shown(row['after_s'], row['unit'])} ({row['ratio']:.2f} ×)")
        else:
            log(f"{item} before vs after: {row['benchmark']}: {row.get('note', 'not measured')}")


def compared(benchmark, before, after, unit, **extra):
    """A before-vs-after row from the two sides' lists of seconds (medians)."""
    before_s, after_s = statistics.median(before), statistics.median(after)
    return dict({"benchmark": benchmark, "before_s": before_s, "after_s": after_s, "ratio": after_s / before_s,
                 "runs": len(after), "unit": unit}, **extra)


def hyperfine(work, commands, runs, warmup=3, ignore_failure=False, extra=()):
    """Runs hyperfine over `commands` side by side; returns its JSON results (medians in seconds)."""
    export = os.path.join(work.path, f"hyperfine-{time.monotonic_ns()}.json")
    arguments = ["hyperfine", "-N", "--style", "basic", "--warmup", str(warmup), "--runs", str(runs),
                 "--export-json", export, *extra]
    if ignore_failure:
        arguments.append("-i")
    result = subprocess.run(arguments + commands, env=work.env, cwd=work.path, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"hyperfine failed: {result.stderr[-2000:]}")
    with open(export) as handle:
        return json.load(handle)["results"]


def sqlite_as_json(path):
    """Every table of a state file as JSON (the Python equivalents read this)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        result = {}
        for table in tables:
            cursor = connection.execute(f"SELECT * FROM {table}")
            names = [column[0] for column in cursor.description]
            result[table] = [
                {name: (value.hex() if isinstance(value, bytes) else value) for name, value in zip(names, row)}
                for row in cursor.fetchall()
            ]
        return result
    finally:
        connection.close()


class Sandbox(harness.Sandbox):
    """`moltbook-sandbox` on loopback with every limit off (benchmarks repeat the same write), without the
    request log (it would be server work inside the measured requests). The reliability harness's class."""

    CONFIG = {
        "limits": {key: None for key in (
            "reads_per_window", "writes_per_window", "post_cooldown_seconds", "comment_cooldown_seconds",
            "comments_per_day", "submolt_cooldown_seconds", "verify_per_minute")},
        "new_agent_period_seconds": 0,
        "auto_claim": True,
    }

    def __init__(self, work):
        super().__init__(
            types.SimpleNamespace(sandbox=SANDBOX), os.path.join(work.path, "sandbox"), 1, self.CONFIG,
            verbose=False)

    def register(self, name):
        status, answer = self.api("POST", "/agents/register", None, {"name": name, "description": "benchmark"})
        if status != 201:
            raise RuntimeError(f"register {name}: HTTP {status} {answer}")
        return answer["agent"]["api_key"]


def machine():
    model = "?"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as handle:
        memory = int(handle.readline().split()[1]) // 1024
    debian = open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "?"
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {
        "cpu": model, "cores": os.cpu_count(), "memory_mib": memory, "kernel": platform.release(),
        "debian": debian, "swift": swift[0] if swift else "?",
        "load": os.getloadavg()[0],
    }


# MARK: cold start, nothing due


def cold_recipe(work):
    """A realistic recipe (post, comment on a selection, upvote a selection) due once a day, 12 h
    from now, so nothing is due while the benchmark runs on the real clock."""
    hour = (datetime.datetime.now(datetime.timezone.utc).hour + 12) % 24
    return work.file("cold.yaml", f"""\
agent: bench-cold
time_zone: UTC
jobs:
  - id: morning-post
    schedule: {{ cron: "30 {hour} * * *", randomized_delay: 10m }}
    steps:
      - post:
          submolt: general
          title: "Notes for {{{{ date }}}}"
          content: "{{{{ random: [Shipping notes., Progress today., A small update.] }}}} — {{{{ agent }}}}"
  - id: welcome
    schedule: {{ cron: "0 {hour} * * *" }}
    steps:
      - comment:
          on: {{ source: submolt, submolt: introductions, sort: new, limit: 20, max_age: 2h, max_per_run: 3 }}
          content: "Welcome, {{{{ post.author }}}}!"
          max_per_day: 30
  - id: upvotes
    schedule: {{ cron: "15 {hour} * * *" }}
    steps:
      - vote:
          ensure: upvoted
          on: {{ source: submolt, submolt: swift, title_matches: "(?i)release|swift 6", max_per_run: 5 }}
""")


def cold_start():
    work = Work("cold")
    try:
        recipe = cold_recipe(work)
        state = os.path.join(work.path, "state.sqlite")
        once = [MOLTIPASS, "run", recipe, "--once", "--detailed-exitcode", "--state", state]
        first = work.run(once, check=False)
        if first.returncode != 3:
            raise RuntimeError(f"the first run should find nothing due (exit 3): {first.returncode} {first.stderr}")
        state_json = work.file("state.json", json.dumps(sqlite_as_json(state)))
        python = [PYTHON, os.path.join(ROOT, "bench", "cold_start.py"), recipe, state_json]
        results = hyperfine(
            work, [" ".join(once), " ".join(python)], runs=40, warmup=5, ignore_failure=True)
        after = work.run(once, check=False)
        if after.returncode != 3:
            raise RuntimeError(f"a run became due during the benchmark: exit {after.returncode}")
        ours, theirs = results[0]["median"], results[1]["median"]
        if BASELINE_BIN:
            cold_start_baseline(work, recipe, once)
        ratio = ours / theirs
        met = ratio <= 0.2 and ours <= 0.030
        save("cold-start", {
            "title": "cron cold start, nothing due",
            "target": "≤ 0.2 × Python, ≤ 30 ms",
            "result": f"{ms(ours)} vs Python {ms(theirs)}: {ratio:.2f} ×",
            "met": met,
            "numbers": {"moltipass_median_s": ours, "python_median_s": theirs, "ratio": ratio,
                        "moltipass_user_s": results[0]["user"], "moltipass_system_s": results[0]["system"],
                        "python_user_s": results[1]["user"], "runs": 40},
            "command": "bench/run-all --only cold-start  (hyperfine -N --warmup 5 --runs 40: "
                       "`moltipass run cold.yaml --once --state state.sqlite` vs "
                       "`python3 bench/cold_start.py cold.yaml state.json`)",
        })
    finally:
        work.remove()


def cold_start_baseline(work, recipe, once):
    """The same cold start with the baseline revision's binary, on its own state file made by its own
    first run (an older binary need not read a newer schema): hyperfine in rounds, the two commands'
    order swapped each round, so both medians see the same machine."""
    state = os.path.join(work.path, "state-baseline.sqlite")
    before = [os.path.join(BASELINE_BIN, "moltipass"), "run", recipe, "--once", "--detailed-exitcode",
              "--state", state]
    first = work.run(before, check=False)
    if first.returncode != 3:
        raise RuntimeError(f"baseline: the first run should find nothing due (exit 3): {first.returncode} "
                           f"{first.stderr[-800:]}")
    rounds, runs = 4, 10
    times = {"before": [], "after": [], "before_cpu": [], "after_cpu": []}
    for index in range(rounds):
        order = [("after", once), ("before", before)]
        if index % 2:
            order.reverse()
        results = hyperfine(work, [" ".join(command) for _, command in order], runs=runs, warmup=2,
                            ignore_failure=True)
        for (side, _), result in zip(order, results):
            if any(code != 3 for code in result.get("exit_codes", [])):
                raise RuntimeError(f"{side}: a cold-start run did not exit 3 (nothing due): {result['exit_codes']}")
            times[side] += result["times"]
            times[side + "_cpu"].append(result["user"] + result["system"])
    save_comparison("cold-start", [compared(
        "cron cold start, nothing due", times["before"], times["after"], "ms",
        before_cpu_s=statistics.median(times["before_cpu"]), after_cpu_s=statistics.median(times["after_cpu"]))],
        f"hyperfine -N, {rounds} rounds × {runs} runs (2 warm-ups), order swapped each round: "
        "`moltipass run cold.yaml --once --state state.sqlite`, each revision on its own state")


# MARK: one action due


def one_action():
    work = Work("one")
    sandbox = Sandbox(work)
    try:
        key = sandbox.register("bench_one")
        strong = os.path.join(work.path, "keychain")
        work.run([MOLTIPASS, "keys", "init", "--keychain", strong])
        work.run([MOLTIPASS, "keys", "add", "bench_one", "--keychain", strong], stdin=key + "\n")
        recipe = work.file("one.yaml", f"""\
agent: bench_one
base_url: {sandbox.base}
time_zone: UTC
jobs:
  - id: posts
    schedule: {{ every: 1m }}
    steps:
      - post:
          submolt: general
          title: "Bench {{{{ date: HH:mm:ss }}}}"
          content: "One post per run."
""")
        template = os.path.join(work.path, "template.sqlite")
        once = [MOLTIPASS, "run", recipe, "--once", "--keychain", strong, "--state"]
        work.run(once + [template], check=False)

        def fresh_state(index):
            """The template (migrated, the agent's age known) with the job's cursor, journal and the
            limiter's ledger forgotten: exactly one occurrence (the last minute's) is due, and the
            local post cooldown admits it."""
            path = os.path.join(work.path, f"state-{index}.sqlite")
            connection = sqlite3.connect(template)
            try:
                connection.execute(f"VACUUM INTO '{path}'")
            finally:
                connection.close()
            connection = sqlite3.connect(path)
            try:
                connection.execute("DELETE FROM schedule_cursors")
                connection.execute("DELETE FROM limiter_state WHERE key = 'limiter'")
                # The template's own post may be this very minute's occurrence (same key).
                connection.execute("DELETE FROM dedup")
                connection.execute("DELETE FROM journal")
                connection.commit()
            finally:
                connection.close()
            return path

        state_json = work.file("state.json", json.dumps(sqlite_as_json(template)))
        python = [PYTHON, os.path.join(ROOT, "bench", "one_action.py"), recipe, state_json]
        runs = 15
        ours, theirs, kdfs = [], [], []

        def timed(arguments, **options):
            started = time.perf_counter()
            result = work.run(arguments, check=False, **options)
            return time.perf_counter() - started, result

        before = sandbox.counters()["posts_created"]
        # Interleaved, so that the four medians see the same machine.
        for index in range(runs):
            state = fresh_state(index)
            seconds, result = timed(once + [state])
            ours.append(seconds)
            if result.returncode != 0:
                raise RuntimeError(f"run --once should post (exit 0): {result.returncode} {result.stderr[-800:]}")
            theirs.append(timed(python, extra_env={"MOLTIPASS_BENCH_KEY": key})[0])
            kdfs.append(json.loads(work.run([CLIENT_BENCH, "kdf"]).stdout)["kdf_seconds"])
        created = sandbox.counters()["posts_created"] - before
        if created != 2 * runs:
            raise RuntimeError(f"expected {2 * runs} posts, the sandbox saw {created}")
        ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
        kdf = statistics.median(kdfs)
        without = ours_median - kdf
        save("one-action", {
            "title": "cron run, one post due (sandbox on loopback)",
            "target": "report the KDF share (no numeric target)",
            "result": (f"{ms(ours_median)} vs Python {ms(theirs_median)} ({ours_median / theirs_median:.2f} ×); "
                       f"scrypt unlock {ms(kdf)} = {kdf / ours_median:.0%} of the run; without it "
                       f"{ms(without)} ({without / theirs_median:.2f} ×)"),
            "met": None,
            "numbers": {"moltipass_median_s": ours_median, "python_median_s": theirs_median,
                        "kdf_s": kdf, "kdf_share": kdf / ours_median, "moltipass_without_kdf_s": without,
                        "runs": runs},
            "command": "bench/run-all --only one-action  (15 interleaved runs of `moltipass run one.yaml --once` "
                       "with a fresh cursor vs `python3 bench/one_action.py`; KDF: one scrypt derivation with the "
                       "default cost in a fresh process, `moltipass-bench kdf`, interleaved with them)",
        })
    finally:
        sandbox.stop()
        work.remove()


# MARK: limit utilisation over a simulated day


def utilisation():
    work = Work("util")
    try:
        recipe = work.file("max-rate.yaml", """\
agent: bench_max
time_zone: UTC
jobs:
  - id: posts
    schedule: { every: 10m }
    steps:
      - post:
          submolt: general
          title: "Max-rate note {{ date: HH:mm }}"
          content: "As often as the limits allow."
  - id: comments
    schedule: { every: 5m }
    steps:
      - comment:
          on: { source: submolt, submolt: general, sort: new, limit: 25, max_per_run: 1 }
          content: "Reply {{ date: HH:mm }} to {{ post.author }}"
""")
        # Others' posts to comment on: one every 5 minutes from 20 authors.
        feed = {"posts": [
            {"author": f"feed_author_{n % 20:02d}", "submolt": "general", "title": f"Feed post {n}",
             "content": f"Something to reply to ({n}).", "offset_seconds": n * 300 - 3_600}
            for n in range(0, 300)]}
        feed_path = work.file("feed.json", json.dumps(feed))
        arguments = [MOLTIPASS, "plan", recipe, "--for", "1d", "--from", PLAN_FROM, "--feed", feed_path, "--json"]
        result = work.run(arguments)
        plan = json.loads(result.stdout)
        lines = {line["limit_class"]: line for line in plan["summary"] if line["agent"] == "bench_max"}
        posts, comments = lines["post"]["executed"], lines["comment"]["executed"]
        allowed_posts, allowed_comments = 48, 50
        used = (posts + comments) / (allowed_posts + allowed_comments)
        rate_limited = plan["server"]["rate_limited"]
        save("utilisation", {
            "title": "limit utilisation over a simulated day (max-rate recipe)",
            "target": "≥ 99.9 %, 0 × 429",
            "result": (f"{used:.1%}: {posts}/{allowed_posts} posts, {comments}/{allowed_comments} comments; "
                       f"{rate_limited} × 429"),
            "met": used >= 0.999 and rate_limited == 0,
            "numbers": {"posts": posts, "comments": comments, "allowed_posts": allowed_posts,
                        "allowed_comments": allowed_comments, "utilisation": used, "rate_limited": rate_limited,
                        "requests": plan["server"]["requests"]},
            "command": "bench/run-all --only utilisation  (`moltipass plan max-rate.yaml --for 1d "
                       f"--from {PLAN_FROM} --feed feed.json --json`: posts every 10 min, comments every 5 min, "
                       "against the sandbox model's real limits)",
        })
    finally:
        work.remove()


# MARK: plan speed


def plan_speed():
    work = Work("plan")
    limit = int(os.environ.get("BENCH_PLAN_LIMIT", "240"))
    try:
        many = os.path.join(work.path, "recipes")
        subprocess.run([PYTHON, os.path.join(ROOT, "bench", "gen-recipes.py"), many], check=True)
        files = sorted(os.path.join(many, name) for name in os.listdir(many))
        cases = [("1 recipe × 7 days", files[:1], "7d", 7, 5), ("1 recipe × 30 days", files[:1], "30d", 30, 3),
                 ("100 recipes × 1 day", files, "1d", 1, 3), ("100 recipes × 30 days", files, "30d", 30, 1)]
        rows = []
        # Each run under /usr/bin/time for its peak resident memory (%M, KiB): the goal is "in
        # far less memory than" the 576 MB the month took when it was set, so memory is measured
        # beside the time.
        peak_file = os.path.join(work.path, "peak-rss")
        for label, recipes, horizon, days, runs in cases:
            arguments = ["/usr/bin/time", "-f", "%M", "-o", peak_file,
                         MOLTIPASS, "plan", *recipes, "--for", horizon, "--from", PLAN_FROM, "--json"]
            walls, passes, peaks = [], None, []
            for _ in range(runs):
                started = time.perf_counter()
                try:
                    result = subprocess.run(
                        arguments, env=work.env, capture_output=True, text=True, timeout=limit)
                except subprocess.TimeoutExpired:
                    walls = None
                    break
                walls.append(time.perf_counter() - started)
                if result.returncode != 0:
                    raise RuntimeError(f"plan failed: {result.stderr[-1000:]}")
                passes = json.loads(result.stdout)["server"]["passes"]
                with open(peak_file) as timing:
                    peaks.append(int(timing.read().split()[-1]) / 1024)
            simulated = days * 86_400
            if walls is None:
                rows.append({"case": label, "wall_s": None, "timeout_s": limit,
                             "speed": simulated / limit, "bound": "below"})
                log(f"plan-speed: {label} did not finish within {limit} s")
                continue
            wall = statistics.median(walls)
            peak = statistics.median(peaks)
            rows.append({"case": label, "wall_s": wall, "speed": simulated / wall, "passes": passes,
                         "recipe_speed": simulated * len(recipes) / wall, "runs": runs, "peak_rss_mib": peak})
            log(f"plan-speed: {label}: {wall:.2f} s, {simulated / wall:,.0f} simulated s per s, peak RSS {peak:.0f} MiB")

        # The engine's floor: a pass with nothing due and no request, against plan's in-memory
        # store, next to the time a pass of the month may take for the target.
        daily = os.path.join(work.path, "daily")
        subprocess.run([PYTHON, os.path.join(ROOT, "bench", "gen-recipes.py"), daily, "--daily-at-utc", "12:00"],
                       check=True)
        floor = json.loads(subprocess.run(
            [CLIENT_BENCH, "empty-passes", "20000", *sorted(os.path.join(daily, name) for name in os.listdir(daily))],
            check=True, capture_output=True, text=True, timeout=limit).stdout)
        month = rows[-1]
        budget_us = (30 * 86_400 / 1e6) / month["passes"] * 1e6 if month.get("passes") else None
        pass_us = month["wall_s"] / month["passes"] * 1e6 if month.get("passes") else None
        log(f"plan-speed: empty pass {floor['microseconds_per_pass']:.1f} µs; budget {budget_us} µs")

        def text(row):
            if row["wall_s"] is None:
                return f"{row['case']}: > {row['timeout_s']} s (< {row['speed']:,.0f} sim s/s)"
            line = f"{row['case']}: {row['wall_s']:.1f} s ({row['speed']:,.0f} sim s/s, {row['passes']:,} passes"
            if row["recipe_speed"] != row["speed"]:
                line += f"; {row['recipe_speed']:,.0f} recipe-seconds/s"
            return line + f"; peak RSS {row['peak_rss_mib']:.0f} MiB)"

        target_row = rows[-1]
        save("plan-speed", {
            "title": "`plan` speed (simulated seconds per wall second)",
            "target": "100 recipes × 30 days ≥ 10^6 sim s/s (seconds of the simulated clock), in far less memory "
                      "than the 576 MB it took when the goal was set",
            "result": "; ".join(text(row) for row in rows)
                      + (f". Per pass of the month: {pass_us:.0f} µs; the target allows {budget_us:.1f} µs"
                         if pass_us and budget_us else "")
                      + f"; the engine's floor, a pass with nothing due and no request "
                        f"(`moltipass-bench empty-passes`, median of 5 × 20,000): "
                        f"{floor['microseconds_per_pass']:.1f} µs",
            "met": target_row["wall_s"] is not None and target_row["speed"] >= 1e6,
            "numbers": {"cases": rows, "limit_s": limit, "empty_pass_us": floor["microseconds_per_pass"],
                        "pass_us": pass_us, "budget_us": budget_us},
            "command": "bench/run-all --only plan-speed  (`python3 bench/gen-recipes.py DIR` then "
                       f"`moltipass plan DIR/*.yaml --for 30d --from {PLAN_FROM} --json`; "
                       "BENCH_PLAN_LIMIT=seconds caps each run, default 240; peak RSS by `/usr/bin/time -f %M`, "
                       "median of the runs)",
        })
        if BASELINE_BIN:
            plan_speed_baseline(work, limit)
    finally:
        work.remove()


def plan_speed_baseline(work, limit):
    """`plan` of the 100 generated recipes with the baseline revision's binary and the working tree's,
    interleaved (the order swapped each run), for the sizes of BENCH_BASELINE_PLAN ("HORIZON:RUNS,…",
    horizons in days); whether the two plans are byte-identical; then the engine's floor the same way.
    The recipes are generated `--named` (each with its `name:`), which every revision reads alike."""

    def generate(name, *options):
        path = os.path.join(work.path, name)
        subprocess.run([PYTHON, os.path.join(ROOT, "bench", "gen-recipes.py"), path, "--named", *options], check=True)
        return sorted(os.path.join(path, file) for file in os.listdir(path))

    files, daily = generate("named"), generate("named-daily", "--daily-at-utc", "12:00")
    sizes = []
    for part in os.environ.get("BENCH_BASELINE_PLAN", "1d:3,7d:3,30d:1").split(","):
        horizon, _, runs = part.strip().partition(":")
        if not horizon.endswith("d") or not horizon[:-1].isdigit():
            raise RuntimeError(f"BENCH_BASELINE_PLAN: {part!r} is not DAYSd:RUNS")
        sizes.append((horizon, int(horizon[:-1]), int(runs or 1)))
    binaries = {"before": os.path.join(BASELINE_BIN, "moltipass"), "after": MOLTIPASS}
    rows, per_day = [], None
    for horizon, days, runs in sizes:
        label = f"`plan`, {len(files)} recipes × {days} day{'s' if days != 1 else ''}"
        if per_day is not None and per_day * days > limit * 0.9:
            rows.append({"benchmark": label, "before_s": None, "after_s": None, "runs": 0, "unit": "s",
                         "note": f"skipped: ≈ {per_day * days:.0f} s a run expected, BENCH_PLAN_LIMIT is {limit} s"})
            continue
        walls, outputs, timed_out = {"before": [], "after": []}, {}, None
        for index in range(runs):
            order = ["after", "before"] if index % 2 == 0 else ["before", "after"]
            for side in order:
                arguments = [binaries[side], "plan", *files, "--for", horizon, "--from", PLAN_FROM, "--json"]
                started = time.perf_counter()
                try:
                    result = subprocess.run(arguments, env=work.env, capture_output=True, timeout=limit)
                except subprocess.TimeoutExpired:
                    timed_out = side
                    break
                walls[side].append(time.perf_counter() - started)
                if result.returncode != 0:
                    raise RuntimeError(f"{side} ({BASELINE_REV if side == 'before' else 'working tree'}): plan "
                                       f"failed: {result.stderr.decode(errors='replace')[-1000:]}")
                outputs[side] = result.stdout
            if timed_out:
                break
        if timed_out:
            rows.append({"benchmark": label, "before_s": None, "after_s": None, "runs": 0, "unit": "s",
                         "note": f"{timed_out} did not finish within BENCH_PLAN_LIMIT ({limit} s)"})
            break
        passes = json.loads(outputs["after"])["server"]["passes"]
        rows.append(compared(label, walls["before"], walls["after"], "s", passes=passes,
                             identical_output=outputs["before"] == outputs["after"]))
        per_day = max(max(walls["before"]), max(walls["after"])) / days
    floor = [os.path.join(BASELINE_BIN, "moltipass-bench"), CLIENT_BENCH]
    if all(os.path.exists(path) for path in floor):
        micro = {"before": [], "after": []}
        for index in range(3):
            order = [("after", floor[1]), ("before", floor[0])]
            if index % 2:
                order.reverse()
            for side, binary in order:
                result = subprocess.run([binary, "empty-passes", "20000", *daily], capture_output=True, text=True,
                                        timeout=limit)
                if result.returncode != 0:
                    raise RuntimeError(f"{side}: moltipass-bench empty-passes failed: {result.stderr[-800:]}")
                micro[side].append(json.loads(result.stdout)["microseconds_per_pass"] / 1e6)
        rows.append(compared("the engine's floor, a pass with nothing due (`moltipass-bench empty-passes`)",
                             micro["before"], micro["after"], "µs"))
    else:
        rows.append({"benchmark": "the engine's floor (`moltipass-bench empty-passes`)", "before_s": None,
                     "after_s": None, "runs": 0, "unit": "µs", "note": "a revision has no moltipass-bench"})
    save_comparison("plan-speed", rows,
                    f"`moltipass plan DIR/*.yaml --for HORIZON --from {PLAN_FROM} --json` of "
                    "`bench/gen-recipes.py DIR --named` (the working tree's generator; `name:` in each recipe, "
                    "which revisions before a796dc1 need for two recipes of one agent), the two revisions "
                    "interleaved, "
                    f"sizes {os.environ.get('BENCH_BASELINE_PLAN', '1d:3,7d:3,30d:1')} (HORIZON:RUNS); "
                    "identical = the two plans' JSON byte for byte; the floor: 3 interleaved runs of "
                    "`moltipass-bench empty-passes 20000` (each the median of 5 rounds)")


# MARK: where a pass's time goes


# (key in moltipass-bench's JSON, label, what one call is)
PASS_PARTS = [("machine", "machine decisions", "decisions"), ("store", "store", "reads and transactions"),
              ("server", "simulated server", "requests"), ("rest", "driver and the rest", None)]


def pass_cost():
    """`moltipass-bench pass-cost DAYS` on the 100 generated recipes: in one process, `plan` plain and then
    with a PassCostMeter (the two plans compared whole by the binary), which times the machine's decisions,
    the store and the simulated server; the rest of a metered pass is the driver. Medians of 3 runs."""
    work = Work("pass-cost")
    days = float(os.environ.get("BENCH_PASS_COST_DAYS", "7"))
    runs = 3
    limit = int(os.environ.get("BENCH_PLAN_LIMIT", "240"))
    try:
        many = os.path.join(work.path, "recipes")
        subprocess.run([PYTHON, os.path.join(ROOT, "bench", "gen-recipes.py"), many], check=True)
        files = sorted(os.path.join(many, name) for name in os.listdir(many))
        measured = []
        for index in range(runs):
            # Two plans per run (plain, metered): twice the cap of one plan run.
            result = subprocess.run([CLIENT_BENCH, "pass-cost", f"{days:g}", *files], env=work.env,
                                    capture_output=True, text=True, timeout=2 * limit)
            if result.returncode != 0:
                raise RuntimeError(f"moltipass-bench pass-cost failed (exit {result.returncode}): "
                                   f"{result.stderr[-1000:]}")
            run = json.loads(result.stdout)
            run["rest_seconds"] = (run["metered_seconds"] - run["machine_seconds"] - run["store_seconds"]
                                   - run["server_seconds"])
            measured.append(run)
            log(f"pass-cost: run {index + 1}: plain {run['plain_seconds']:.1f} s, metered "
                f"{run['metered_seconds']:.1f} s, {run['passes']:,} passes")
        passes = measured[0]["passes"]
        if any(run["passes"] != passes for run in measured):
            raise RuntimeError(f"the runs made different numbers of passes: {[run['passes'] for run in measured]}")

        def median(key):
            return statistics.median(run[key] for run in measured)

        def per_pass_us(key):
            return median(key) / passes * 1e6

        plain_us, metered_us = per_pass_us("plain_seconds"), per_pass_us("metered_seconds")
        # Each part's share of its own run's metered time, then the median over the runs.
        shares = {part: statistics.median(run[f"{part}_seconds"] / run["metered_seconds"] for run in measured)
                  for part, _, _ in PASS_PARTS}
        overhead = statistics.median(run["metered_seconds"] / run["plain_seconds"] for run in measured)
        parts = {part: {"us_per_pass": per_pass_us(f"{part}_seconds"), "share": shares[part]}
                 for part, _, _ in PASS_PARTS}
        for part, _, _ in PASS_PARTS[:3]:
            calls = median(f"{part}_calls")
            parts[part]["calls_per_pass"] = calls / passes
            parts[part]["us_per_call"] = median(f"{part}_seconds") / calls * 1e6 if calls else None
        split = ", ".join(
            f"{label} {shares[part]:.0%} ({parts[part]['us_per_pass']:.0f} µs"
            + (f", {parts[part]['calls_per_pass']:.1f} {calls}" if calls else "") + ")"
            for part, label, calls in PASS_PARTS)
        save("pass-cost", {
            "title": (f"where a `plan` pass's time goes ({len(files)} recipes × {days:g} "
                      f"day{'s' if days != 1 else ''})"),
            "target": "measure (no numeric target)",
            "result": (f"{plain_us:.0f} µs per pass ({passes:,} passes, {median('plain_seconds'):.1f} s); metered, "
                       f"{metered_us:.0f} µs per pass ({overhead:.2f} × plain): {split}"),
            "met": None,
            "numbers": {"days": days, "recipes": len(files), "passes": passes, "runs": runs,
                        "plain_s": median("plain_seconds"), "metered_s": median("metered_seconds"),
                        "plain_us_per_pass": plain_us, "metered_us_per_pass": metered_us,
                        "meter_overhead": overhead, "parts": parts, "raw": measured},
            "command": f"bench/run-all --only pass-cost  (`python3 bench/gen-recipes.py DIR` then "
                       f"`moltipass-bench pass-cost {days:g} DIR/*.yaml`: `plan` from {PLAN_FROM} plain, then "
                       f"with a PassCostMeter, the two plans compared; medians of {runs} runs; "
                       "BENCH_PASS_COST_DAYS=days, default 7)",
        })
    finally:
        work.remove()


# MARK: daemon RSS and wakeups


def proc_status(pid):
    values = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            values[key] = value.strip()
    return values


def thread_switches(pid):
    """{thread id: (voluntary, involuntary)} context switches of the process's live threads."""
    result = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            status = proc_status(f"{pid}/task/{task}")
        except (FileNotFoundError, ProcessLookupError):
            continue
        result[task] = (int(status.get("voluntary_ctxt_switches", 0)), int(status.get("nonvoluntary_ctxt_switches", 0)))
    return result


def watch_switches(pid, seconds, every=0.25):
    """Voluntary context switches (a thread going back to sleep: one per wakeup) of every thread
    over `seconds`, sampled every `every` s so threads that come and go are counted.
    Returns {thread id: (switches, where it sleeps)} and the number of threads started."""
    first = thread_switches(pid)
    last = dict(first)
    where = {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(every)
        last.update(thread_switches(pid))
        for task in last:
            try:
                where[task] = open(f"/proc/{pid}/task/{task}/wchan").read().strip()
            except OSError:
                pass
    deltas = {task: (last[task][0] - first.get(task, (0, 0))[0], where.get(task, "?")) for task in last}
    return deltas, len(set(last) - set(first))


def daemon():
    work = Work("daemon")
    window = int(os.environ.get("BENCH_DAEMON_WINDOW", "90"))
    try:
        idle = os.path.join(work.path, "recipes")
        due = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=12)).strftime("%H:%M")
        subprocess.run(
            [PYTHON, os.path.join(ROOT, "bench", "gen-recipes.py"), idle, "--daily-at-utc", due], check=True)
        files = sorted(os.path.join(idle, name) for name in os.listdir(idle))
        state = os.path.join(work.path, "state.sqlite")
        timing = os.path.join(work.path, "time.txt")
        log_path = os.path.join(work.path, "daemon.log")
        with open(log_path, "w") as output:
            process = subprocess.Popen(
                ["/usr/bin/time", "-v", "-o", timing, MOLTIPASS, "run", *files, "--state", state,
                 "--log-format", "json"], env=work.env, cwd=work.path, stdout=output, stderr=output)
        pid = None
        try:
            for _ in range(200):
                children = open(f"/proc/{process.pid}/task/{process.pid}/children").read().split()
                if children:
                    pid = int(children[0])
                    break
                time.sleep(0.05)
            if pid is None:
                raise RuntimeError("the daemon did not start")
            for _ in range(600):  # the first pass (100 recipes) is logged when done
                if "daemon started" in open(log_path).read() and os.path.exists(state):
                    break
                time.sleep(0.1)
            time.sleep(5)
            started_at = time.monotonic()
            deltas, started_threads = watch_switches(pid, window)
            elapsed = time.monotonic() - started_at
            status = proc_status(pid)
        finally:
            # SIGTERM to the daemon itself; /usr/bin/time exits with it.
            if pid is not None and process.poll() is None:
                os.kill(pid, signal.SIGTERM)
            elif process.poll() is None:
                process.terminate()
            process.wait(timeout=60)
        with open(timing) as handle:
            maximum = next(int(line.split(":")[1]) for line in handle if "Maximum resident set size" in line)
        def mib(key):
            return int(status[key].split()[0]) / 1024

        rss, hwm, anonymous, mapped = mib("VmRSS"), mib("VmHWM"), mib("RssAnon"), mib("RssFile")
        voluntary = sum(count for count, _ in deltas.values())
        # libdispatch's manager thread sleeps in epoll_wait: it runs the timers, among them the
        # Linux workqueue monitor, a 1 s timer every process that uses the global queues has.
        manager = sum(count for count, where in deltas.values() if "epoll" in where)
        own = voluntary - manager
        per_hour = voluntary * 3600 / elapsed
        met = hwm <= 25 and voluntary <= 2
        save("daemon", {
            "title": "daemon with 100 recipes idle",
            "target": "RSS ≤ 25 MB; wakeups only at due times",
            "result": (f"RSS {rss:.1f} MB ({anonymous:.1f} MB anonymous + {mapped:.1f} MB mapped binary and "
                       f"libraries; peak {hwm:.1f} MB, /usr/bin/time max {maximum / 1024:.1f} MB); "
                       f"{voluntary} wakeups in {elapsed:.0f} s idle (≈ {per_hour:.0f} / h): {manager} in "
                       f"libdispatch's timer thread (its 1 Hz workqueue monitor), {own} in the engine's threads; "
                       f"{len(deltas)} threads, {started_threads} started"),
            "met": met,
            "numbers": {"vm_rss_mib": rss, "vm_hwm_mib": hwm, "rss_anon_mib": anonymous, "rss_file_mib": mapped,
                        "max_rss_time_mib": maximum / 1024, "voluntary_switches": voluntary,
                        "dispatch_manager_switches": manager, "engine_switches": own, "window_s": elapsed,
                        "wakeups_per_hour": per_hour, "threads": {task: list(value) for task, value in deltas.items()},
                        "threads_started": started_threads},
            "command": f"bench/run-all --only daemon  (`moltipass run 100 recipes` due 12 h later, under "
                       f"`/usr/bin/time -v`; /proc/PID/status VmRSS, VmHWM and voluntary_ctxt_switches summed "
                       f"over /proc/PID/task/* across a {window} s window; BENCH_DAEMON_WINDOW=seconds)",
        })
    finally:
        work.remove()


# MARK: per-request overhead, client vs curl


def client():
    work = Work("client")
    sandbox = Sandbox(work)
    try:
        key = sandbox.register("bench_client")
        url = sandbox.base + "/agents/me"
        header = work.file("header", f"Authorization: Bearer {key}\n", mode=0o600)
        count = int(os.environ.get("BENCH_CLIENT_REQUESTS", "100"))

        def curl_config(n):
            return work.file(f"curl-{n}.conf", "".join(f'url = "{url}"\noutput = "/dev/null"\n' for _ in range(n)))

        def timed(arguments, env=None):
            """Wall and CPU (user + system) seconds of one process."""
            started = time.perf_counter()
            process = subprocess.Popen(
                arguments, env=dict(work.env, **(env or {})), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - started
            process.returncode = os.waitstatus_to_exitcode(status)
            if process.returncode != 0:
                raise RuntimeError(f"{arguments[0]} failed: {process.stderr.read().decode()[-800:]}")
            return wall, usage.ru_utime + usage.ru_stime

        bench_env = {"MOLTIPASS_BENCH_KEY": key}
        measured = {(tool, n): [] for tool in ("client", "curl") for n in (1, count)}
        configs = {1: curl_config(1), count: curl_config(count)}
        for _ in range(3):
            for n in (1, count):
                measured[("client", n)].append(timed([CLIENT_BENCH, sandbox.base, str(n)], bench_env))
                measured[("curl", n)].append(
                    timed(["curl", "-sS", "--fail", "-H", f"@{header}", "--config", configs[n]]))

        def slope(tool, index):
            """Per request: (t(count) − t(1)) / (count − 1), medians; index 0 wall, 1 CPU."""
            many = statistics.median(value[index] for value in measured[(tool, count)])
            one = statistics.median(value[index] for value in measured[(tool, 1)])
            return (many - one) / (count - 1), one

        (client_wall, client_start), (curl_wall, curl_start) = slope("client", 0), slope("curl", 0)
        (client_cpu, _), (curl_cpu, _) = slope("client", 1), slope("curl", 1)
        save("client", {
            "title": "per-request cost, client vs `curl` (loopback sandbox, `GET /agents/me`, one connection)",
            "target": "measure (no numeric target)",
            "result": (f"CPU {client_cpu * 1e6:.0f} µs vs curl {curl_cpu * 1e6:.0f} µs per request "
                       f"({client_cpu / curl_cpu:.1f} ×); wall {client_wall * 1e3:.1f} ms vs {curl_wall * 1e3:.1f} ms "
                       f"(the sandbox sets TCP_NODELAY since session 3: it was ~44 ms, see notes); one request with "
                       f"process start {ms(client_start)} vs {ms(curl_start)}"),
            "met": None,
            "numbers": {"client_cpu_per_request_s": client_cpu, "curl_cpu_per_request_s": curl_cpu,
                        "client_wall_per_request_s": client_wall, "curl_wall_per_request_s": curl_wall,
                        "client_one_request_s": client_start, "curl_one_request_s": curl_start,
                        "requests": count, "repeats": 3},
            "command": f"bench/run-all --only client  (per request = (t({count}) − t(1)) / {count - 1}, medians of "
                       f"3 interleaved runs, wall and CPU (wait4): `moltipass-bench URL N` — MoltbookClient over "
                       f"CurlTransport — vs `curl -H @header --config urls.conf` with N urls)",
        })
    finally:
        sandbox.stop()
        work.remove()


# MARK: fleet: 1,000 agents on one runner and on three (issue 23)


# The throughput sandbox starts here; the agents are registered then, two simulated days before the first
# configuration's schedules (so both the sandbox and the engine treat them as established agents).
FLEET_T0 = datetime.datetime(2026, 3, 2, tzinfo=datetime.timezone.utc)
FLEET_COMMENT_MINUTES = 30  # each agent comments every 30 simulated minutes
FLEET_POST_MINUTES = 60  # and posts every hour
FLEET_ONE_SHOTS = 4  # and upvotes one seed post and follows one agent every 30 minutes (new targets each time)
FLEET_CONFIGS = [("sqlite-1", "SQLite, 1 runner", "sqlite", 1), ("postgres-1", "PostgreSQL, 1 runner", "postgres", 1),
                 ("postgres-3", "PostgreSQL, 3 runners", "postgres", 3)]


def parse_instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def process_cpu(pid):
    """User + system CPU seconds of a process (0 once it is gone)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(pid):
    try:
        return [int(child) for child in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


class FleetSandbox(harness.Sandbox):
    """`moltbook-sandbox` with Moltbook's real limits (a request they forbid is counted as a violation), every agent
    claimed at registration and established for the server; its clock from FLEET_T0 at `scale` times real time."""

    CONFIG = {"new_agent_period_seconds": 0, "auto_claim": True}

    def __init__(self, work, name, scale):
        super().__init__(types.SimpleNamespace(sandbox=SANDBOX), os.path.join(work.path, name), 23, self.CONFIG,
                         verbose=False, extra=["--now", harness.iso(FLEET_T0), "--time-scale", str(scale)])
        self.scale = scale

    def now(self):
        return parse_instant(self.admin("GET", "clock")["now"])

    def register(self, name):
        status, answer = self.api("POST", "/agents/register", None, {"name": name, "description": "fleet benchmark"})
        if status != 201:
            raise RuntimeError(f"register {name}: HTTP {status} {answer}")
        return answer["agent"]["api_key"]


class FleetPostgres:
    """A throwaway PostgreSQL (scripts/postgres-server) made durable: fsync, synchronous commits and full-page writes
    on, as a production server has them (the test server turns them off), so that it pays for its commits as the
    SQLite store (synchronous=FULL) does."""

    def __init__(self, work):
        self.work = work
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres-server"), "start"], capture_output=True,
                                text=True, timeout=300)
        if result.returncode != 0:
            raise RuntimeError(f"scripts/postgres-server start failed: {result.stderr[-1500:]}")
        exports = dict(line[len("export "):].split("=", 1) for line in result.stdout.splitlines()
                       if line.startswith("export "))
        self.url = exports["MOLTIPASS_TEST_POSTGRES"]
        self.password_file = exports["MOLTIPASS_TEST_POSTGRES_PASSWORD_FILE"]
        self.dir = exports["MOLTIPASS_TEST_POSTGRES_DIR"]
        self.port = open(os.path.join(self.dir, "port")).read().strip()
        self.password = open(self.password_file).read().strip()
        self.postmaster = None
        try:
            bindir = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))[-1]
            superuser = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
            settings = ("ALTER SYSTEM SET fsync = on; ALTER SYSTEM SET synchronous_commit = on; "
                        "ALTER SYSTEM SET full_page_writes = on; ALTER SYSTEM SET track_wal_io_timing = on; "
                        "SELECT pg_reload_conf();")
            for statement in settings.split(";"):
                if statement.strip():
                    subprocess.run(superuser + [os.path.join(bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                                                "-h", os.path.join(self.dir, "socket"), "-p", self.port, "-d",
                                                "postgres", "-c", statement.strip()],
                                   check=True, capture_output=True, text=True, timeout=60)
            time.sleep(0.5)
            shown = self.query("SHOW fsync") + self.query("SHOW synchronous_commit")
            if shown != [["on"], ["on"]]:
                raise RuntimeError(f"PostgreSQL did not take fsync/synchronous_commit on: {shown}")
            self.postmaster = int(open(os.path.join(self.dir, "data", "postmaster.pid")).readline())
        except Exception:
            self.stop()
            raise

    def query(self, sql):
        """Rows of one statement (psql over TCP as the store's user), each a list of strings."""
        result = subprocess.run(
            ["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", self.port,
             "-U", "moltipass", "-d", "moltipass", "-c", sql],
            env=dict(os.environ, PGPASSWORD=self.password), capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"psql: {sql}: {result.stderr[-500:]}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def state(self, schema):
        return f"{self.url}?schema={schema}"

    def statistics(self):
        """The database's commits and the WAL's records and syncs so far (cumulative)."""
        commits, rollbacks = self.query(
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = 'moltipass'")[0]
        records, syncs, sync_ms = self.query("SELECT wal_records, wal_sync, wal_sync_time FROM pg_stat_wal")[0]
        return {"commits": int(commits), "rollbacks": int(rollbacks), "wal_records": int(records),
                "wal_syncs": int(syncs), "wal_sync_s": float(sync_ms) / 1000}

    def cpu(self):
        """CPU seconds of the server and its backends."""
        if self.postmaster is None:
            return 0.0
        return process_cpu(self.postmaster) + sum(process_cpu(child) for child in children_of(self.postmaster))

    def stop(self):
        subprocess.run([os.path.join(ROOT, "scripts", "postgres-server"), "stop", self.dir], capture_output=True,
                       timeout=120)


def parse_metrics(text):
    """Prometheus text → [(name, {label: value}, value)]."""
    samples = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        name, _, labels = head.partition("{")
        parsed = {}
        for part in labels.rstrip("}").split(",") if labels else []:
            key, _, quoted = part.partition("=")
            parsed[key] = quoted.strip('"')
        samples.append((name, parsed, float(value)))
    return samples


class FleetRunner:
    """One `moltipass run` daemon. As root it runs in a PID namespace of its own with its own /proc (a shell as that
    namespace's init), as on a host or in a pod of its own: a runner then never recognises another's dead process and
    takes its agents over only once their leases ran out (docs/state.md, leases)."""

    def __init__(self, fleet, name, recipes, state, scale, ttl, log_path):
        self.name = name
        self.port = free_port()
        self.log_path = log_path
        now = fleet.sandboxes[scale].now().replace(microsecond=0)  # --now takes whole seconds
        arguments = [MOLTIPASS, "run", recipes, "--state", state, "--now", harness.iso(now), "--time-scale",
                     str(scale), "--lease-ttl", f"{ttl}s", "--listen", f"127.0.0.1:{self.port}", "--log-format",
                     "json"]
        launcher = []
        if fleet.pid_namespaces:
            # Its own /proc too, as in a container: without it libdispatch's worker monitor reads other processes'
            # /proc/TID/stat and the daemon died of SIGILL after a few passes of 1,000 agents (bench/notes.md, Fleet).
            mount_proc = ["--mount-proc"] if os.environ.get("BENCH_FLEET_MOUNT_PROC", "1") != "0" else []
            launcher = ["unshare", "--pid", "--fork", *mount_proc, "--", "/bin/sh", "-c", '"$@" & wait $!', "sh"]
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen(launcher + arguments, env=fleet.env, cwd=fleet.work.path, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = None
        for _ in range(200):
            self.pid = self.find_daemon()
            if self.pid:
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        if not self.pid:
            self.kill()
            raise RuntimeError(f"runner {name} did not start: {open(log_path).read()[-1500:]}")
        self.holder = None

    def find_daemon(self):
        queue = [self.process.pid]
        while queue:
            pid = queue.pop()
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "moltipass":
                    return pid
            except OSError:
                continue
            queue += children_of(pid)
        return None

    def holder_id(self):
        """The lease holder the daemon logged at its start."""
        if self.holder is None:
            for line in open(self.log_path, errors="replace"):
                if '"daemon started"' in line:
                    try:
                        self.holder = json.loads(line).get("holder")
                    except ValueError:
                        pass
        return self.holder

    def metrics(self, timeout=30):
        """The runner's /metrics, parsed, with how long the scrape took; `failed` (and no numbers) when it answered
        an error or nothing in `timeout` seconds (its listener gives a request 15 s, then answers 500)."""
        started = time.monotonic()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=timeout) as response:
                samples = parse_metrics(response.read().decode())
        except (urllib.error.URLError, OSError) as error:
            return {"failed": str(error), "scrape_s": time.monotonic() - started}
        snapshot = {"passes": 0.0, "pass_seconds": 0.0, "leases": 0.0, "rate_limited": 0.0, "done": 0.0,
                    "scrape_s": time.monotonic() - started}
        for name, labels, value in samples:
            if name == "moltipass_pass_duration_seconds_count":
                snapshot["passes"] = value
            elif name == "moltipass_pass_duration_seconds_sum":
                snapshot["pass_seconds"] = value
            elif name == "moltipass_lease_held":
                snapshot["leases"] += value
            elif name == "moltipass_rate_limited_responses_total":
                snapshot["rate_limited"] += value
            elif name == "moltipass_actions_total":
                if labels.get("outcome") == "done" and labels.get("action") != "occurrence":
                    snapshot["done"] += value
        return snapshot

    def alive(self):
        return self.process.poll() is None and os.path.exists(f"/proc/{self.pid}")

    def kill(self):
        """SIGKILL to the daemon (kill -9), then its launcher."""
        for pid in [self.pid, self.process.pid]:
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        self.log.close()


class Fleet:
    """What the fleet item shares: the work directory, the agents and their keychain, the sandboxes, PostgreSQL."""

    def __init__(self, work, agents):
        self.work = work
        self.names = [f"fleet_{index:04d}" for index in range(agents)]
        self.seeds = [f"fleet_seed_{index:03d}" for index in range(max(4, agents // 4))]
        self.sandboxes = {}
        self.seed_keys = {}
        self.keychain = self.keychain_digest = None
        self.postgres = None
        self.pid_namespaces = (os.geteuid() == 0 and shutil.which("unshare") is not None
                               and os.environ.get("BENCH_FLEET_PID_NAMESPACES", "1") != "0")
        self.env = dict(work.env)
        self.segment = 0
        self.states = {}  # configuration → its state (a file, a schema), used again by its later rounds

    def start_sandbox(self, scale):
        """A sandbox at `scale` with every agent registered (the same seed and order: the same keys in each) and the
        keychain that holds them (made once, then reused while the keys are the same)."""
        sandbox = FleetSandbox(self.work, f"sandbox-{scale}", scale)
        self.sandboxes[scale] = sandbox
        keys = {name: sandbox.register(name) for name in self.names}
        self.seed_keys[scale] = {name: sandbox.register(name) for name in self.seeds}
        self.ensure_keychain(keys, sandbox.base)
        return sandbox

    def ensure_keychain(self, keys, base):
        """One keychain (scrypt 2^12) with every agent's key, shared by the runners. Adding 1,000 keys is 1,000
        processes, so the keychain is kept in BENCH_FLEET_CACHE (default .build-bench/fleet/) with a digest of the
        keys: a sandbox with the same seed hands out the same keys for the same registrations, and the digest
        says whether they are."""
        digest = hashlib.sha256("\n".join(f"{name} {keys[name]}" for name in self.names).encode()).hexdigest()
        if self.keychain and self.keychain_digest == digest:
            return
        cache = (os.environ.get("BENCH_FLEET_CACHE")
                 or os.path.join(ROOT, os.environ.get("BENCH_SCRATCH", ".build-bench"), "fleet"))
        cached = os.path.join(cache, f"keychain-{len(self.names)}")
        keychain = os.path.join(self.work.path, "keychain")
        known = open(cached + ".sha256").read().strip() if os.path.exists(cached + ".sha256") else None
        if known == digest and os.path.exists(cached):
            shutil.copyfile(cached, keychain)
            os.chmod(keychain, 0o600)
            log(f"fleet: keychain of {len(self.names)} agents from {cached}")
        else:
            started = time.monotonic()
            if os.path.exists(keychain):
                os.unlink(keychain)
            self.work.run([MOLTIPASS, "keys", "init", "--keychain", keychain, "--scrypt-log2n", "12"])

            def add(name):
                self.work.run([MOLTIPASS, "keys", "add", name, "--keychain", keychain, "--base-url", base],
                              stdin=keys[name] + "\n")

            with ThreadPoolExecutor(max_workers=4) as pool:
                list(pool.map(add, self.names))
            os.makedirs(cache, exist_ok=True)
            shutil.copyfile(keychain, cached)
            os.chmod(cached, 0o600)
            with open(cached + ".sha256", "w") as handle:
                handle.write(digest + "\n")
            log(f"fleet: keychain of {len(self.names)} agents made in {time.monotonic() - started:.0f} s "
                f"(kept in {cached})")
        self.keychain, self.keychain_digest = keychain, digest
        self.env["MOLTIPASS_KEYCHAIN"] = keychain

    def start_postgres(self):
        self.postgres = FleetPostgres(self.work)
        self.env["MOLTIPASS_STATE_PASSWORD_FILE"] = self.postgres.password_file

    def recipes(self, scale):
        """A fresh simulated stretch for the next runners: the sandbox's clock moved two days on (every limit window
        of the last stretch long past, every lease of the last runners expired), one new post per seed agent to
        comment on and vote for, and each agent's recipe from now (`fleet_at`): a comment on its seed post every 30
        minutes, a post every hour, an upvote of another seed post and a follow of another agent every 30 minutes.
        Returns the recipes' directory and what `fleet_due` needs."""
        sandbox = self.sandboxes[scale]
        self.segment += 1
        sandbox.set_clock(sandbox.now() + datetime.timedelta(days=2))
        posts = []
        for seed in self.seeds:
            status, answer = sandbox.api("POST", "/posts", self.seed_keys[scale][seed], {
                "submolt_name": "general", "title": f"Seed {self.segment} of {seed}", "content": "Comment here."})
            if status != 201:
                raise RuntimeError(f"seed post of {seed}: HTTP {status} {answer}")
            posts.append(answer["post"]["id"])
        start = (sandbox.now() + datetime.timedelta(minutes=1)).replace(second=0, microsecond=0)
        directory = os.path.join(self.work.path, f"recipes-{self.segment}")
        os.makedirs(directory)
        count = len(self.names)
        for index, name in enumerate(self.names):
            jobs = [f"""\
  - id: remarks
    schedule: {{ every: {FLEET_COMMENT_MINUTES}m, start: "{harness.iso(fleet_at(start, 'comment', index))}" }}
    steps:
      - comment: {{ post: "{posts[index % len(posts)]}", content: "{name} remark {{{{ date: MM-dd HH:mm }}}}" }}""",
                    f"""\
  - id: notes
    schedule: {{ every: {FLEET_POST_MINUTES}m, start: "{harness.iso(fleet_at(start, 'post', index))}" }}
    steps:
      - post: {{ submolt: general, title: "{name} note {{{{ date: MM-dd HH:mm }}}}", content: "Note {{{{ date: MM-dd HH:mm }}}} from {name}." }}"""]
            # Votes and follows are done once per target: one job per target, one of each every 30 minutes.
            for round_ in range(FLEET_ONE_SHOTS):
                voted = posts[(index + 1 + round_) % len(posts)]
                followed = self.names[(index + 1 + round_ + FLEET_ONE_SHOTS * self.segment) % count]
                jobs.append(f"""\
  - id: upvote-{round_ + 1}
    schedule: {{ at: "{harness.iso(fleet_at(start, 'vote', index, round_))}" }}
    steps:
      - vote: {{ ensure: upvoted, post: "{voted}" }}""")
                if followed != name:
                    jobs.append(f"""\
  - id: follow-{round_ + 1}
    schedule: {{ at: "{harness.iso(fleet_at(start, 'follow', index, round_))}" }}
    steps:
      - follow: {followed}""")
            with open(os.path.join(directory, f"{name}.yaml"), "w") as handle:
                handle.write(f"agent: {name}\nname: {name}\ntime_zone: UTC\nbase_url: {sandbox.base}\njobs:\n"
                             + "\n".join(jobs) + "\n")
        schedule = {"start": start.timestamp(), "count": count}
        return directory, schedule

    def stop(self):
        for sandbox in self.sandboxes.values():
            sandbox.stop()
        if self.postgres:
            self.postgres.stop()


def fleet_at(start, kind, index, round_=0):
    """When agent `index`'s first comment or post, or its `round_`-th vote or follow, is due: each agent at a minute
    of its own, so that the due writes are spread evenly over time."""
    minutes = {"comment": index % FLEET_COMMENT_MINUTES, "post": index % FLEET_POST_MINUTES,
               "vote": round_ * FLEET_COMMENT_MINUTES + index % FLEET_COMMENT_MINUTES,
               "follow": round_ * FLEET_COMMENT_MINUTES + (index * 7) % FLEET_COMMENT_MINUTES}[kind]
    seconds = {"comment": 0, "post": 0, "vote": 20, "follow": 40}[kind]
    return start + datetime.timedelta(minutes=minutes, seconds=seconds)


def fleet_due(schedule, begin, end):
    """The writes the recipes make due in [begin, end) (simulated seconds since 1970): comments, posts, votes,
    follows."""
    start = datetime.datetime.fromtimestamp(schedule["start"], datetime.timezone.utc)
    due = {"comment": 0, "post": 0, "vote": 0, "follow": 0}

    def every(first, period):
        first = first.timestamp()
        if end <= first:
            return 0
        low = 0 if begin <= first else int(-(-(begin - first) // period))
        high = int((end - first) // period) - (1 if (end - first) % period == 0 else 0)
        return max(0, high - low + 1)

    for index in range(schedule["count"]):
        due["comment"] += every(fleet_at(start, "comment", index), 60 * FLEET_COMMENT_MINUTES)
        due["post"] += every(fleet_at(start, "post", index), 60 * FLEET_POST_MINUTES)
        for round_ in range(FLEET_ONE_SHOTS):
            due["vote"] += begin <= fleet_at(start, "vote", index, round_).timestamp() < end
            if schedule["count"] > 1:
                due["follow"] += begin <= fleet_at(start, "follow", index, round_).timestamp() < end
    return due


class PsqlSession:
    """One psql process kept open for the polls (a query is a round trip, not a process start); errors (a table the
    runners have not made yet) read as no rows."""

    def __init__(self, postgres, schema):
        self.schema = schema
        self.errors = open(os.path.join(postgres.work.path, "psql-errors.log"), "a")
        self.process = subprocess.Popen(
            ["psql", "-X", "-q", "-At", "-F", "\t", "-h", "127.0.0.1", "-p", postgres.port, "-U", "moltipass", "-d",
             "moltipass"], env=dict(os.environ, PGPASSWORD=postgres.password), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.errors, text=True)

    def table(self, name):
        return f"{self.schema}.{name}"

    def query(self, sql):
        self.process.stdin.write(sql.rstrip().rstrip(";") + ";\n\\echo __fleet_end__\n")
        self.process.stdin.flush()
        rows = []
        for line in self.process.stdout:
            line = line.rstrip("\n")
            if line == "__fleet_end__":
                return rows
            if line:
                rows.append(line.split("\t"))
        raise RuntimeError("psql ended")

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
        self.errors.close()


class SqliteReader:
    """Reads a runner's state file while it runs (WAL: a reader never blocks the writer); nothing before the file
    exists (opening it first would make it, and the runner makes its file itself)."""

    def __init__(self, path):
        self.path = path
        self.connection = None

    def table(self, name):
        return name

    def query(self, sql):
        if self.connection is None:
            if not os.path.exists(self.path):
                return []
            self.connection = sqlite3.connect(self.path, timeout=5)
        try:
            return [[str(value) for value in row] for row in self.connection.execute(sql).fetchall()]
        except sqlite3.OperationalError:
            return []

    def close(self):
        if self.connection is not None:
            self.connection.close()


def fleet_log_excerpt(path):
    text = open(path, errors="replace").read()
    return text if len(text) <= 3000 else text[:1500] + "\n…\n" + text[-1500:]


def fleet_observe(reader):
    """{holder: last pass start (simulated seconds)} and {holder: agents whose lease names it}, from the state."""
    beats = {holder: float(tick) for holder, tick in
             reader.query(f"SELECT holder, last_tick FROM {reader.table('heartbeats')}")}
    leases = {holder: int(count) for holder, count in reader.query(
        f"SELECT holder, count(*) FROM {reader.table('leases')} WHERE holder <> '' GROUP BY holder")}
    return beats, leases


def fleet_holders(runners, deadline, what):
    for runner in runners:
        while not runner.holder_id():
            if not runner.alive():
                raise RuntimeError(f"{what}: runner {runner.name} exited: {fleet_log_excerpt(runner.log_path)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what}: runner {runner.name} logged no holder")
            time.sleep(0.2)
    return [runner.holder_id() for runner in runners]


def fleet_wait_steady(reader, runners, agents, deadline, what, passes=2, counted=None):
    """Until every runner began `passes` passes (after the start-up check, which reads every agent's key back) and
    the runners' leases cover every agent, none more than its share (⌈agents / runners⌉): the hand-overs of the
    start are over. Read from the state (heartbeats: a daemon records one at the start of each pass; leases), not
    the runners' /metrics."""
    share = -(-agents // len(runners))
    holders = fleet_holders(runners, deadline, what)
    # `counted`: the runners whose passes are counted (the others are known to be well on their way).
    counting = [runner.holder_id() for runner in (counted or runners)]
    ticks = {holder: set() for holder in holders}
    leases = {}
    while True:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: the runners did not settle in time (leases {leases}, pass starts "
                               f"{[len(t) for t in ticks.values()]})")
        for runner in runners:
            if not runner.alive():
                raise RuntimeError(f"{what}: runner {runner.name} exited: {fleet_log_excerpt(runner.log_path)}")
        beats, leases = fleet_observe(reader)
        for holder in holders:
            if holder in beats:
                ticks[holder].add(beats[holder])
        mine = [leases.get(holder, 0) for holder in holders]
        # The start-up check records a heartbeat too (each agent's check ends as a pass does): the first tick.
        if all(len(ticks[h]) - 1 >= passes for h in counting) and sum(mine) == agents and max(mine) <= share:
            return
        time.sleep(0.5)


class FleetPassCounter:
    """Agent passes, counted from the state: every agent pass takes (renews) the agent's lease first, which moves the
    lease's expiry (and a write's transactions renew it again within the same agent pass, a fraction of a second
    later). Polled every second: an agent whose lease moved since the last poll had a pass, unless it was counted at
    the poll before (the same pass straddling two polls). Exact while a runner's pass over its agents takes more than
    two polls (here: seconds to a minute); counted per holder."""

    def __init__(self, reader):
        self.reader = reader
        self.previous = self.leases()
        self.counted = {}
        self.polls = 0
        self.passes = {}

    def leases(self):
        return {account: (holder, expires) for account, holder, expires in self.reader.query(
            f"SELECT account, holder, expires_at FROM {self.reader.table('leases')}")}

    def poll(self):
        self.polls += 1
        current = self.leases()
        for account, (holder, expires) in current.items():
            before = self.previous.get(account)
            if before is not None and before != (holder, expires) and holder:
                if self.counted.get(account) != self.polls - 1:
                    self.passes[holder] = self.passes.get(holder, 0) + 1
                self.counted[account] = self.polls
        self.previous = current


def fleet_segment(fleet, config, round_index, scale, ttl, window, deadline):
    """One configuration, one round: the runners started on the configuration's state (made in its first round and
    used again in the later ones, two simulated days on: every lease of the killed runners long expired), warmed up,
    then measured over `window` seconds of wall time, and killed (SIGKILL) after."""
    key, label, backend, count = config
    sandbox = fleet.sandboxes[scale]
    recipes, schedule = fleet.recipes(scale)
    fresh = key not in fleet.states
    if backend == "sqlite":
        state = fleet.states.setdefault(key, os.path.join(fleet.work.path, f"state-{key}.sqlite"))
        reader = SqliteReader(state)
    else:
        schema = "fleet_" + key.replace("-", "_")
        state = fleet.states.setdefault(key, fleet.postgres.state(schema))
        reader = PsqlSession(fleet.postgres, schema)
    before_all = sandbox.counters()
    started = time.monotonic()
    runners = []
    scrapes = None
    try:
        for index in range(count):
            runners.append(FleetRunner(fleet, f"{key}-r{round_index}-{index + 1}", recipes, state, scale, ttl,
                                       os.path.join(fleet.work.path, f"runner-{key}-r{round_index}-{index + 1}.log")))
        # On a new state two whole passes first: the first only starts the schedules (a first run replays nothing),
        # the second sends each agent's first writes after reading its recent posts and comments from the server (the
        # duplicate guard's seed). On the state of an earlier round the first pass skips the occurrences missed in
        # between and the second is an ordinary one.
        fleet_wait_steady(reader, runners, len(fleet.names), min(deadline + 300, time.monotonic() + 900), label,
                          passes=3 if fresh else 2)
        holders = [runner.holder_id() for runner in runners]
        warm = time.monotonic() - started
        cpu0 = [process_cpu(runner.pid) for runner in runners]
        cpu_sandbox0, cpu_postgres0 = process_cpu(sandbox.process.pid), fleet.postgres.cpu()
        database0 = fleet.postgres.statistics() if backend == "postgres" else {}
        begin_counters, begin_clock = sandbox.counters(), sandbox.now().timestamp()
        begin_wall = time.monotonic()
        counter = FleetPassCounter(reader)
        ticks = {holder: [] for holder in holders}
        while True:
            time.sleep(max(0.0, begin_wall + counter.polls + 1 - time.monotonic()))
            for runner in runners:
                if not runner.alive():
                    raise RuntimeError(f"{label}: runner {runner.name} exited: {fleet_log_excerpt(runner.log_path)}")
            counter.poll()
            beats, _ = fleet_observe(reader)
            for holder in holders:
                if holder in beats and (not ticks[holder] or ticks[holder][-1] != beats[holder]):
                    ticks[holder].append(beats[holder])
            if time.monotonic() - begin_wall >= window:
                break
        end_wall = time.monotonic()
        end_counters, end_clock = sandbox.counters(), sandbox.now().timestamp()
        cpu1 = [process_cpu(runner.pid) for runner in runners]
        cpu_sandbox1, cpu_postgres1 = process_cpu(sandbox.process.pid), fleet.postgres.cpu()
        database1 = fleet.postgres.statistics() if backend == "postgres" else {}
        leases = fleet_observe(reader)[1]
        if fresh:
            # After the window, once per configuration: how long a /metrics scrape of a busy runner takes (the first
            # one reads every agent's state), all runners at once.
            with ThreadPoolExecutor(max_workers=count) as pool:
                scrapes = list(pool.map(lambda runner: runner.metrics(timeout=20), runners))
    finally:
        for runner in runners:
            runner.kill()
        reader.close()
    after_all = sandbox.counters()
    seconds = end_wall - begin_wall
    per_runner = []
    for index, (runner, holder, c0, c1) in enumerate(zip(runners, holders, cpu0, cpu1)):
        starts = ticks[holder]
        per_runner.append({
            "runner": runner.name, "agents": leases.get(holder, 0), "agent_passes": counter.passes.get(holder, 0),
            "agent_passes_per_s": counter.passes.get(holder, 0) / seconds, "cpu_s": c1 - c0,
            # From the pass starts (heartbeats, the runners' clock) seen in the window.
            "pass_s": (starts[-1] - starts[0]) / scale / (len(starts) - 1) if len(starts) > 1 else None,
            "scrape": {"seconds": scrapes[index]["scrape_s"], "failed": scrapes[index].get("failed")} if scrapes else None})

    def delta(name, a=begin_counters, b=end_counters):
        return b.get(name, 0) - a.get(name, 0)

    writes = delta("writes")
    created = {"posts": delta("posts_created"), "comments": delta("comments_created"), "votes": delta("votes_cast")}
    due = fleet_due(schedule, begin_clock, end_clock)
    passes = [r["pass_s"] for r in per_runner if r["pass_s"]]
    result = {
        "config": key, "label": label, "round": round_index, "runners": count, "fresh_state": fresh,
        "window_s": seconds, "simulated_s": end_clock - begin_clock, "warm_up_s": warm,
        "agent_passes": sum(counter.passes.values()), "agent_passes_per_s": sum(counter.passes.values()) / seconds,
        "mean_pass_s": statistics.mean(passes) if passes else None,
        "writes": writes, "writes_per_s": writes / seconds, "created": created,
        "due": due, "due_writes": sum(due.values()), "reads": delta("reads"),
        "cpu_s": {"runners": sum(r["cpu_s"] for r in per_runner), "sandbox": cpu_sandbox1 - cpu_sandbox0,
                  "postgres": cpu_postgres1 - cpu_postgres0},
        "database": {name: database1[name] - database0[name] for name in database1},
        "per_runner": per_runner,
        # Over the whole segment, start-up included: what must stay 0.
        "rate_limited": delta("rate_limited", before_all, after_all),
        "limit_violations": delta("limit_violations", before_all, after_all),
        "duplicate_contents": delta("duplicate_contents", before_all, after_all),
        "load": os.getloadavg()[0],
    }
    runner_passes = ", ".join(f"{r['pass_s']:.1f}" if r["pass_s"] else "?" for r in per_runner)
    scraped = "; /metrics " + ", ".join(
        f"{r['scrape']['seconds']:.1f} s" + (" FAILED" if r["scrape"]["failed"] else "") for r in per_runner
    ) if scrapes else ""
    log(f"fleet: {label}, round {round_index}: {result['agent_passes_per_s']:.1f} agent passes/s (runner passes of "
        f"{runner_passes} s), {result['writes_per_s']:.1f} writes/s ({writes} writes in {seconds:.0f} s, "
        f"{result['due_writes']} due), warm-up {warm:.0f} s, 429 {result['rate_limited']}, violations "
        f"{result['limit_violations']}, duplicates {result['duplicate_contents']}, load {result['load']:.1f}{scraped}")
    return result


def fleet_takeovers(fleet, scale, ttl, repetitions, deadline):
    """Three runners on PostgreSQL with a short lease; each repetition kills one (SIGKILL) and times, on the state,
    until none of its agents' leases names it any more (each agent's lease taken by another runner), then starts it
    again and waits for the spread to settle."""
    sandbox = fleet.sandboxes[scale]
    recipes, _ = fleet.recipes(scale)
    schema = f"fleet_takeover_{fleet.segment}"
    state = fleet.postgres.state(schema)
    session = PsqlSession(fleet.postgres, schema)
    runners = []
    results = []
    generation = 0

    def start(slot):
        nonlocal generation
        generation += 1
        return FleetRunner(fleet, f"takeover-{slot + 1}.{generation}", recipes, state, scale, ttl,
                           os.path.join(fleet.work.path, f"runner-takeover-{slot + 1}-{generation}.log"))

    try:
        runners = [start(slot) for slot in range(3)]
        restarted = None
        for repetition in range(repetitions):
            if time.monotonic() > deadline:
                log(f"fleet: takeover: out of time after {repetition} repetitions")
                break
            # The first pass of every new runner over, and the agents spread over the three again.
            fleet_wait_steady(session, runners, len(fleet.names), time.monotonic() + 600, "takeover",
                              counted=[restarted] if restarted else None)
            slot = repetition % 3
            victim = runners[slot]
            holder = victim.holder_id()
            now = sandbox.now().timestamp()
            held = {account: float(expires) for account, expires in session.query(
                f"SELECT account, expires_at FROM {schema}.leases WHERE holder = '{holder}'")}
            beat = session.query(f"SELECT last_tick FROM {schema}.heartbeats WHERE holder = '{holder}'")
            killed = time.monotonic()
            victim.kill()
            pending = set(held)
            taken = {}
            while pending:
                if time.monotonic() - killed > max(120, 20 * ttl / scale):
                    raise RuntimeError(f"takeover: {len(pending)} agents of {victim.name} still not taken over "
                                       f"{time.monotonic() - killed:.0f} s after the kill")
                still = {row[0] for row in session.query(
                    f"SELECT account FROM {schema}.leases WHERE holder = '{holder}'")}
                moment = time.monotonic() - killed
                for account in pending - still:
                    taken[account] = moment
                pending &= still
                time.sleep(0.1)
            holders = session.query(
                f"SELECT holder, count(*) FROM {schema}.leases WHERE account IN "
                f"({','.join(repr(a) for a in held) or repr('')}) GROUP BY holder")
            times = sorted(taken.values())
            newest = max(held.values()) - now if held else 0.0
            result = {
                "repetition": repetition + 1, "killed": victim.name, "agents": len(held),
                "first_s": times[0], "median_s": statistics.median(times), "last_s": times[-1],
                "last_sim_s": times[-1] * scale,
                # At the kill, in simulated seconds: how long ago the dead runner's last pass began (its heartbeat),
                # and how long its newest lease still had to run; the takeover has to wait for both.
                "heartbeat_age_sim_s": now - float(beat[0][0]) if beat else None,
                "lease_left_sim_s": newest,
                "after_expiry_sim_s": times[-1] * scale - newest,
                "now_held_by": {h: int(n) for h, n in holders},
                "load": os.getloadavg()[0],
            }
            results.append(result)
            log(f"fleet: takeover {repetition + 1}: {victim.name} held {len(held)} agents; taken over "
                f"{result['first_s']:.1f}-{result['last_s']:.1f} s after SIGKILL "
                f"({result['last_sim_s']:.0f} s simulated; lease {ttl} s simulated = {ttl / scale:.1f} s wall; at the "
                f"kill its heartbeat was {result['heartbeat_age_sim_s'] or 0:.0f} s old and its newest lease had "
                f"{newest:.0f} s left)")
            if repetition + 1 < repetitions:
                runners[slot] = restarted = start(slot)
            else:
                runners[slot:slot + 1] = []
    finally:
        for runner in runners:
            runner.kill()
        session.close()
    return results


def fleet():
    agents = int(os.environ.get("BENCH_FLEET_AGENTS", "1000"))
    rounds = int(os.environ.get("BENCH_FLEET_ROUNDS", "3"))
    window = float(os.environ.get("BENCH_FLEET_WINDOW", "20"))
    scale = int(os.environ.get("BENCH_FLEET_SCALE", "20"))
    ttl = int(os.environ.get("BENCH_FLEET_TTL", "1800"))
    takeover_scale = int(os.environ.get("BENCH_FLEET_TAKEOVER_SCALE", "2"))
    takeover_ttl = int(os.environ.get("BENCH_FLEET_TAKEOVER_TTL", "60"))
    repetitions = int(os.environ.get("BENCH_FLEET_TAKEOVERS", "3"))
    limit = float(os.environ.get("BENCH_FLEET_LIMIT", "1080"))
    started = time.monotonic()
    work = Work("fleet")
    fleet = Fleet(work, agents)
    try:
        fleet.start_postgres()
        fleet.start_sandbox(scale)
        log(f"fleet: {agents} agents registered, keychain ready ({time.monotonic() - started:.0f} s)")
        deadline = time.monotonic() + limit  # the measurements' bound (a keychain made for the first time is not)
        segments = []
        chosen = os.environ.get("BENCH_FLEET_CONFIGS")  # a subset, for trying things out
        configs = [c for c in FLEET_CONFIGS if not chosen or c[0] in chosen.split(",")]
        for round_index in range(1, rounds + 1):
            order = configs if round_index % 2 else list(reversed(configs))
            for config in order:
                if time.monotonic() > deadline:
                    raise RuntimeError("out of time (BENCH_FLEET_LIMIT)")
                segments.append(fleet_segment(fleet, config, round_index, scale, ttl, window, deadline))
        fleet.start_sandbox(takeover_scale)
        takeovers = fleet_takeovers(fleet, takeover_scale, takeover_ttl, repetitions, deadline)
        save_fleet(agents, rounds, window, scale, ttl, takeover_scale, takeover_ttl, segments, takeovers,
                   time.monotonic() - started, fleet.pid_namespaces)
    finally:
        fleet.stop()
        keep = os.environ.get("BENCH_FLEET_KEEP")
        if keep:  # the runners' and the sandboxes' logs, for a look after the run
            os.makedirs(keep, exist_ok=True)
            for directory, _, names in os.walk(work.path):
                for name in names:
                    if name.endswith(".log"):
                        prefix = os.path.relpath(directory, work.path).replace(os.sep, "-")
                        target = name if prefix == "." else f"{prefix}-{name}"
                        shutil.copy(os.path.join(directory, name), os.path.join(keep, target))
            log(f"fleet: logs kept in {keep}")
        work.remove()


def save_fleet(agents, rounds, window, scale, ttl, takeover_scale, takeover_ttl, segments, takeovers, seconds,
               pid_namespaces):
    configs = []
    for key, label, backend, count in FLEET_CONFIGS:
        mine = [s for s in segments if s["config"] == key]
        if not mine:
            continue

        def median(field, rows=mine):
            values = [row[field] for row in rows if row.get(field) is not None]
            return statistics.median(values) if values else None

        configs.append({
            "config": key, "label": label, "runners": count, "rounds": len(mine),
            "agent_passes_per_s": median("agent_passes_per_s"), "writes_per_s": median("writes_per_s"),
            "mean_pass_s": median("mean_pass_s"),
            "due_per_s": statistics.median(s["due_writes"] / s["window_s"] for s in mine),
            "window_s": median("window_s"), "warm_up_s": [s["warm_up_s"] for s in mine],
            "cpu_per_s": {part: statistics.median(s["cpu_s"][part] / s["window_s"] for s in mine)
                          for part in ("runners", "sandbox", "postgres")},
            "commits_per_s": (statistics.median(s["database"]["commits"] / s["window_s"] for s in mine)
                              if backend == "postgres" else None),
            "wal_sync_share": (statistics.median(s["database"]["wal_sync_s"] / s["window_s"] for s in mine)
                               if backend == "postgres" else None),
            "scrapes": [r["scrape"] for s in mine for r in s["per_runner"] if r.get("scrape")],
            "all_agent_passes_per_s": [s["agent_passes_per_s"] for s in mine],
            "all_writes_per_s": [s["writes_per_s"] for s in mine],
            "loads": [s["load"] for s in mine],
            "rate_limited": sum(s["rate_limited"] for s in mine),
            "limit_violations": sum(s["limit_violations"] for s in mine),
            "duplicate_contents": sum(s["duplicate_contents"] for s in mine),
        })
    base = configs[0]
    for config in configs:
        # Ratios to SQLite with one runner: of the medians, and the median of each round's own ratio.
        config["passes_ratio"] = config["agent_passes_per_s"] / base["agent_passes_per_s"]
        config["writes_ratio"] = config["writes_per_s"] / base["writes_per_s"] if base["writes_per_s"] else None
        by_round = {s["round"]: s for s in segments if s["config"] == base["config"]}
        config["round_passes_ratios"] = [s["agent_passes_per_s"] / by_round[s["round"]]["agent_passes_per_s"]
                                         for s in segments if s["config"] == config["config"] and s["round"] in by_round]
        config["round_writes_ratios"] = [s["writes_per_s"] / by_round[s["round"]]["writes_per_s"]
                                         for s in segments if s["config"] == config["config"] and s["round"] in by_round
                                         and by_round[s["round"]]["writes_per_s"]]
    takeover = {}
    if takeovers:
        lasts = [t["last_s"] for t in takeovers]
        takeover = {"repetitions": len(takeovers), "median_last_s": statistics.median(lasts),
                    "median_last_sim_s": statistics.median(lasts) * takeover_scale,
                    "median_first_s": statistics.median(t["first_s"] for t in takeovers),
                    "median_after_expiry_sim_s": statistics.median(t["after_expiry_sim_s"] for t in takeovers),
                    "max_last_s": max(lasts), "ttl_sim_s": takeover_ttl, "ttl_wall_s": takeover_ttl / takeover_scale,
                    "scale": takeover_scale, "runs": takeovers}
    bad = {"rate_limited": sum(c["rate_limited"] for c in configs),
           "limit_violations": sum(c["limit_violations"] for c in configs),
           "duplicate_contents": sum(c["duplicate_contents"] for c in configs)}

    def named(config):
        return {"sqlite-1": "SQLite ×1", "postgres-1": "PostgreSQL ×1", "postgres-3": "PostgreSQL ×3"}[config["config"]]

    passes = ", ".join(f"{named(c)} {c['agent_passes_per_s']:.0f}" + (f" ({c['passes_ratio']:.2f} ×)" if c is not base else "")
                       for c in configs)
    writes = ", ".join(f"{named(c)} {c['writes_per_s']:.1f}" + (f" ({c['writes_ratio']:.2f} ×)" if c is not base else "")
                       for c in configs)
    text = f"{agents:,} agents, agent passes/s: {passes}; writes/s: {writes}"
    if takeover:
        text += (f"; takeover after kill -9 (PostgreSQL ×3): {takeover['median_last_s']:.1f} s wall = "
                 f"{takeover['median_last_sim_s']:.0f} s simulated for a {takeover_ttl} s lease (median of "
                 f"{takeover['repetitions']}; worst {takeover['max_last_s']:.1f} s)")
    text += (f"; {bad['rate_limited']} × 429, {bad['limit_violations']} limit violations, "
             f"{bad['duplicate_contents']} duplicates")
    save("fleet", {
        "title": "fleet: 1,000 agents on one runner (SQLite, PostgreSQL) and three (PostgreSQL); takeover",
        "target": "measure (no numeric target)",
        "result": text,
        "met": None,
        "numbers": {"agents": agents, "rounds": rounds, "window_s": window, "scale": scale, "lease_ttl_s": ttl,
                    "takeover_scale": takeover_scale, "takeover_ttl_s": takeover_ttl, "seconds": seconds,
                    "pid_namespaces": pid_namespaces, "binaries": BIN, "configs": configs, "segments": segments,
                    "takeover": takeover, "misbehaviour": bad},
        "command": (f"bench/run-all --only fleet  ({rounds} rounds of the three configurations interleaved, each on a "
                    f"fresh state: {window:g} s of wall time measured after a warm-up, clock × {scale}, lease "
                    f"{ttl} s; then {len(takeovers)} × kill -9 of one of three PostgreSQL runners, clock × "
                    f"{takeover_scale}, lease {takeover_ttl} s; BENCH_FLEET_AGENTS, BENCH_FLEET_ROUNDS, "
                    f"BENCH_FLEET_WINDOW, BENCH_FLEET_TAKEOVERS)"),
    })


def fleet_section(row):
    """The fleet's own tables for BENCHMARKS.md (the row's numbers)."""
    numbers = row["numbers"]
    binaries = "release" if "release" in numbers["binaries"] else numbers["binaries"]
    lines = ["", "## Fleet (issue 23): one runner and three", "",
             f"`bench/run-all --only fleet`, {row['measured']['date']} at `{row['measured']['commit']}` ({binaries} "
             f"binaries), load average {row['measured']['load']:.1f} at the end: {numbers['agents']:,} agents, "
             f"{numbers['rounds']} rounds of the three configurations interleaved, {numbers['window_s']:g} s of wall "
             f"time measured in each after a warm-up, clock × {numbers['scale']}, lease {numbers['lease_ttl_s']} s. "
             "Medians; ratios to SQLite with one runner. An agent pass is one agent's turn in a runner's pass (its "
             "lease taken, what is due planned and journaled, the writes sent); a write is a POST the sandbox "
             "answered (comment, post, vote, follow). The machine's 2 cores run the runners, PostgreSQL and the "
             "sandbox together: three runners here show what coordinating costs, not what three hosts would add. "
             "Method: the notes, \"Fleet\".", "",
             "| configuration | agent passes/s | ratio | writes/s | ratio | writes due/s | runner pass | "
             "CPU s per s: runners, sandbox, PostgreSQL | PostgreSQL commits/s (WAL fsync busy) | per round: agent "
             "passes/s; writes/s | warm-up |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in numbers["configs"]:
        cpu = c["cpu_per_s"]
        database = (f"{c['commits_per_s']:.0f} ({c['wal_sync_share']:.0%})" if c.get("commits_per_s") is not None
                    else "–")
        passes = f"{c['mean_pass_s']:.1f} s" if c.get("mean_pass_s") else "–"
        lines.append(
            f"| {c['label']} | {c['agent_passes_per_s']:.1f} | {c['passes_ratio']:.2f} | {c['writes_per_s']:.1f} | "
            f"{c['writes_ratio']:.2f} | {c['due_per_s']:.1f} | {passes} | "
            f"{cpu['runners']:.2f}, {cpu['sandbox']:.2f}, {cpu['postgres']:.2f} | {database} | "
            f"{', '.join(f'{v:.1f}' for v in c['all_agent_passes_per_s'])}; "
            f"{', '.join(f'{v:.1f}' for v in c['all_writes_per_s'])} | "
            f"{', '.join(f'{v:.0f}' for v in c['warm_up_s'])} s |")
    takeover = numbers.get("takeover") or {}
    if takeover:
        lines += ["", f"Takeover after `kill -9` of one of three PostgreSQL runners ({numbers['agents']:,} agents, "
                      f"lease {takeover['ttl_sim_s']} s simulated = {takeover['ttl_wall_s']:.0f} s of wall time at clock "
                      f"× {takeover['scale']}): from the kill until no lease names the dead runner, each of its agents "
                      f"held by one of the other two; median of {takeover['repetitions']}: "
                      f"**{takeover['median_last_s']:.0f} s of wall time, {takeover['median_last_sim_s']:.0f} s "
                      f"simulated**, {takeover['median_last_sim_s'] / takeover['ttl_sim_s']:.1f} × the lease.", "",
                  "| # | agents of the dead runner | first taken | half taken | last taken (wall) | last taken (simulated) "
                  "| at the kill: its last pass began | its newest lease ran out | last taken after that |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for t in takeover["runs"]:
            lines.append(
                f"| {t['repetition']} | {t['agents']} | {t['first_s']:.1f} s | {t['median_s']:.1f} s | {t['last_s']:.1f} s | "
                f"{t['last_sim_s']:.0f} s | {t['heartbeat_age_sim_s']:.0f} s before | {t['lease_left_sim_s']:.0f} s "
                f"after | {t['after_expiry_sim_s']:.0f} s (simulated) |")
    bad = numbers["misbehaviour"]
    lines += ["", f"Over every configuration's whole run (start-up included): {bad['rate_limited']} × 429, "
                  f"{bad['limit_violations']} requests the sandbox's limits forbade, {bad['duplicate_contents']} "
                  f"duplicate posts or comments (the sandbox's counters)."]
    scrapes = [(c["label"], scrape) for c in numbers["configs"] for scrape in c.get("scrapes", [])]
    if scrapes:
        lines += ["", "The first `/metrics` scrape of each runner, after the window (all runners at once): " + "; ".join(
            f"{label} {scrape['seconds']:.1f} s" + (f" (**failed**: {scrape['failed']})" if scrape["failed"] else "")
            for label, scrape in scrapes) + "."]
    return lines


# MARK: BENCHMARKS.md


def render():
    rows = {}
    for name in os.listdir(RESULTS):
        if name.endswith(".json") and name not in ("machine.json", "current-run.json"):
            with open(os.path.join(RESULTS, name)) as handle:
                row = json.load(handle)
            rows[row["item"]] = row
    with open(os.path.join(RESULTS, "machine.json")) as handle:
        host = json.load(handle)
    notes_path = os.path.join(ROOT, "bench", "notes.md")
    notes = open(notes_path).read().strip() if os.path.exists(notes_path) else ""
    order = ["cold-start", "one-action", "utilisation", "plan-speed", "pass-cost", "daemon", "client", "fleet"]
    lines = [
        "# Benchmarks",
        "",
        "Generated by `bench/run-all` (do not edit by hand; the notes come from `bench/notes.md`).",
        "Medians of repeated runs; ratios are measured side by side in the same run.",
        "",
        f"- Date: {host['date']}; commit `{host['commit']}`",
        f"- Machine: {host['cpu']}, {host['cores']} cores, {host['memory_mib']} MiB, Linux {host['kernel']}, "
        f"Debian {host['debian']}; load average at start {host['load']:.1f}",
        f"- Toolchain: {host['swift']}; release build with `--static-swift-stdlib` (as the container ships it)",
        f"- Reproduce everything: `{host['command']}` ({host['seconds']:.0f} s this time)",
        "",
        "| benchmark | target | result | verdict | reproduce |",
        "|---|---|---|---|---|",
    ]
    for item in order:
        row = rows.get(item)
        if row is None:
            continue
        verdict = "measured" if row["met"] is None else ("met" if row["met"] else "**gap** (see notes)")
        when = row.get("measured", {})
        if (when.get("date"), when.get("commit")) != (host["date"], host["commit"]):
            verdict += f" (re-measured {when.get('date')} at `{when.get('commit')}`, load {when.get('load', 0):.1f})"
        lines.append(f"| {row['title']} | {row['target']} | {row['result']} | {verdict} | {row['command']} |")
    if "fleet" in rows:
        lines += fleet_section(rows["fleet"])
    lines += before_and_after(order)
    lines += ["", notes, ""] if notes else [""]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "w") as handle:
        handle.write("\n".join(lines))
    log("wrote BENCHMARKS.md")


def shown(seconds, unit):
    if unit == "ms":
        return f"{seconds * 1000:.1f} ms"
    if unit == "µs":
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds:.2f} s"


def before_and_after(order):
    """The "before vs after" tables from bench/results/baseline/ (run-all --baseline REV): one per pair of
    revisions and date, a row per comparison."""
    if not os.path.isdir(BASELINE_RESULTS):
        return []
    comparisons = []
    for name in os.listdir(BASELINE_RESULTS):
        if name.endswith(".json"):
            with open(os.path.join(BASELINE_RESULTS, name)) as handle:
                comparisons.append(json.load(handle))
    if not comparisons:
        return []
    comparisons.sort(key=lambda c: order.index(c["item"]) if c["item"] in order else len(order))
    lines = ["", "## Before vs after", "",
             "Measured by `bench/run-all --baseline REV`: the baseline revision's release binaries, built from "
             "`git archive REV`, run interleaved with the working tree's on the same inputs in one run. Medians; "
             "after/before below 1 is faster."]
    groups = {}
    for comparison in comparisons:
        groups.setdefault((comparison["before"], comparison["after"], comparison["date"]), []).append(comparison)
    for (before, after, date), group in groups.items():
        loads = sorted({f"{c['load']:.1f}" for c in group}, key=float)
        lines += ["", f"{date}; load average {' to '.join([loads[0], loads[-1]][:len(loads)])} after the comparisons:",
                  "",
                  f"| benchmark | before (`{before}`) | after (`{after}`) | after/before | how |",
                  "|---|---|---|---|---|"]
        for comparison in group:
            for row in comparison["rows"]:
                if row.get("before_s") is None or row.get("after_s") is None:
                    lines.append(f"| {row['benchmark']} | – | – | – | {row.get('note', '')} |")
                    continue
                how = f"{row['runs']} run{'s' if row['runs'] != 1 else ''} each"
                if "identical_output" in row:
                    how += "; plans byte-identical" if row["identical_output"] else "; **plans differ**"
                if "before_cpu_s" in row:
                    how += (f"; CPU (user + system, mean per round) {shown(row['before_cpu_s'], row['unit'])} → "
                            f"{shown(row['after_cpu_s'], row['unit'])}")
                if "passes" in row:
                    how += f"; {row['passes']:,} passes"
                lines.append(f"| {row['benchmark']} | {shown(row['before_s'], row['unit'])} | "
                             f"{shown(row['after_s'], row['unit'])} | {row['ratio']:.2f} | {how} |")
        lines += [""] + [f"- {comparison['item']}: {comparison['how']}" for comparison in group]
    return lines


def record_machine(command):
    """The machine, date, commit and load at the start of a run (the load says how quiet it was),
    in current-run.json; a full run's also in machine.json, the header of BENCHMARKS.md."""
    host = machine()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    host.update({"date": datetime.date.today().isoformat(), "commit": (commit or "?") + (" + local changes" if dirty else ""),
                 "command": command, "seconds": 0})
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "current-run.json"), "w") as handle:
        json.dump(host, handle, indent=2, sort_keys=True)
        handle.write("\n")


def record_seconds(seconds):
    """Ends a run: its duration; a full run becomes the header of BENCHMARKS.md."""
    path = os.path.join(RESULTS, "current-run.json")
    with open(path) as handle:
        host = json.load(handle)
    host["seconds"] = seconds
    with open(path, "w") as handle:
        json.dump(host, handle, indent=2, sort_keys=True)
        handle.write("\n")
    if host["command"].startswith("bench/run-all") and "--only" not in host["command"]:
        shutil.copyfile(path, os.path.join(RESULTS, "machine.json"))


ITEMS = {"cold-start": cold_start, "one-action": one_action, "utilisation": utilisation,
         "plan-speed": plan_speed, "pass-cost": pass_cost, "daemon": daemon, "client": client, "fleet": fleet}


def main():
    arguments = sys.argv[1:]
    if not arguments:
        print(__doc__)
        return 64
    if arguments[0] == "render":
        render()
        return 0
    if arguments[0] == "machine":
        record_machine(arguments[1])
        return 0
    if arguments[0] == "seconds":
        record_seconds(float(arguments[1]))
        return 0
    status = 0
    for item in arguments:
        if item not in ITEMS:
            print(f"unknown item {item}; items: {' '.join(ITEMS)}", file=sys.stderr)
            return 64
        try:
            ITEMS[item]()
        except Exception as error:  # one broken item must not hide the others' rows
            log(f"{item} FAILED: {error}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
