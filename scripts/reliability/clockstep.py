"""Item 8: the clock steps. `moltipass run --once` on a clock that steps back and jumps forward.

One agent posts from a queue every 30 minutes. Runs come every 3–5 (seeded) minutes of true time, as a cron
job's would; each run is told its clock with `--now`, and the sandbox's clock is set to the same instant.
After two hours of normal runs come episodes, in a seeded order, in which the clock steps back:

  - by minutes (2–40 min), three times;
  - by hours (1–6 h), twice;
  - by a day, twice: once put right within minutes, once left behind for 70–100 minutes of true time while
    the runs go on (a VM restored from yesterday's snapshot until NTP corrects it);

each followed by 1–4 runs on the wrong clock (it runs on with true time) and then the clock put right, and
30–60 minutes of normal runs. Then an hour of normal runs, a forward jump of 2–4 days (a machine that was
off), and an hour of normal runs again.

Checks (issue 34, deliverable 2):
  - a job's cursor (`schedule_cursors.last_fired` in the SQLite state) never moves back;
  - a run whose clock is behind the cursor plans nothing (no journal entry is made for an occurrence at or
    before the cursor, none twice) and says so (`skipped`: "the clock stepped back; nothing is planned
    again …", as ClockStepTests pins it);
  - once the clock is right again, the current occurrence (the latest half-hour at or before the clock, when
    it is after the cursor) is planned, not dropped as "missed";
  - no occurrence is dropped as missed outside the forward jump, and none is left unaccounted for;
  - the forward jump makes no catch-up storm (at most one post in the run after it; the missed ones are
    reported skipped);
  - no duplicate post, no 429, the posts are the queue's first items in order, nothing left in flight.

    python3 scripts/reliability/clockstep.py --seed N
"""

import argparse
import datetime
import json
import os

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "clock-step"
ALLOWED = {0, 3, 4}
HALF_HOUR = 1800
STEPPED_BACK = "the clock stepped back; nothing is planned again"
MISSED = "missed"
# The skip of an occurrence that fell while the clock was behind, once it is right again (ClockBehind).
FELL_BEHIND = "fell while the clock was behind"


def recipe(base):
    return f"""agent: cs_poster
time_zone: UTC
base_url: {base}
jobs:
  - id: posts
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: queue.yaml }}
"""


def epoch(moment):
    return moment.timestamp()


def moment(seconds):
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


