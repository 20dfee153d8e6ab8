#!/usr/bin/env bash
# Measures the live service (Parse LiveQuery over WebSocket) in one run:
#   1. BENCH_IDLE_CONNECTIONS (10,000) idle connections, each after `connect`: the RSS of live while they are held;
#   2. BENCH_SUBSCRIBERS (1,000) subscribers of one Cat class while votes arrive at BENCH_VOTE_RATE (500/s) over
#      BENCH_CATS cats: frames delivered per second and the delay from a vote's answer to its frame (p50, p99,
#      measured on 50 of the subscribers);
#   3. the baseline, in the same run: a Python `websockets` broadcast server sending the same frames (one per vote
#      answer) to the same number of clients;
#   2. and 3. also give the CPU each server spent per frame delivered (its own process's time over the frames the
#      clients read), which does not depend on how fast the clients read;
#   4. the fan-out of 2. again while one client holds BENCH_HOSTILE (10) subscriptions to the class whose `$regex`
#      backtracks catastrophically on every cat's name (each renewed as soon as live drops it): the p99 of the
#      ordinary subscribers beside 2.'s.
# Targets: fan-out >= 2x the baseline, p99 < 100 ms at 500 votes/s (< 50 ms, #39), CPU per frame <= 0.5x the
# baseline's, live under 200 MB, and 4.'s p99 beside 2.'s.
# See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

LIVE_PORT=${PARSE_LIVE_QUERY_PORT:-$((PORT + 1))}
IDLE=${BENCH_IDLE_CONNECTIONS:-10000}
SUBSCRIBERS=${BENCH_SUBSCRIBERS:-1000}
RATE=${BENCH_VOTE_RATE:-500}
DURATION=${BENCH_DURATION:-10}
CATS=${BENCH_CATS:-100}
HOSTILE=${BENCH_HOSTILE:-10}
BASELINE_PORT=${BENCH_BASELINE_PORT:-28090}
readonly LIVE_PORT IDLE SUBSCRIBERS RATE DURATION CATS HOSTILE BASELINE_PORT
readonly CLIENT="$REPO_ROOT/bench/live.py"
# The fan-out clients: Swift, one thread reading every subscriber (bench/live-client), built here like json-bench.
readonly FANOUT="$REPO_ROOT/.build/release/live-fanout-client"
readonly LIVE_URL="ws://127.0.0.1:$LIVE_PORT$MOUNT"
CLASS=BenchLiveCat$RANDOM
readonly CLASS

WORK_DIR=$(mktemp -d /tmp/bench-live.XXXXXX)
BASELINE_PID=
IDLE_PID=
HOSTILE_PID=

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    [[ -z $IDLE_PID ]] || kill "$IDLE_PID" 2>/dev/null || true
    [[ -z $BASELINE_PID ]] || kill "$BASELINE_PID" 2>/dev/null || true
    [[ -z $HOSTILE_PID ]] || kill "$HOSTILE_PID" 2>/dev/null || true
    end_run "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# CPU time a process has used, in clock ticks; and microseconds of it per frame between two readings.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
per_frame_us() {
    awk -v before="$1" -v after="$2" -v frames="$3" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { if (frames > 0) printf "%.2f", (after - before) * 1e6 / hz / frames; else print "-" }'
}

ensure_stack
(cd "$REPO_ROOT" && swift build -c release --product live-fanout-client >&2)
python3 -c 'import websockets.asyncio.server' 2>/dev/null || python3 -m pip install --user --quiet 'websockets>=13'
# Each connection is a descriptor on both ends.
ulimit -n "$(ulimit -Hn)"
LIVE_PID=$(pid_of live) || die "live is not running in $STACK_DIR"

say "creating $CATS cats in $CLASS"
IDS=$(create_objects "$CLASS" "$CATS" '{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!","votes":0}')

say "1. $IDLE idle connections"
rss_before=$(rss_mb "$LIVE_PID")
python3 "$CLIENT" idle "$LIVE_URL" "$IDLE" 600 >"$WORK_DIR/idle.out" &
IDLE_PID=$!
until [[ -s $WORK_DIR/idle.out ]]; do
    kill -0 "$IDLE_PID" 2>/dev/null || die "the idle clients stopped"
    sleep 1
