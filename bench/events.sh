#!/usr/bin/env bash
# Measures how soon an event reaches a subscriber after the write that makes it has been answered, in one run:
# BENCH_SUBSCRIBERS (10) LiveQuery subscribers of one class while writes arrive at each of BENCH_EVENT_RATES
# ("20 100") per second for BENCH_DURATION (10) s each: the delay from a write's answer to its frame (p50, p99).
# Two kinds of write: a vote (an increment of `votes`: votes' outbox, its relay, the broker and live) and a save
# (an increment of `score`, no vote field: posts' outbox, its relay, the broker and live). Beside each, in the same
# run, the baseline: the same clients and writes through a Python `websockets` broadcast server that sends each
# write's answer as it arrives (bench/live.py); and, on the `consumer` line, the delay to a downstream consumer of
# the events exchange (PyPI's pika, a queue of its own bound to the class's updates and votes). Target: p50 under
# 5 ms and p99 under 20 ms at 100 writes/s, idle and loaded: with BENCH_LOAD_CONNECTIONS (0) above 0, wrk keeps that many connections reading one of the objects
# by id for the whole measurement. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

LIVE_PORT=${PARSE_LIVE_QUERY_PORT:-$((PORT + 1))}
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-10}
RATES=${BENCH_EVENT_RATES:-20 100}
DURATION=${BENCH_DURATION:-10}
CATS=${BENCH_CATS:-10}
BASELINE_PORT=${BENCH_BASELINE_PORT:-28091}
LOAD_CONNECTIONS=${BENCH_LOAD_CONNECTIONS:-0}
readonly LIVE_PORT SUBSCRIBERS RATES DURATION CATS BASELINE_PORT LOAD_CONNECTIONS
readonly CLIENT="$REPO_ROOT/bench/live.py"
readonly LIVE_URL="ws://127.0.0.1:$LIVE_PORT$MOUNT"
CLASS=BenchEventCat$RANDOM
readonly CLASS

WORK_DIR=$(mktemp -d /tmp/bench-events.XXXXXX)
BASELINE_PID=
LOAD_PID=

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    [[ -z $BASELINE_PID ]] || kill "$BASELINE_PID" 2>/dev/null || true
    [[ -z $LOAD_PID ]] || kill "$LOAD_PID" 2>/dev/null || true
    end_run "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ensure_stack
python3 -c 'import websockets.asyncio.server' 2>/dev/null || python3 -m pip install --user --quiet 'websockets>=13'
python3 -c 'import pika' 2>/dev/null || python3 -m pip install --user --quiet 'pika>=1.3' 2>/dev/null ||
    python3 -m pip install --user --quiet --break-system-packages 'pika>=1.3'
AMQP_URL=${PARSE_AMQP_URL:-amqp://guest:guest@127.0.0.1:${PARSE_AMQP_PORT:-15682}/}
readonly AMQP_URL

say "creating $CATS cats in $CLASS"
IDS=$(create_objects "$CLASS" "$CATS" '{"name":"cat","votes":0,"score":0}')
start_broadcast_server "$BASELINE_PORT" "$WORK_DIR"

if ((LOAD_CONNECTIONS > 0)); then
    need_wrk
    say "load: wrk with $LOAD_CONNECTIONS connections reading one cat by id until the end"
    # Bounded by the measurements' own length (4 per rate), in case the cleanup never runs.
    load_seconds=$(( $(wc -w <<<"$RATES") * 4 * (DURATION + 5) + 30 ))
    wrk -t1 -c"$LOAD_CONNECTIONS" -d"${load_seconds}s" -H "X-Parse-Application-Id: $APP_ID" \
        "$BASE/classes/$CLASS/${IDS%%,*}" >/dev/null 2>&1 &
    LOAD_PID=$!
fi

field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"; }

printf '%-6s %-8s %-10s %9s %9s %15s\n' write writes/s target p50_ms p99_ms frames/expected
for rate in $RATES; do
    for write in vote save; do
        increment=$([[ $write == vote ]] && echo votes || echo score)
        say "$SUBSCRIBERS subscribers, $rate ${write}s/s for $DURATION s: through live, then the baseline"
        live=$(LIVE_WRITE_FIELD=$increment LIVE_EVENTS_AMQP_URL=$AMQP_URL python3 "$CLIENT" fanout "$LIVE_URL" "$CLASS" "$SUBSCRIBERS" "$rate" "$DURATION" \
            "$BASE" "$APP_ID" "$IDS")
        baseline=$(LIVE_WRITE_FIELD=$increment python3 "$CLIENT" fanout "ws://127.0.0.1:$BASELINE_PORT/" "$CLASS" \
            "$SUBSCRIBERS" "$rate" "$DURATION" "$BASE" "$APP_ID" "$IDS" "ws://127.0.0.1:$BASELINE_PORT/control")
        for name in live baseline; do
            result=$([[ $name == live ]] && echo "$live" || echo "$baseline")
            printf '%-6s %-8s %-10s %9s %9s %15s\n' "$write" "$rate" "$name" "$(field "$result" p50_ms)" \
                "$(field "$result" p99_ms)" "$(field "$result" frames)/$(field "$result" expected_frames)"
        done
        printf '%-6s %-8s %-10s %9s %9s %15s\n' "$write" "$rate" consumer "$(field "$live" events_p50_ms)" \
            "$(field "$live" events_p99_ms)" "$(field "$live" events)/$(field "$live" votes)"
    done
done
