#!/usr/bin/env bash
# Measures the auth paths through the gateway, each beside a baseline from the same run:
#   1. GET <mount>/health on the gateway (the baseline: no message leaves the gateway),
#   2. GET <mount>/users/me with a session token the gateway has cached (one round trip, to auth's /users/me),
#   3. the same on a second gateway started with the session cache off (two round trips: resolve, then /users/me),
#   4. POST <mount>/login (a bcrypt check at cost 10 and a new session per request).
# Needs a running stack (deploy/stack up); see bench/auth.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

BIN_DIR=${PARSE_BIN_DIR:-$REPO_ROOT/.build/release}
AMQP_URL=${PARSE_AMQP_URL:-amqp://guest:guest@127.0.0.1:${PARSE_AMQP_PORT:-15682}/}
UNCACHED_PORT=${BENCH_UNCACHED_PORT:-28337}
DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
readonly BIN_DIR AMQP_URL UNCACHED_PORT DURATION WARMUP CONNECTIONS


WORK_DIR=""
UNCACHED_PID=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n $UNCACHED_PID ]]; then
        kill "$UNCACHED_PID" 2>/dev/null || true
        wait "$UNCACHED_PID" 2>/dev/null || true
    fi
    if [[ -n $WORK_DIR ]]; then rm -rf "$WORK_DIR"; fi
    exit "$status"
}


# measure NAME URL [wrk options...]: records "req/s p50_ms p99_ms" in RESULTS[NAME].
declare -A RESULTS=()
measure() {
    local name=$1 url=$2 output
    shift 2
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "$@" "$url" >/dev/null
    output=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" "$url")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

print_row() {
    local label=$1 values=$2 rps p50 p99 base_rps base_p50 base_p99
    read -r rps p50 p99 <<<"$values"
    read -r base_rps base_p50 base_p99 <<<"${RESULTS[health]}"
    printf '%-36s %10.0f %9.3f %9.3f   %8s %8s %8s\n' "$label" "$rps" "$p50" "$p99" \
        "$(ratio "$rps" "$base_rps")" "$(ratio "$p50" "$base_p50")" "$(ratio "$p99" "$base_p99")"
}

main() {
    need_wrk
    [[ -x $BIN_DIR/gateway ]] || die "no gateway executable in $BIN_DIR (set PARSE_BIN_DIR)"
    local base=$BASE uncached="http://127.0.0.1:$UNCACHED_PORT$MOUNT"
    [[ $(http_status "$base/health") == 200 ]] || die "no gateway answers on port $PORT: run deploy/stack up first"
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    WORK_DIR=$(mktemp -d /tmp/bench-auth.XXXXXX)

    local username="bench_$RANDOM$RANDOM" password="bench-$RANDOM-$RANDOM" token
    token=$(curl -s -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        -d "{\"username\":\"$username\",\"password\":\"$password\"}" "$base/users" |
        sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p')
    [[ -n $token ]] || die "signup failed"

    say "starting a gateway without session cache on port $UNCACHED_PORT"
    env PORT="$UNCACHED_PORT" PARSE_SESSION_CACHE_TTL_MS=0 PARSE_AMQP_URL="$AMQP_URL" PARSE_LOG_LEVEL=warning \
        PARSE_SERVER_APPLICATION_ID="$APP_ID" PARSE_SERVER_MOUNT_PATH="$MOUNT" "$BIN_DIR/gateway" \
        >"$WORK_DIR/gateway.log" 2>&1 &
    UNCACHED_PID=$!
    for _ in $(seq 100); do
        [[ $(http_status "$uncached/health/ready") == 200 ]] && break
        sleep 0.2
    done
    [[ $(http_status "$uncached/health/ready") == 200 ]] || die "the uncached gateway did not become ready"

    cat >"$WORK_DIR/login.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"username":"$username","password":"$password"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Parse-Application-Id"] = "$APP_ID"
LUA
    local app=(-H "X-Parse-Application-Id: $APP_ID") session=(-H "X-Parse-Session-Token: $token")
    [[ $(http_status "${app[@]}" "${session[@]}" "$uncached/users/me") == 200 ]] || die "/users/me does not answer 200"

    measure health "$base/health"
    measure cached "$base/users/me" "${app[@]}" "${session[@]}"
    measure uncached "$uncached/users/me" "${app[@]}" "${session[@]}"
    measure login "$base/login" -s "$WORK_DIR/login.lua"

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, all on loopback, $(nproc) cores."
    echo "Gateway binaries: $BIN_DIR. Load average before the run: $LOAD_BEFORE"
    echo
    printf '%-36s %10s %9s %9s   %8s %8s %8s\n' "target" "req/s" "p50 ms" "p99 ms" "req/s" "p50" "p99"
    printf '%-36s %10s %9s %9s   %26s\n' "" "" "" "" "(ratio to /health)"
    print_row "gateway $MOUNT/health (baseline)" "${RESULTS[health]}"
    print_row "$MOUNT/users/me, session cached" "${RESULTS[cached]}"
    print_row "$MOUNT/users/me, no session cache" "${RESULTS[uncached]}"
    print_row "POST $MOUNT/login (bcrypt cost 10)" "${RESULTS[login]}"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