done
sleep 2
rss_idle=$(rss_mb "$LIVE_PID")
idle_result=$(cat "$WORK_DIR/idle.out")
kill "$IDLE_PID" 2>/dev/null || true
wait "$IDLE_PID" 2>/dev/null || true
IDLE_PID=
sleep 2

say "2. $SUBSCRIBERS subscribers of $CLASS, $RATE votes/s for $DURATION s, through live"
live_ticks=$(cpu_ticks "$LIVE_PID")
live_result=$("$FANOUT" "$LIVE_URL" "$CLASS" "$SUBSCRIBERS" "$RATE" "$DURATION" "$BASE" "$APP_ID" "$IDS")
live_ticks_after=$(cpu_ticks "$LIVE_PID")
rss_fanout=$(rss_mb "$LIVE_PID")

say "3. the same through a Python websockets broadcast server (baseline)"
start_broadcast_server "$BASELINE_PORT" "$WORK_DIR"
baseline_ticks=$(cpu_ticks "$BASELINE_PID")
baseline_result=$("$FANOUT" "ws://127.0.0.1:$BASELINE_PORT/" "$CLASS" "$SUBSCRIBERS" "$RATE" "$DURATION" \
    "$BASE" "$APP_ID" "$IDS" "ws://127.0.0.1:$BASELINE_PORT/control")
baseline_ticks_after=$(cpu_ticks "$BASELINE_PID")
kill "$BASELINE_PID" 2>/dev/null || true
BASELINE_PID=

say "4. the fan-out of 2. again, beside $HOSTILE catastrophic-regex subscriptions renewed as they are dropped"
python3 "$CLIENT" hostile "$LIVE_URL" "$CLASS" "$HOSTILE" "$((DURATION + 30))" >"$WORK_DIR/hostile.out" &
HOSTILE_PID=$!
until [[ -s $WORK_DIR/hostile.out ]]; do
    kill -0 "$HOSTILE_PID" 2>/dev/null || die "the hostile client stopped"
    sleep 0.2
done
sleep 1
hostile_result=$("$FANOUT" "$LIVE_URL" "$CLASS" "$SUBSCRIBERS" "$RATE" "$DURATION" "$BASE" "$APP_ID" "$IDS")
kill "$HOSTILE_PID" 2>/dev/null || true
wait "$HOSTILE_PID" 2>/dev/null || true
HOSTILE_PID=

field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2]))' "$1" "$2"; }

printf '\nidle: %s; live RSS %s MB before, %s MB with them held\n' "$idle_result" "$rss_before" "$rss_idle"
printf '%-22s %12s %14s %9s %9s %7s\n' target frames/s expected/sent p50_ms p99_ms votes
for name in live baseline live+hostile; do
    case $name in
    live) result=$live_result ;;
    baseline) result=$baseline_result ;;
    *) result=$hostile_result ;;
    esac
    printf '%-22s %12s %14s %9s %9s %7s\n' "$name" "$(field "$result" frames_per_second)" \
        "$(field "$result" frames)/$(field "$result" expected_frames)" "$(field "$result" p50_ms)" \
        "$(field "$result" p99_ms)" "$(field "$result" votes)"
done
ratio=$(python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(round(a / b, 2) if b else "n/a")' \
    "$(field "$live_result" frames_per_second)" "$(field "$baseline_result" frames_per_second)")
printf 'fan-out live/baseline: %sx (target 2x); live RSS after the fan-out run %s MB (target < 200)\n' "$ratio" "$rss_fanout"
live_us=$(per_frame_us "$live_ticks" "$live_ticks_after" "$(field "$live_result" frames)")
baseline_us=$(per_frame_us "$baseline_ticks" "$baseline_ticks_after" "$(field "$baseline_result" frames)")
printf 'CPU per delivered frame: live %s us, baseline %s us: %s of the baseline (target <= 0.5x)\n' "$live_us" "$baseline_us" \
    "$(ratio "$live_us" "$baseline_us")"
printf 'with %s catastrophic-regex subscriptions: p99 %s ms beside %s ms without them (hostile client: %s)\n' "$HOSTILE" \
    "$(field "$hostile_result" p99_ms)" "$(field "$live_result" p99_ms)" "$(tail -1 "$WORK_DIR/hostile.out")"
