# Shared by the scripts in scripts/reliability/ (sourced, not run): arguments, tools, the one build, the work
# directory and the results table in docs/reliability.md.
#
# Every item script takes `--seed N` (default: a random seed, always printed) and `--no-build` (use the binaries
# already in the scratch path). Environment: RELIABILITY_SCRATCH (default .build-rel), RELIABILITY_WORK (the
# work directory; default a new one under /tmp, removed at the end unless RELIABILITY_KEEP=1),
# RELIABILITY_RECORD=0 to leave docs/reliability.md alone.
set -euo pipefail

RELIABILITY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$RELIABILITY_ROOT"
export RELIABILITY_SCRATCH="${RELIABILITY_SCRATCH:-.build-rel}"
export PYTHONDONTWRITEBYTECODE=1
RELIABILITY_BUILT="$RELIABILITY_ROOT/$RELIABILITY_SCRATCH/debug"

# Parses the common flags; anything else is left in REST for the item.
reliability_args() {
    SEED=""
    BUILD=1
    REST=()
    while (($#)); do
        case "$1" in
        --seed)
            SEED="$2"
            shift 2
            ;;
        --seed=*)
            SEED="${1#--seed=}"
            shift
            ;;
        --no-build)
            BUILD=0
            shift
            ;;
        *)
            REST+=("$1")
            shift
            ;;
        esac
    done
    if [ -z "$SEED" ]; then SEED=$((($(od -An -N4 -tu4 /dev/urandom) % 2000000000) + 1)); fi
    if ! [[ "$SEED" =~ ^[0-9]+$ ]]; then
        echo "--seed takes a non-negative integer" >&2
        exit 64
    fi
    export SEED
}

# System packages, python3 and the toolchain.
reliability_tools() {
    scripts/ensure-deps
    if ! command -v python3 >/dev/null 2>&1; then
        local sudo=""
        if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3 >/dev/null
    fi
}

# The one build: debug, with the tests (the secret scan runs the suite), in the scratch path.
reliability_build() {
    if ((BUILD)); then
        echo "reliability: building (swift build --scratch-path $RELIABILITY_SCRATCH --build-tests)" >&2
        local attempt log
        log="$(mktemp)"
        for attempt in 1 2 3; do
            if swift build --scratch-path "$RELIABILITY_SCRATCH" --build-tests >"$log" 2>&1; then break; fi
            # A file edited during the build (a shared working tree) is worth another try; anything else is not.
            if ((attempt == 3)) || ! grep -q "was modified during the build" "$log"; then
                cat "$log" >&2
                rm -f "$log"
                exit 1
            fi
            echo "reliability: a source file changed during the build; building again" >&2
            sleep 20
        done
        tail -1 "$log" >&2
        rm -f "$log"
    fi
    # What the binaries were built from (shared tree: HEAD moves while the items run).
    if [ -z "${RELIABILITY_COMMIT:-}" ]; then
        RELIABILITY_COMMIT="$(python3 scripts/reliability/record.py commit)"
        export RELIABILITY_COMMIT
    fi
    for binary in moltipass moltbook-sandbox; do
        if [ ! -x "$RELIABILITY_BUILT/$binary" ]; then
            echo "reliability: $RELIABILITY_BUILT/$binary is missing (drop --no-build)" >&2
            exit 1
        fi
    done
}

# The work directory (logs, state files, keychains the harness makes) and the file of the keys it registered.
reliability_work() {
    if [ -z "${RELIABILITY_WORK:-}" ]; then
        RELIABILITY_WORK="$(mktemp -d "${TMPDIR:-/tmp}/moltipass-reliability.XXXXXX")"
        export RELIABILITY_WORK
        if [ "${RELIABILITY_KEEP:-0}" != 1 ]; then
            trap 'rm -rf "$RELIABILITY_WORK" "$RELIABILITY_WORK.keys"' EXIT
        fi
    fi
    export RELIABILITY_RESULTS="${RELIABILITY_RESULTS:-$RELIABILITY_WORK/results}"
    mkdir -p "$RELIABILITY_RESULTS"
    # The items run copies of the binaries: a build in the shared tree during a run (the scratch path is
    # everyone's to rebuild) would otherwise swap them mid-run ("Text file busy").
    if [ -z "${RELIABILITY_BIN:-}" ] && [ -x "$RELIABILITY_BUILT/moltipass" ]; then
        export RELIABILITY_BIN="$RELIABILITY_WORK/bin"
        mkdir -p "$RELIABILITY_BIN"
        cp "$RELIABILITY_BUILT/moltipass" "$RELIABILITY_BUILT/moltbook-sandbox" "$RELIABILITY_BIN/"
    fi
}

reliability_setup() {
    reliability_args "$@"
    reliability_tools
    reliability_build
    reliability_work
}

# Runs an item's python driver under a hard time bound; records its row; returns its status.
# Usage: reliability_item NAME SECONDS python-script args...
reliability_item() {
    local name="$1" bound="$2"
    shift 2
    echo "reliability: $name, seed $SEED (bounded to ${bound} s)"
    local status=0
    timeout --kill-after=15 "$bound" python3 -u "$@" || status=$?
    if ((status == 124 || status == 137)); then
        echo "reliability: $name did not finish within ${bound} s" >&2
        python3 scripts/reliability/record.py timeout "$name" "$SEED" "$bound"
    fi
    if [ "${RELIABILITY_RECORD:-1}" = 1 ]; then
        python3 scripts/reliability/record.py table "$name"
    fi
    return "$status"
}