class ClockStep:
    def __init__(self, args, paths, result):
        self.args, self.paths, self.result = args, paths, result
        self.rng = harness.seeded(args.seed)
        self.directory = paths.item_dir(ITEM)
        self.sandbox = Sandbox(paths, self.directory, args.seed % 2**32, {"new_agent_period_seconds": 0})
        self.home = Home(paths, self.directory)
        self.true = T0  # the true time
        self.runs = []  # one record per run
        self.steps = {"forward": 0, "back by minutes": 0, "back by hours": 0, "back by a day": 0,
                      "back by a day, behind > 1 h": 0, "put right": 0, "forward jump of days": 0}
        self.jump = None  # (clock before, clock after) of the forward jump

    def setup(self):
        sandbox, home = self.sandbox, self.home
        # Three days early: a step back by a day must not make the agent a new one (first-day limits).
        sandbox.set_clock(T0 - datetime.timedelta(days=3))
        key = sandbox.register("cs_poster", self.paths)
        home.init_keychain()
        home.add_key("cs_poster", key)
        home.file("queue.yaml", harness.queue_text(600))
        self.recipe = home.file("cs.yaml", recipe(sandbox.base))

    # MARK: state

    def cursors(self):
        if not os.path.exists(self.home.state):
            return {}
        return {f"{r}/{j}": fired for r, j, fired in self.home.query(
            "SELECT recipe, job, last_fired FROM schedule_cursors")}

    def journal(self):
        if not os.path.exists(self.home.state):
            return {}
        rows = self.home.query("SELECT key, occurrence, state FROM journal WHERE action = 'post'")
        return {key: (occurrence, state) for key, occurrence, state in rows}

    # MARK: runs

    def run(self, clock, kind):
        """One run at `clock` (the sandbox's clock set the same); records what it did."""
        before_cursors = self.cursors()
        before_journal = self.journal()
        self.sandbox.set_clock(clock)
        outcome = self.home.run(["run", self.recipe, "--once", "--detailed-exitcode", "--json", "--state",
                                 self.home.state, "--now", harness.iso(clock)], timeout=120)
        after_cursors = self.cursors()
        after_journal = self.journal()
        try:
            items = json.loads(outcome.stdout).get("items", [])
        except ValueError:
            items = []
            self.result.check(False, f"run at {harness.iso(clock)}: --json output does not parse")
        cursor = max(before_cursors.values()) if before_cursors else None
        record = {
            "clock": epoch(clock), "kind": kind, "exit": outcome.returncode, "cursor_before": cursor,
            "cursors_before": before_cursors, "cursors_after": after_cursors,
            "new": {k: v for k, v in after_journal.items() if k not in before_journal},
            "behind": cursor is not None and epoch(clock) < cursor,
            "reported": any(STEPPED_BACK in (i.get("reason") or "") for i in items),
            "missed": [i.get("action", "") for i in items if MISSED in (i.get("reason") or "")
                       and i.get("outcome") == "skipped"],
            "fell": [i.get("action", "") for i in items if FELL_BEHIND in (i.get("reason") or "")
                     and i.get("outcome") == "skipped"],
            "items": items, "stderr": outcome.stderr.strip()[-300:],
        }
        self.runs.append(record)
        self.result.check(outcome.returncode in ALLOWED,
                          f"run at {harness.iso(clock)} ({kind}) exited {outcome.returncode}: {record['stderr']}")
        return record

    def forward(self, minutes):
        """Normal runs for `minutes` of true time, every 3–5 minutes."""
        end = self.true + datetime.timedelta(minutes=minutes)
        while self.true < end:
            self.true += datetime.timedelta(seconds=self.rng.randint(180, 300))
            self.run(self.true, "forward")
            self.steps["forward"] += 1

    def episode(self, kind):
        if kind == "back by minutes":
            back = datetime.timedelta(minutes=self.rng.randint(2, 40))
        elif kind == "back by hours":
            back = datetime.timedelta(minutes=self.rng.randint(60, 360))
        else:
            back = datetime.timedelta(days=1, minutes=self.rng.randint(-10, 10))
        behind_for = (datetime.timedelta(minutes=self.rng.randint(70, 100)) if kind.endswith("> 1 h")
                      else None)
        self.steps[kind] += 1
        offset = back
        # The step itself: a few seconds of true time later, the clock says `back` less.
        self.true += datetime.timedelta(seconds=self.rng.randint(20, 120))
        self.run(self.true - offset, kind)
        started = self.true
        count = self.rng.randint(1, 4)
        done = 1
        while (behind_for is None and done < count) or (behind_for is not None
                                                        and self.true - started < behind_for):
            self.true += datetime.timedelta(seconds=self.rng.randint(180, 300))
            self.run(self.true - offset, kind + " (still behind)")
            done += 1
        # Put right (NTP, an operator): the true time again.
        self.true += datetime.timedelta(seconds=self.rng.randint(180, 300))
        self.run(self.true, "put right")
        self.steps["put right"] += 1
        log(ITEM, f"{kind}: {harness.iso(self.true - offset)} for {done} runs, then {harness.iso(self.true)}")

    def scenario(self):
        # The first run exactly on the grid: a recipe's first run fires what is due now.
        self.run(self.true, "forward")
        self.forward(120)
        kinds = (["back by minutes"] * 3 + ["back by hours"] * 2 + ["back by a day", "back by a day, behind > 1 h"])
        self.rng.shuffle(kinds)
        for kind in kinds:
            self.episode(kind)
            self.forward(self.rng.randint(30, 60))
        self.forward(60)
        before = self.true
        self.true += datetime.timedelta(days=self.rng.randint(2, 4), minutes=self.rng.randint(0, 29))
        self.run(self.true, "forward jump of days")
        self.steps["forward jump of days"] += 1
        self.jump = (epoch(before), epoch(self.true))
        log(ITEM, f"forward jump: {harness.iso(before)} to {harness.iso(self.true)}")
        self.forward(60)

    # MARK: checks

    def verify(self):
        result, sandbox = self.result, self.sandbox
        counters = sandbox.counters()
        reader = sandbox.register("cs_reader", self.paths)
        titles = sandbox.posts_by(reader, "cs_poster")
        journal = self.journal()

        # Cursors never move back.
        moved_back = []
        for run in self.runs:
            for job, fired in run["cursors_after"].items():
                earlier = run["cursors_before"].get(job)
                if earlier is not None and fired < earlier:
                    moved_back.append(f"{job} {harness.iso(moment(earlier))} -> {harness.iso(moment(fired))} "
                                      f"at {harness.iso(moment(run['clock']))}")
        result.check(not moved_back, f"a cursor moved back: {moved_back[:3]}")

        # Replays: an entry for an occurrence at or before the cursor of the run that made it, or twice.
        replays = []
        seen = {}
        for run in self.runs:
            for key, (occurrence, _) in run["new"].items():
                if run["cursor_before"] is not None and occurrence <= run["cursor_before"]:
                    replays.append(f"{harness.iso(moment(occurrence))} planned at {harness.iso(moment(run['clock']))}"
                                   f" ({run['kind']}), cursor {harness.iso(moment(run['cursor_before']))}")
                if occurrence in seen:
                    replays.append(f"{harness.iso(moment(occurrence))} planned twice")
                seen[occurrence] = key
        result.check(not replays, f"occurrences replayed: {replays[:3]}")

        # Behind runs plan nothing and say so.
        behind = [run for run in self.runs if run["behind"]]
        unreported = [harness.iso(moment(run["clock"])) for run in behind if not run["reported"]]
        planned_behind = [harness.iso(moment(run["clock"])) for run in behind if run["new"]]
        result.check(not unreported, f"{len(unreported)} runs behind the cursor did not say so: {unreported[:3]}")
        result.check(not planned_behind, f"runs behind the cursor planned something: {planned_behind[:3]}")
        result.check(all(run["exit"] in (3, 4) for run in behind),
                     f"exits of runs behind the cursor: {sorted({run['exit'] for run in behind})}")
        falsely = [harness.iso(moment(run["clock"])) for run in self.runs if run["reported"] and not run["behind"]]
        result.check(not falsely, f"runs not behind the cursor reported a step back: {falsely[:3]}")

        # The current occurrence once the clock is right again, and drops as missed.
        current_dropped = []
        returns = 0
        while_behind = set()  # half-hours that fell while the clock was behind (after the cursor, before now)
        for previous, run in zip(self.runs, self.runs[1:]):
            if not previous["behind"] or run["behind"]:
                continue
            returns += 1
            current = run["clock"] - (run["clock"] - epoch(T0)) % HALF_HOUR
            if run["cursor_before"] is not None and current > run["cursor_before"]:
                planned = any(occurrence == current for occurrence, _ in run["new"].values())
                if not planned:
                    current_dropped.append(f"{harness.iso(moment(current))} at {harness.iso(moment(run['clock']))} "
                                           f"(cursor {harness.iso(moment(run['cursor_before']))}; "
                                           f"report: {run['missed'][:2]})")
                point = current - HALF_HOUR
                while point > run["cursor_before"]:
                    while_behind.add(point)
                    point -= HALF_HOUR
        result.check(not current_dropped,
                     f"the current occurrence after the clock was put right was not planned: {current_dropped[:3]}")

        grid = []
        last = max(run["clock"] for run in self.runs)
        point = epoch(T0)
        while point <= last:
            grid.append(point)
            point += HALF_HOUR
        # Every occurrence ever journaled (an entry withdrawn when it expired leaves the journal).
        occurrence_of, journaled_at = {}, {}
        for index, run in enumerate(self.runs):
            for key, (occurrence, _) in run["new"].items():
                occurrence_of[key] = occurrence
                journaled_at[key] = index
        planned = set(occurrence_of.values())
        expired = []  # (occurrence, whether the clock was behind between its journaling and its expiry)
        for index, run in enumerate(self.runs):
            for item in run["items"]:
                if item.get("outcome") == "skipped" and (item.get("reason") or "").startswith("expired"):
                    start = journaled_at.get(item.get("key"), index)
                    expired.append((occurrence_of.get(item.get("key")),
                                    any(r["behind"] for r in self.runs[start:index])))
        off_grid = sorted(p for p in planned if (p - epoch(T0)) % HALF_HOUR)
        result.check(not off_grid, f"journal occurrences off the half-hour grid: {off_grid[:3]}")
        def reported(kind):
            moments = set()
            for run in self.runs:
                for action in run[kind]:
                    # "occurrence T", or "occurrences A … B (N)" for a run of more than three with one reason.
                    texts = action.replace("occurrences ", "").replace("occurrence ", "").split(" (")[0].split(" … ")
                    try:
                        ends = [epoch(datetime.datetime.strptime(t.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(
                            tzinfo=datetime.timezone.utc)) for t in texts]
                    except ValueError:
                        continue
                    moments.update(float(m) for m in range(int(ends[0]), int(ends[-1]) + 1, HALF_HOUR))
            return moments
        missed_reported = reported("missed")
        fell_reported = reported("fell")
        in_jump = [p for p in grid if self.jump[0] < p <= self.jump[1]]
        outside = [p for p in grid if not self.jump[0] < p <= self.jump[1] and p not in while_behind]
        dropped = sorted(p for p in outside if p not in planned)
        dropped_missed = [p for p in dropped if p in missed_reported]
        unaccounted = [p for p in dropped if p not in missed_reported]
        unaccounted += [p for p in while_behind if p not in planned and p not in missed_reported
                        and p not in fell_reported]
        behind_planned = sum(1 for p in while_behind if p in planned)
        behind_missed = sum(1 for p in while_behind if p in missed_reported)
        behind_fell = sum(1 for p in while_behind if p in fell_reported)
        fell_outside = sorted(p for p in fell_reported if p not in while_behind)
        result.check(not fell_outside, f"{len(fell_outside)} occurrences skipped as fallen behind that did not fall "
                                       f"while the clock was behind: {[harness.iso(moment(p)) for p in fell_outside[:4]]}")
        jump_missed = [p for p in in_jump if p in missed_reported]
        result.check(not dropped_missed, f"{len(dropped_missed)} occurrences dropped as missed (outside the forward "
                                         f"jump): {[harness.iso(moment(p)) for p in dropped_missed[:4]]}")
        result.check(not unaccounted, f"{len(unaccounted)} occurrences neither planned nor reported: "
                                      f"{[harness.iso(moment(p)) for p in sorted(unaccounted)[:4]]}")
        for occurrence, across in expired:
            log(ITEM, f"expired unsent: the {harness.iso(moment(occurrence)) if occurrence else '?'} occurrence's post"
                      f"{' (the clock stepped back while it waited)' if across else ''}")
        jump_run = next(run for run in self.runs if run["kind"] == "forward jump of days")
        jump_posts = len(jump_run["new"])
        result.check(jump_posts <= 1, f"the run after the forward jump planned {jump_posts} posts (a catch-up storm)")
        result.check(len(jump_missed) >= len(in_jump) - 1,
                     f"the forward jump's occurrences were not reported missed: {len(jump_missed)} of {len(in_jump)}")

        result.check(counters["duplicate_contents"] == 0, f"{counters['duplicate_contents']} duplicate posts")
        result.check(len(titles) == len(set(titles)), "a title was posted twice")
        result.check(counters["rate_limited"] == 0, f"{counters['rate_limited']} requests refused with 429")
        result.check(harness.contiguous_queue(titles), f"posts are not the queue's first items in order: {titles}")
        done = sum(1 for _, state in journal.values() if state == "done")
        stuck = {state for _, state in journal.values() if state != "done"}
        result.check(done == len(titles) == counters["posts_created"],
                     f"journal posts done {done}, visible {len(titles)}, created {counters['posts_created']}")
        result.check(not stuck - {"intent"}, f"journal posts left {stuck}")

        back_steps = sum(v for k, v in self.steps.items() if k.startswith("back"))
        exits = {}
        for run in self.runs:
            exits[run["exit"]] = exits.get(run["exit"], 0) + 1
        exits = dict(sorted(exits.items()))
        result.fact(f"{len(self.runs)} runs: steps {', '.join(f'{k} {v}' for k, v in self.steps.items())} "
                    f"({back_steps} backward steps, {len(behind)} runs behind the cursor, each reporting the step "
                    f"back: {len(behind) - len(unreported)}, clock put right {returns} times); exits {exits}")
        result.fact(f"posts {len(titles)} (queue order kept: {harness.contiguous_queue(titles)}), duplicates "
                    f"{counters['duplicate_contents']}, 429s {counters['rate_limited']}; cursor moved back "
                    f"{len(moved_back)}; replays {len(replays)}; current occurrence dropped after the clock was put "
                    f"right {len(current_dropped)}")
        result.fact(f"{len(grid)} half-hour occurrences: {len(planned)} planned ({len(expired)} of them expired "
                    f"unsent, deferred by the post limit past the next occurrence, "
                    f"{sum(1 for _, step in expired if step)} of those across a backward step), "
                    f"{len(dropped_missed)} dropped as missed, {len(unaccounted)} unaccounted; "
                    f"{len(while_behind)} fell while the clock was behind "
                    f"(after the cursor, before the current one): {behind_planned} planned, {behind_fell} skipped "
                    f"as fallen behind, {behind_missed} skipped as missed; forward jump of {(self.jump[1] - self.jump[0]) / 86400:.1f} days: {len(in_jump)} "
                    f"occurrences, {len(jump_missed)} reported missed (policy skip), {jump_posts} posted by the run "
                    f"after it")

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    result = Result(ITEM, args.seed, f"scripts/reliability/clock-step --seed {args.seed}")
    paths = harness.Paths()
    step = ClockStep(args, paths, result)
    log(ITEM, f"seed {args.seed}")
    try:
        step.setup()
        step.scenario()
        step.verify()
    finally:
        step.sandbox.stop()
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
