"""Item 2: 20 overlapping `moltipass run --once` on one state file, repeated with different seeds.

Each round has its own sandbox (seeded), HOME and agent, and two due occurrences half an hour apart of a
recipe that posts from a queue, comments, votes, follows and subscribes. For each occurrence 20 processes
start within a seeded jitter of 0–50 ms. In odd rounds the state file does not exist yet, so the 20 also
race on creating it and running the migrations. Checks per occurrence: exactly one run exits 0, the others
5 (locked) or 3 (nothing left); per round: one post, one comment per occurrence, one vote, no duplicate,
no vote removed, the posts are the queue's first items.

    python3 scripts/reliability/overlap.py --seed N [--rounds 20] [--processes 20]
"""

import argparse
import datetime
import os
import threading
import time

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "overlap"


def recipe(base, target):
    return f"""agent: ov_poster
time_zone: UTC
base_url: {base}
jobs:
  - id: posts
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: queue.yaml }}
      - comment: {{ post: {target}, content: "Seen at {{{{ date: HH:mm }}}}" }}
      - vote: {{ ensure: upvoted, post: {target} }}
      - follow: ov_host
      - subscribe: agents
"""


def race(home, arguments, count, rng):
    """Starts `count` runs, each after its own seeded delay; returns their exit statuses."""
    delays = [rng.uniform(0, 0.05) for _ in range(count)]
    statuses = [None] * count

    def one(index):
        time.sleep(delays[index])
        process = home.start(arguments)
        statuses[index] = process.wait(timeout=120)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def round_(paths, index, seed, processes, result):
    rng = harness.seeded(seed)
    directory = paths.item_dir(f"{ITEM}/round-{index}")
    sandbox = Sandbox(paths, directory, seed, {"new_agent_period_seconds": 0})
    try:
        home = Home(paths, directory)
        # Registered two days early: the engine applies the stricter first-day limits by the agent's age.
        sandbox.set_clock(T0 - datetime.timedelta(days=2))
        host = sandbox.register("ov_host", paths)
        poster = sandbox.register("ov_poster", paths)
        target = sandbox.post(host, "general", "Overlap target", "Vote for me once.")
        home.init_keychain()
        home.add_key("ov_poster", poster)
        home.file("queue.yaml", harness.queue_text(5))
        recipe_path = home.file("overlap.yaml", recipe(sandbox.base, target))
        fresh = index % 2 == 1
        if not fresh:
            early = home.run_once([recipe_path], T0 - datetime.timedelta(minutes=1))
            result.check(early.returncode == 3, f"round {index}: the set-up run exited {early.returncode}")
        histogram = []
        for occurrence in range(2):
            # A minute past the second occurrence: the first post went out a second or two after 10:00
            # (process time counts), so at 10:30:00 sharp its 30-minute cooldown has not quite passed.
            now = T0 + datetime.timedelta(minutes=31 * occurrence)
            sandbox.set_clock(now)
            statuses = race(home, home.once_arguments([recipe_path], now), processes, rng)
            histogram.append({s: statuses.count(s) for s in sorted(set(statuses))})
            result.check(statuses.count(0) == 1, f"round {index} occurrence {occurrence}: exits {sorted(statuses)}")
            result.check(all(s in (0, 3, 5) for s in statuses),
                         f"round {index} occurrence {occurrence}: unexpected exits {sorted(statuses)}")
        counters = sandbox.counters()
        reader = sandbox.register("ov_reader", paths)
        titles = sandbox.posts_by(reader, "ov_poster")
        detail = sandbox.post_detail(poster, target)
        log(ITEM, f"round {index} (seed {seed}, {'fresh' if fresh else 'existing'} state): exits {histogram}, "
                  f"posts {counters['posts_created'] - 1}, comments {counters['comments_created']}, "
                  f"votes cast {counters['votes_cast']}, duplicates {counters['duplicate_contents']}, "
                  f"votes removed {counters['votes_removed']}")
        result.check(titles == ["Item 0", "Item 1"], f"round {index}: posts {titles}")
        result.check(counters["posts_created"] == 3, f"round {index}: {counters['posts_created'] - 1} posts")
        result.check(counters["comments_created"] == 2, f"round {index}: {counters['comments_created']} comments")
        result.check(counters["votes_cast"] == 1, f"round {index}: {counters['votes_cast']} votes cast")
        result.check(counters["duplicate_contents"] == 0, f"round {index}: duplicates")
        result.check(counters["votes_removed"] == 0, f"round {index}: a vote was toggled off")
        result.check(counters["rate_limited"] == 0, f"round {index}: {counters['rate_limited']} 429s")
        result.check(detail.get("your_vote") in ("up", "upvote", "upvoted", 1), f"round {index}: vote {detail}")
        return counters
    finally:
        sandbox.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--processes", type=int, default=20)
    args = parser.parse_args()
    result = Result(ITEM, args.seed, f"scripts/reliability/overlap --seed {args.seed} --rounds {args.rounds}")
    paths = harness.Paths()
    log(ITEM, f"seed {args.seed}: {args.rounds} rounds of {args.processes} overlapping runs, 2 occurrences each")
    totals = {"posts": 0, "comments": 0, "duplicates": 0, "votes_removed": 0}
    for index in range(args.rounds):
        counters = round_(paths, index, (args.seed * 1_000 + index) % 2**32, args.processes, result)
        totals["posts"] += counters["posts_created"] - 1
        totals["comments"] += counters["comments_created"]
        totals["duplicates"] += counters["duplicate_contents"]
        totals["votes_removed"] += counters["votes_removed"]
    result.fact(f"{args.rounds} rounds × 2 occurrences × {args.processes} processes: {totals['posts']} posts and "
                f"{totals['comments']} comments for {2 * args.rounds} occurrences, "
                f"{totals['duplicates']} duplicates, {totals['votes_removed']} votes removed")
    return result.finish()


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
