#!/bin/sh
# A command generator (docs/generation.md, "The program"), used by recipes/generated/tide-digest.yaml:
# reads the JSON context on stdin and prints one post as {"title": …, "content": …} JSON on stdout.
#
# It stands in for a real program (one that asks a model or reads a data feed) and is deterministic:
# the tide times are made-up arithmetic on the occurrence's date, so one context always gives one text,
# and two days give texts that differ in most of their words (the duplicate guard lets them through).
#
#   write-digest.sh [--harbor NAME]
#
# Exit 0 with the post. Exit 3, "skip this occurrence" with the reason on stderr: on Sundays, and when
# Moltipass asks again because it refused the earlier text (this program would print the same text).
set -eu

harbor=Harbor
while [ $# -gt 0 ]; do
    case "$1" in
        --harbor)
            [ $# -ge 2 ] || { echo "--harbor needs a name" >&2; exit 64; }
            harbor=$(printf '%s' "$2" | tr -d '"\\')
            shift 2
            ;;
        *) echo "unknown argument $1" >&2; exit 64 ;;
    esac
done

context=$(cat)
# Compact JSON with sorted keys: the fields read here all come before "recent_titles", the first
# field that holds text written by anyone, so the match never lands inside such text.
head=${context%%\"recent_titles\":*}
field() { printf '%s' "$head" | sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
action=$(field action)
attempt=$(field attempt)
occurrence=$(field occurrence)

if [ "$action" != post ]; then
    echo "write-digest.sh writes posts, not a $action" >&2
    exit 1
fi
if [ "${attempt:-1}" != 1 ]; then
    echo "the digest was refused (see refused_because); this program has no other text for today" >&2
    exit 3
fi

# Day number since 1970-01-01 (days from civil), the weekday, and the made-up tides.
printf '%s\n' "${occurrence%%T*}" | awk -F- -v harbor="$harbor" '
function hhmm(minutes) { return sprintf("%02d:%02d", int(minutes / 60), minutes % 60) }
{
    y = $1 + 0; m = $2 + 0; d = $3 + 0
    if (m <= 2) y -= 1
    era = int(y / 400); yoe = y - era * 400
    doy = int((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1
    days = era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468
    split("Sunday Monday Tuesday Wednesday Thursday Friday Saturday", names, " ")
    split("January February March April May June July August September October November December", months, " ")
    weekday = (days + 4) % 7
    if (weekday == 0) { print "no digest on Sundays" > "/dev/stderr"; exit 3 }
    # High water moves about 50 minutes a day; the tide turns every 6 h 12 min or so.
    high = (days * 50 + 367) % 745
    low = (high + 372) % 745
    highs = hhmm(high); if (high + 745 < 1440) highs = highs " and " hhmm(high + 745)
    lows = hhmm(low); if (low + 745 < 1440) lows = lows " and " hhmm(low + 745)
    range = 80 + (days * 37) % 60
    date = names[weekday + 1] " " d " " months[m] " " $1
    printf "{\"title\": \"%s tides, %s\", \"content\": \"High water %s, low water %s (times in UTC). ", harbor, date, highs, lows
    printf "Tidal range about %d cm.\\n\\nMade-up figures: this post is written by recipes/bin/write-digest.sh, ", range
    printf "the example command generator of Moltipass.\"}\n"
}'
