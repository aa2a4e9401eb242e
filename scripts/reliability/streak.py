"""Item 9: the challenge streak. Every write challenged, a solver that never gets one right, and an operator who
runs `moltipass resume AGENT` after every pause, for simulated days: the agent must never be suspended.

Two rounds, each with its own sandbox (its own seed) and state file, every write challenged (`challenge_rate: 1`
through `POST /_sandbox/config`, as StreakBoundTests and ChallengeStreakTests do):
  - round 1: posts from a queue every 30 min; agents with `solver: none` or a solver program that answers
    wrongly, `on_fail: { stop_after: N }` for N = default (2), 1, 3, 8, 9 and pauses of 1 h or the default 6 h;
  - round 2: the same posts, and a follow and a vote, with `challenge_every_write: true` (a vote and a follow
    are challenged too); N = 2, 5, 9.
One `run --once --json` for all the round's recipes every simulated hour (an hourly cron job; the sandbox's clock
with it);
after each, `moltipass resume AGENT` for every agent the run found paused by a failed challenge. Beside that,
recipes with `stop_after` above 9 (10, 12, 50): `validate` and `run --once` must refuse them and send nothing.

Checks: 0 suspensions (the sandbox's `suspensions` counter); the server's count of failed challenges in a row
(`GET /_sandbox/challenges`, failed and expired, an open one counted as the expiry it becomes) never reaches
the threshold 10 for any agent, read after every run; once the runner's bound is reached `resume` refuses with
exit 1 and says why on stderr ("… on the server's count (Moltbook suspends at 10)"); nothing more is
challenged after the refusal; `status --json` shows each agent's `challenge_streak` (`on_server`, `stops_at`,
`suspends_at`) agreeing with the server; no duplicate; every exit documented.

    python3 scripts/reliability/streak.py --seed N [--days 3] [--step-seconds 3605]
"""

import argparse
import datetime
import json
import os

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "streak"
RUN_EXITS = {0, 3, 4, 6}
THRESHOLD = 10
REFUSAL = "on the server's count (Moltbook suspends at 10)"

ROUNDS = [
    {"every_write": False, "agents": [
        ("st_none_default", "none", None, None), ("st_none_1", "none", 1, "1h"), ("st_wrong_3", "wrong", 3, "1h"),
        ("st_none_8", "none", 8, None), ("st_wrong_9", "wrong", 9, "1h")]},
    {"every_write": True, "agents": [
        ("st_ew_none_2", "none", 2, "1h"), ("st_ew_wrong_5", "wrong", 5, None), ("st_ew_none_9", "none", 9, "1h")]},
]
INVALID = [10, 12, 50]

WRONG_SOLVER = """#!/bin/sh
# Answers every challenge wrongly (a number no challenge has as its answer).
cat >/dev/null
echo 987654.32
"""


def recipe(agent, base, solver, stop_after, pause, queue, social=None):
    on_fail = []
    if pause:
        on_fail.append(f"pause: {pause}")
    if stop_after is not None:
        on_fail.append(f"stop_after: {stop_after}")
    challenge = f"challenge:\n  solver: {solver}\n" + (f"  on_fail: {{ {', '.join(on_fail)} }}\n" if on_fail else "")
    text = f"""agent: {agent}
time_zone: UTC
base_url: {base}
{challenge}jobs:
  - id: posts
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: {queue} }}
"""
    if social:
        host, post = social
        text += f"""  - id: social
    schedule: {{ every: 2h }}
    steps:
      - follow: {host}
      - vote: {{ ensure: upvoted, post: {post} }}
"""
    return text


def server_streaks(sandbox):
    """Per agent: (failed or expired in a row at the end, the same counting an open one, the longest run)."""
    sandbox.counters()  # the sandbox notices expiries lazily, here among other places
    by_agent = {}
    for challenge in sandbox.admin("GET", "challenges").get("challenges", []):
        by_agent.setdefault(challenge.get("agent"), []).append(challenge.get("state"))
    streaks = {}
    for agent, states in by_agent.items():
        run = longest = 0
        for state in states:
            if state in ("failed", "expired", "pending"):
                run += 1
                longest = max(longest, run)
            else:
                run = 0
        closed = 0
        for state in reversed(states):
            if state == "pending" and closed == 0:
                continue
            if state in ("failed", "expired"):
                closed += 1
            else:
                break
        streaks[agent] = (closed, run, longest, len(states))
    return streaks


