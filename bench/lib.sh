# shellcheck shell=bash
# Helpers shared by the benchmark scripts; sourced, not run. Each script sets REPO_ROOT, STACK, PORT and
# BASE (the gateway's URL with the mount) before calling ensure_stack.

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$@" 2>/dev/null || true; }

# wrk prints latencies as 512.00us, 1.20ms, 2.00s or 1.00m: milliseconds with three decimals.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n *= 1; else if (v ~ /m$/) n *= 60000; else if (v ~ /s$/) n *= 1000
        printf "%.3f", n }'
}

# Uses the stack answering on $PORT, or starts one (STARTED_STACK=1 tells the caller's cleanup to stop it).
# STARTED_STACK is read by the sourcing script's cleanup.
# shellcheck disable=SC2034
STARTED_STACK=0
# shellcheck disable=SC2034
ensure_stack() {
    if [[ $(http_status "$BASE/health") == 200 ]]; then
        say "using the stack already answering on port $PORT"
        return 0
    fi
    say "no gateway answers on port $PORT; starting one with deploy/stack up (stopped at the end)"
    STARTED_STACK=1
    "$STACK" up >/dev/null
}
