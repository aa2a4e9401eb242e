"""Item 1: `moltipass run --once` killed with SIGKILL at random points through a simulated day.

One agent posts from a queue every 30 min, comments and votes on fixed targets, votes and comments on
posts picked by a selector, follows and subscribes. The sandbox clock and `--now` advance by a fixed step
per run; each run is killed after a random delay within its measured duration (a third of them with a
write answered late by the sandbox, so the kill often lands between "request applied" and "answer
read"). The loop goes on until the asked number of runs were really killed, then clean runs finish the
backlog. Checks: no duplicate post or comment, no vote removed or changed, no 429, the agent's posts
are the queue's first items in order, and the journal, the queue position and the server agree.

    python3 scripts/reliability/kill9.py --seed N [--kills 200]
"""

import argparse
import datetime
import json
import os
import time

import harness
from harness import T0, Home, Result, Sandbox, log

ITEM = "kill9"
# 0 done, 3 nothing due, 4 deferred, 5 locked (by another live run), 75 an outcome left
# unknown by a kill (reported, then settled by reading back or given up for votes).
ALLOWED = (0, 3, 4, 5, 75)


def recipe(base, host_post, down_post, host_comment):
    return f"""agent: k9_poster
time_zone: UTC
base_url: {base}
jobs:
  - id: posts
    schedule: {{ every: 30m }}
    steps:
      - post: {{ submolt: general, queue: queue.yaml }}
  - id: chatter
    schedule: {{ every: 1h }}
    steps:
      - comment: {{ post: {host_post}, content: "Checking in at {{{{ date: yyyy-MM-dd HH:mm }}}}" }}
      - vote: {{ ensure: upvoted, post: {host_post} }}
  - id: judge
    schedule: {{ every: 1h, start: 2026-01-01T00:20:00Z }}
    steps:
      - vote: {{ ensure: downvoted, post: {down_post} }}
      - vote: {{ ensure: upvoted, comment: {host_comment} }}
  - id: curate
    schedule: {{ every: 20m, start: 2026-01-01T00:05:00Z }}
    steps:
      - vote:
          ensure: upvoted
          on: {{ source: submolt, submolt: agents, sort: new, limit: 50, max_per_run: 1 }}
  - id: reply
    schedule: {{ every: 90m, start: 2026-01-01T00:10:00Z }}
    steps:
      - comment:
          on: {{ source: submolt, submolt: agents, sort: new, limit: 50, max_per_run: 1 }}
          content: "Read {{{{ post.title }}}} with interest."
  - id: social
    schedule: {{ every: 2h }}
    steps:
      - follow: k9_friend
      - subscribe: [agents, introductions]
"""


def setup(sandbox, paths, home):
    """Agents, targets (a post to talk under, one to downvote, a comment, 30 posts in m/agents), keychain."""
    # Registered two days early: the engine applies the stricter first-day limits by the agent's age.
    sandbox.set_clock(T0 - datetime.timedelta(days=2))
    host = sandbox.register("k9_host", paths)
    sandbox.register("k9_friend", paths)
    poster = sandbox.register("k9_poster", paths)
    sandbox.configure({"limits": {"post_cooldown_seconds": None, "comment_cooldown_seconds": None}})
    host_post = sandbox.post(host, "general", "Talk to me", "Comments welcome.")
    down_post = sandbox.post(host, "general", "Downvote me", "A bad take.")
    host_comment = sandbox.comment(host, host_post, "First!")
    for n in range(30):
        sandbox.set_clock(T0 - datetime.timedelta(days=2) + datetime.timedelta(seconds=3 * n))  # 30 writes/min
        sandbox.post(host, "agents", f"Target {n}", f"Target post {n}.")
    sandbox.configure({"limits": {"post_cooldown_seconds": 1800, "comment_cooldown_seconds": 20}})
    home.init_keychain()
    home.add_key("k9_poster", poster)
    home.file("queue.yaml", harness.queue_text(400))
    return poster, host_post, down_post, host_comment


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--step-seconds", type=int, default=240,
                        help="simulated time between runs (under the engine's 5-minute lateness tolerance)")
    parser.add_argument("--max-seconds", type=int, default=600, help="stop killing after this long")
    args = parser.parse_args()
    command = f"scripts/reliability/kill9 --seed {args.seed} --kills {args.kills}"
    result = Result(ITEM, args.seed, command)
    rng = harness.seeded(args.seed)
    paths = harness.Paths()
    directory = paths.item_dir(ITEM)
    sandbox = Sandbox(paths, directory, args.seed % 2**32, {"new_agent_period_seconds": 0})
    try:
        run(args, rng, paths, directory, sandbox, result)
    finally:
        sandbox.stop()
    return result.finish()