class Round:
    def __init__(self, index, spec, args, paths, result, solver_path):
        self.index, self.spec, self.args, self.paths, self.result = index, spec, args, paths, result
        self.seed = (args.seed * 100 + index) % 2**32
        self.directory = paths.item_dir(f"{ITEM}/round-{index}")
        config = {"new_agent_period_seconds": 0}
        self.sandbox = Sandbox(paths, self.directory, self.seed, config)
        self.home = Home(paths, self.directory)
        self.solver_path = solver_path
        self.recipes = {}
        self.tally = {"runs": 0, "resumes": 0, "resumes refused": 0, "exits": {}, "resume exits": {}}
        self.max_streak = {}
        self.refusals = {}
        self.first_refusal_challenges = {}
        self.bad = []

    def setup(self):
        sandbox, home = self.sandbox, self.home
        sandbox.set_clock(T0 - datetime.timedelta(days=2))
        social = None
        if self.spec["every_write"]:
            host = sandbox.register(f"st_host_{self.index}", self.paths)
            social = (f"st_host_{self.index}", sandbox.post(host, "general", "Vote here", "A post to vote on."))
        home.init_keychain()
        for agent, solver, stop_after, pause in self.spec["agents"]:
            key = sandbox.register(agent, self.paths)
            home.add_key(agent, key)
            queue = f"queue-{agent}.yaml"
            home.file(queue, harness.queue_text(300, prefix=f"{agent} item"))
            solver_text = "none" if solver == "none" else f"{{ command: {self.solver_path}, timeout: 5s }}"
            self.recipes[agent] = home.file(f"{agent}.yaml", recipe(agent, sandbox.base, solver_text, stop_after,
                                                                    pause, queue, social))
        sandbox.configure({"challenge_rate": 1, "challenge_every_write": self.spec["every_write"]})

    def steps(self):
        now = T0
        step_length = datetime.timedelta(seconds=self.args.step_seconds)
        total = int(self.args.days * 86400 / self.args.step_seconds)
        recipes = list(self.recipes.values())
        for step in range(total):
            self.sandbox.set_clock(now)
            outcome = self.home.run(["run", *recipes, "--once", "--detailed-exitcode", "--json", "--state",
                                     self.home.state, "--now", harness.iso(now)], timeout=120)
            self.tally["runs"] += 1
            self.tally["exits"][outcome.returncode] = self.tally["exits"].get(outcome.returncode, 0) + 1
            if outcome.returncode not in RUN_EXITS:
                self.bad.append(f"run at {harness.iso(now)}: exit {outcome.returncode} {outcome.stderr.strip()[-200:]}")
            try:
                report = json.loads(outcome.stdout)
            except ValueError:
                report = {}
                self.bad.append(f"run at {harness.iso(now)}: --json output does not parse")
            kinds = report.get("pause_kinds", {})
            for agent in sorted(report.get("paused", {})):
                if "challenge_failed" not in kinds.get(agent, ["challenge_failed"]):
                    continue
                self.resume(agent, now + datetime.timedelta(seconds=1))
            for agent, (closed, with_open, longest, count) in server_streaks(self.sandbox).items():
                if agent in self.recipes:
                    self.max_streak[agent] = max(self.max_streak.get(agent, 0), with_open, longest)
            now += step_length
        self.end = now

    def resume(self, agent, at):
        outcome = self.home.run(["resume", agent, "--state", self.home.state, "--now", harness.iso(at)])
        self.tally["resumes"] += 1
        self.tally["resume exits"][outcome.returncode] = self.tally["resume exits"].get(outcome.returncode, 0) + 1
        if outcome.returncode == 1:
            self.tally["resumes refused"] += 1
            if agent not in self.refusals:
                self.refusals[agent] = outcome.stderr.strip()
                self.first_refusal_challenges[agent] = server_streaks(self.sandbox).get(agent, (0, 0, 0, 0))[3]
        elif outcome.returncode != 0:
            self.bad.append(f"resume {agent}: exit {outcome.returncode} {outcome.stderr.strip()[-200:]}")

    def verify(self):
        result, sandbox = self.result, self.sandbox
        counters = sandbox.counters()
        streaks = server_streaks(sandbox)
        status = self.home.run(["status", *self.recipes.values(), "--state", self.home.state, "--json", "--now",
                                harness.iso(self.end)])
        shown = {}
        try:
            for agent in json.loads(status.stdout).get("agents", []):
                shown[agent.get("agent")] = agent.get("challenge_streak")
        except ValueError:
            result.check(False, f"round {self.index}: status --json does not parse: {status.stdout[:200]!r}")
        for line in self.bad[:5]:
            result.check(False, f"round {self.index}: {line}")
        result.check(counters["suspensions"] == 0, f"round {self.index}: {counters['suspensions']} suspensions")
        result.check(counters["duplicate_contents"] == 0,
                     f"round {self.index}: {counters['duplicate_contents']} duplicates")
        for agent in self.recipes:
            worst = self.max_streak.get(agent, 0)
            result.check(worst < THRESHOLD, f"{agent}: the server counted {worst} failures in a row")
            refusal = self.refusals.get(agent)
            result.check(refusal is not None, f"{agent}: resume never refused (server streak {streaks.get(agent)})")
            if refusal is not None:
                result.check(REFUSAL in refusal, f"{agent}: the refusal does not say why: {refusal[:200]!r}")
                later = streaks.get(agent, (0, 0, 0, 0))[3]
                result.check(later == self.first_refusal_challenges[agent],
                             f"{agent}: {later - self.first_refusal_challenges[agent]} challenges after the refusal")
            streak = shown.get(agent)
            result.check(isinstance(streak, dict) and streak.get("stops_at") == 8 and streak.get("suspends_at") == 10,
                         f"{agent}: status --json challenge_streak {streak}")
            if isinstance(streak, dict):
                on_server = streaks.get(agent, (0, 0, 0, 0))[0]
                result.check(streak.get("on_server") == on_server,
                             f"{agent}: status says on_server {streak.get('on_server')}, the server counts {on_server}")
        kinds = {}
        for challenge in sandbox.admin("GET", "challenges").get("challenges", []):
            kinds[challenge.get("content_type")] = kinds.get(challenge.get("content_type"), 0) + 1
        self.kinds = kinds
        log(ITEM, f"round {self.index} (seed {self.seed}): {self.tally}; server streaks {streaks}; "
                  f"status {shown}; challenged {kinds}")
        return counters, streaks, shown


