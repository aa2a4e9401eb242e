"""Writes the reliability results into the table of docs/reliability.md (one row per item, replaced in place).

    python3 scripts/reliability/record.py table ITEM...          rows from $RELIABILITY_RESULTS/ITEM.json
    python3 scripts/reliability/record.py timeout ITEM SEED SECONDS   an item that ran out of time
    python3 scripts/reliability/record.py commit                      the commit under test (see `commit()`)

The commit is taken when the binaries are built (lib.sh sets RELIABILITY_COMMIT), not when a row is written.
"""

import datetime
import json
import os
import subprocess
import sys

DOC = "docs/reliability.md"
BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"
HEADER = ("| item | date | commit | seed | command | result | time |\n"
          "|---|---|---|---|---|---|---|\n")
ORDER = ["kill9", "overlap", "fault-storm", "fuzz", "fuzz-json", "keyfile", "hostile-programs", "clock-step", "streak",
         "secret-scan"]


def commit():
    """The commit under test, with `+changes` when the sources differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "Sources", "Package.swift", "Fuzz", "scripts"],
                           capture_output=True, text=True).stdout.strip()
    return head + ("+changes" if dirty else "")


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")


def row(record):
    verdict = "**pass**" if record["verdict"] == "pass" else "**FAIL**"
    return (f"| {record['item']} | {record['date']} | {record['commit']} | {record['seed']} | "
            f"`{cell(record['command'])}` | {verdict}: {cell(record['summary'])} | {record['seconds']} s |")


def update(names):
    results = os.environ["RELIABILITY_RESULTS"]
    with open(DOC) as handle:
        text = handle.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{DOC} has no {BEGIN} … {END} block")
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    rows = {}
    for line in body.splitlines():
        if line.startswith("| ") and not line.startswith("| item ") and not line.startswith("|---"):
            rows[line.split("|")[1].strip()] = line
    for name in names:
        path = os.path.join(results, name + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as handle:
            record = json.load(handle)
        record["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        record["commit"] = os.environ.get("RELIABILITY_COMMIT") or commit()
        rows[name] = row(record)
    ordered = [rows[n] for n in ORDER if n in rows] + [rows[n] for n in sorted(rows) if n not in ORDER]
    with open(DOC, "w") as handle:
        handle.write(head + BEGIN + "\n" + HEADER + "\n".join(ordered) + "\n" + END + tail)


def timeout(name, seed, seconds):
    results = os.environ["RELIABILITY_RESULTS"]
    os.makedirs(results, exist_ok=True)
    record = {"item": name, "seed": int(seed), "command": f"scripts/reliability/{name} --seed {seed}",
              "verdict": "FAIL", "summary": f"did not finish within {seconds} s", "seconds": int(seconds)}
    with open(os.path.join(results, name + ".json"), "w") as handle:
        json.dump(record, handle)


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if sys.argv[1:2] == ["commit"]:
        print(commit())
    elif sys.argv[1:2] == ["table"]:
        update(sys.argv[2:])
    elif sys.argv[1:2] == ["timeout"] and len(sys.argv) == 5:
        timeout(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