def run(args, rng, paths, directory, sandbox, result):
    home = Home(paths, directory)
    poster, host_post, down_post, host_comment = setup(sandbox, paths, home)
    recipe_path = home.file("k9.yaml", recipe(sandbox.base, host_post, down_post, host_comment))
    step = datetime.timedelta(seconds=args.step_seconds)
    log(ITEM, f"seed {args.seed}: {args.kills} kills, clock step {step.total_seconds():.0f} s")

    now = T0
    # Calibration: the first run of the day does the most work; its length bounds the kill delay.
    sandbox.set_clock(now)
    started = time.monotonic()
    first = home.run_once([recipe_path], now)
    window = max(0.3, time.monotonic() - started)
    result.check(first.returncode in (0, 3, 4), f"first run exit {first.returncode}: {first.stderr.strip()}")
    log(ITEM, f"first run {window:.2f} s; kills within 0–{window:.2f} s")
    now += step

    killed = finished = late_writes = 0
    statuses = {}
    deadline = time.monotonic() + args.max_seconds
    iterations = 0
    while killed < args.kills and time.monotonic() < deadline and iterations < args.kills * 4:
        iterations += 1
        sandbox.set_clock(now)
        late = rng.random() < 1 / 3
        if late:
            # A write applied by the sandbox and answered late: a kill now finds it `sent`, not `done`.
            sandbox.faults([{"mode": "delay", "method": "POST", "delay_seconds": round(rng.uniform(0.2, 0.8), 2),
                             "count": rng.randint(1, 3)}])
            late_writes += 1
        delay = rng.uniform(0, window)
        process = home.start(home.once_arguments([recipe_path], now))
        time.sleep(delay)
        process.kill()
        status = process.wait(timeout=30)
        if status == -9:
            killed += 1
        else:
            finished += 1
            statuses[status] = statuses.get(status, 0) + 1
            result.check(status in ALLOWED, f"run at {harness.iso(now)} exited {status} (see {home.log_path})")
        sandbox.clear_faults()
        now += step
    span = now - T0
    result.fact(f"{killed} runs killed, {finished} finished before the kill (exits {statuses}), "
                f"{late_writes} with a late write, {iterations} runs over {span.total_seconds() / 3600:.1f} simulated h")
    result.check(killed >= args.kills, f"only {killed} of {args.kills} runs were killed in time")

    # Clean runs finish whatever the kills left (uncertain writes are read back, deferrals come due).
    clean = []
    for _ in range(6):
        sandbox.set_clock(now)
        outcome = home.run_once([recipe_path], now)
        clean.append(outcome.returncode)
        result.check(outcome.returncode in ALLOWED, f"clean run exit {outcome.returncode}: {outcome.stderr.strip()}")
        now += datetime.timedelta(minutes=11)
    log(ITEM, f"clean runs: {clean}")
    verify(sandbox, paths, home, result, poster, host_post, down_post, span)


def post_accounting(home):
    """Journal post rows as (item number, state, retry time), from the rendered payload's title."""
    rows = home.query("SELECT CAST(payload AS TEXT), state, next_attempt_at FROM journal WHERE action = 'post'")
    items = []
    for payload, state, retry in rows:
        title = json.loads(payload).get("title", "")
        items.append((int(title.split()[-1]) if title.startswith("Item ") else -1, state, retry))
    return sorted(items)