def invalid_stop_after(args, paths, result, solver_path):
    """`stop_after` above 9: refused by validate and by run, before anything is sent."""
    directory = paths.item_dir(f"{ITEM}/invalid")
    sandbox = Sandbox(paths, directory, (args.seed * 100 + 99) % 2**32, {"new_agent_period_seconds": 0})
    try:
        home = Home(paths, directory)
        sandbox.set_clock(T0 - datetime.timedelta(days=2))
        home.init_keychain()
        key = sandbox.register("st_insistent", paths)
        home.add_key("st_insistent", key)
        home.file("queue.yaml", harness.queue_text(5))
        sandbox.configure({"challenge_rate": 1})
        sandbox.set_clock(T0)
        refused = []
        for n in INVALID:
            path = home.file(f"stop-{n}.yaml", recipe("st_insistent", sandbox.base, "none", n, "1h", "queue.yaml"))
            validate = home.run(["validate", path])
            run = home.run(["run", path, "--once", "--detailed-exitcode", "--state", home.state, "--now",
                            harness.iso(T0)])
            said = "stop_after" in validate.stderr and "stop_after" in run.stderr
            result.check(validate.returncode == 65 and run.returncode == 65 and said,
                         f"stop_after {n}: validate {validate.returncode}, run {run.returncode}: "
                         f"{validate.stderr.strip()[:160]!r}")
            refused.append((n, validate.returncode, run.returncode, validate.stderr.strip().splitlines()[:1]))
        counters = sandbox.counters()
        result.check(counters["posts_created"] == 0 and counters["challenges_issued"] == 0,
                     f"a recipe with stop_after above 9 sent something: {counters['posts_created']} posts")
        return refused
    finally:
        sandbox.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--days", type=float, default=3)
    parser.add_argument("--step-seconds", type=int, default=3605, help="simulated time between runs")
    args = parser.parse_args()
    result = Result(ITEM, args.seed, f"scripts/reliability/streak --seed {args.seed} --days {args.days:g}")
    paths = harness.Paths()
    solver_path = os.path.join(paths.item_dir(ITEM), "wrong-solver.sh")
    with open(solver_path, "w") as handle:
        handle.write(WRONG_SOLVER)
    os.chmod(solver_path, 0o755)
    log(ITEM, f"seed {args.seed}: {len(ROUNDS)} rounds over {args.days:g} simulated days")
    totals = {"runs": 0, "resumes": 0, "refused": 0, "issued": 0, "failed": 0, "expired": 0, "verified": 0,
              "suspensions": 0, "duplicates": 0}
    worst = {}
    agents = {}
    kinds = []
    for index, spec in enumerate(ROUNDS, 1):
        round_ = Round(index, spec, args, paths, result, solver_path)
        try:
            round_.setup()
            round_.steps()
            counters, streaks, shown = round_.verify()
        finally:
            round_.sandbox.stop()
        totals["runs"] += round_.tally["runs"]
        totals["resumes"] += round_.tally["resumes"]
        totals["refused"] += round_.tally["resumes refused"]
        totals["issued"] += counters["challenges_issued"]
        totals["failed"] += counters["challenges_failed"]
        totals["expired"] += counters["challenges_expired"]
        totals["verified"] += counters["challenges_verified"]
        totals["suspensions"] += counters["suspensions"]
        totals["duplicates"] += counters["duplicate_contents"]
        worst.update(round_.max_streak)
        kinds.append(f"round {index}: " + ", ".join(f"{k} {v}" for k, v in sorted(round_.kinds.items())))
        for agent, solver, stop_after, pause in spec["agents"]:
            on_server = (shown.get(agent) or {}).get("on_server")
            outcome = (f"{streaks.get(agent, (0, 0, 0, 0))[3]} challenges, max streak "
                       f"{round_.max_streak.get(agent, 0)}, status on_server {on_server}")
            agents.setdefault(outcome, []).append(f"{solver}/{stop_after or 'default'}/{pause or '6h'}")
    refused = invalid_stop_after(args, paths, result, solver_path)
    result.fact(f"{len(ROUNDS)} rounds (seeds {args.seed * 100 + 1}, {args.seed * 100 + 2}; the second challenges "
                f"votes and follows too), {sum(len(s['agents']) for s in ROUNDS)} agents over {args.days:g} simulated "
                f"days, a run every {args.step_seconds} s: {totals['runs']} runs, {totals['resumes']} resumes "
                f"({totals['refused']} refused with the server's count)")
    result.fact(f"challenges: {totals['issued']} issued, {totals['failed']} failed, {totals['expired']} expired, "
                f"{totals['verified']} verified; max streak seen on the server {max(worst.values(), default=0)} "
                f"(threshold {THRESHOLD}); suspensions {totals['suspensions']}; duplicates {totals['duplicates']}")
    result.fact("per agent (solver/stop_after/pause): " + "; ".join(
        f"{', '.join(names)}: {outcome}" for outcome, names in agents.items()) + "; challenged: " + "; ".join(kinds))
    result.fact("stop_after above 9: " + ", ".join(f"{n} refused (validate {v}, run {r})" for n, v, r, _ in refused)
                + ", nothing sent")
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
