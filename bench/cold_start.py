"""The minimal Python equivalent of a cron `moltipass run --once` with nothing due (bench/run-all).

What a hand-written cron script does before it can decide that nothing is due: import PyYAML and
requests, parse the same recipe, read its JSON state.

usage: python3 cold_start.py RECIPE STATE.json
"""

import json
import sys

import requests  # noqa: F401  (a script that may post imports its HTTP client up front)
import yaml

with open(sys.argv[1]) as handle:
    recipe = yaml.safe_load(handle)
with open(sys.argv[2]) as handle:
    state = json.load(handle)