def vote_accounting(sandbox, home, poster, host_post):
    """Votes whose outcome the engine never learned (journal `failed`/`uncertain`): did they land?"""
    rows = home.query("SELECT action, target, state FROM journal WHERE action LIKE '%vote%' AND state != 'done'")
    comments = {}
    status, answer = sandbox.api("GET", f"/posts/{host_post}/comments?sort=new&limit=100", poster)
    for comment in (answer.get("comments", []) if status == 200 else []):
        comments[comment.get("id")] = comment.get("your_vote")
    landed = lost = 0
    for action, target, _ in rows:
        vote = comments.get(target) if action.endswith("comment") else sandbox.post_detail(poster, target).get("your_vote")
        wanted = "down" if action.startswith("down") else "up"
        if vote is not None and str(vote).startswith(wanted):
            landed += 1
        else:
            lost += 1
    return len(rows), landed, lost


def verify(sandbox, paths, home, result, poster, host_post, down_post, span):
    counters = sandbox.counters()
    reader = sandbox.register("k9_reader", paths)
    titles = sandbox.posts_by(reader, "k9_poster")
    journal = harness.journal_summary(home)
    queue = home.query("SELECT coalesce(sum(next_index), 0) FROM queue_positions")[0][0]
    occurrences = int(span.total_seconds() // 1800) + 1
    planned = post_accounting(home)
    numbers = [number for number, _, _ in planned]
    done = [number for number, state, _ in planned if state == "done"]
    pending = [number for number, state, retry in planned if state != "done" and (state != "failed" or retry)]
    dropped = [number for number, state, retry in planned if state == "failed" and not retry]
    result.fact(
        f"sandbox: {counters['posts_created'] - 32} posts, {counters['comments_created'] - 1} comments, "
        f"{counters['votes_cast']} votes cast; duplicates {counters['duplicate_contents']}, "
        f"votes removed {counters['votes_removed']}, changed {counters['votes_changed']}, "
        f"429s {counters['rate_limited']}, limit violations {counters['limit_violations']}")
    result.fact(f"queue: {len(titles)} posted in order of {occurrences} half-hour occurrences, {len(pending)} still "
                f"pending (deferred by the post limit), {len(dropped)} dropped; queue position {queue}")
    total, landed, lost = vote_accounting(sandbox, home, poster, host_post)
    result.fact(f"votes with an outcome the engine never learned (killed after sending): {total}, of which "
                f"{landed} had landed and {lost} had not (never retried, by design: a blind retry could toggle)")
    log(ITEM, f"journal {journal}")
    result.check(counters["duplicate_contents"] == 0, f"{counters['duplicate_contents']} duplicate posts/comments")
    result.check(counters["votes_removed"] == 0, f"{counters['votes_removed']} votes toggled off")
    result.check(counters["votes_changed"] == 0, f"{counters['votes_changed']} votes switched")
    result.check(counters["rate_limited"] == 0, f"{counters['rate_limited']} requests refused with 429")
    result.check(harness.contiguous_queue(titles), f"posts are not the queue's first items in order: {titles}")
    result.check(numbers == list(range(queue)), f"queue items planned {numbers}, queue position {queue}")
    result.check(sorted(done) == list(range(len(titles))) and len(done) == counters["posts_created"] - 32,
                 f"journal posts done {done}, {len(titles)} visible, {counters['posts_created'] - 32} created")
    result.check(not dropped, f"queue items dropped for good: {dropped}")
    own_comments = counters["comments_created"] - 1
    result.check(journal.get("comment/done", 0) == own_comments,
                 f"journal says {journal.get('comment/done', 0)} comments done, the sandbox created {own_comments}")
    stuck = {k: v for k, v in journal.items() if k.split("/")[1] in ("sent", "uncertain")}
    result.check(not stuck, f"journal entries left in flight after the clean runs: {stuck}")
    result.check(len(titles) >= occurrences // 3, f"only {len(titles)} posts in {occurrences} occurrences")


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    harness.main_guard(main)
