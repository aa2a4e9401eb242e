"""The minimal Python equivalent of a cron `moltipass run --once` with one post due (bench/run-all).

Imports PyYAML and requests, parses the recipe, reads the JSON state, sends the recipe's post to
the sandbox with the key from MOLTIPASS_BENCH_KEY (no keychain: the key sits in the environment),
and writes the state back. No rate limiting, no journal, no retry: the floor a script cannot go
below.

usage: MOLTIPASS_BENCH_KEY=KEY python3 one_action.py RECIPE STATE.json
"""

import datetime
import json
import os
import sys

import requests
import yaml

with open(sys.argv[1]) as handle:
    recipe = yaml.safe_load(handle)
with open(sys.argv[2]) as handle:
    state = json.load(handle)
post = recipe["jobs"][0]["steps"][0]["post"]
now = datetime.datetime.now(datetime.timezone.utc)
response = requests.post(
    recipe["base_url"] + "/posts",
    headers={"Authorization": "Bearer " + os.environ["MOLTIPASS_BENCH_KEY"]},
    json={"submolt_name": post["submolt"], "title": f"Python {now:%H:%M:%S.%f}", "content": post["content"]},
    timeout=30,
)
response.raise_for_status()
state.setdefault("cursors", {})["posts"] = now.isoformat()
with open(sys.argv[2], "w") as handle:
    json.dump(state, handle)
