#!/usr/bin/env bash
# What idempotent writes cost: POST <mount>/classes/BenchIdempotent, each request with a fresh
# X-Parse-Request-Id (as the Swift SDK sends one), with idempotency on and off (PARSE_SERVER_IDEMPOTENCY; off
# runs the write path as it was before), alternating on/off/on/off in one run on one stack. The gateway is
# restarted with the setting between rounds: it needs a stack started by deploy/stack (PARSE_STACK_DIR).
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"
need_wrk

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
ROUNDS=${BENCH_ROUNDS:-2}
readonly DURATION WARMUP CONNECTIONS ROUNDS
WORK_DIR=$(mktemp -d /tmp/bench-idempotency.XXXXXX)
trap 'rm -rf "$WORK_DIR"; "$STACK" stop-service gateway >/dev/null 2>&1; "$STACK" start-service gateway >/dev/null 2>&1 || true' EXIT

cat >"$WORK_DIR/create.lua" <<'LUA'
math.randomseed(os.time())
local prefix = string.format("%08x-", math.random(0, 0x7fffffff))
local counter = 0
request = function()
    counter = counter + 1
    local headers = {["Content-Type"] = "application/json", ["X-Parse-Request-Id"] = prefix .. counter}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    return wrk.format("POST", nil, headers, '{"name":"cat","votes":1}')
end
LUA

restart_gateway() {
    "$STACK" stop-service gateway >/dev/null
    PARSE_SERVER_IDEMPOTENCY=$1 "$STACK" start-service gateway >/dev/null
    until [[ $(http_status "$BASE/health") == 200 ]]; do sleep 0.2; done
}

[[ $(http_status "$BASE/health") == 200 ]] || die "no gateway answers on port $PORT (deploy/stack up first)"
curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
    --data '{"name":"seed","votes":0}' "$BASE/classes/BenchIdempotent" >/dev/null
declare -a LINES=()
for ((round = 1; round <= ROUNDS; round++)); do
    for mode in true false; do
        restart_gateway "$mode"
        args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID" -s "$WORK_DIR/create.lua")
        say "idempotency $mode, round $round: warm-up ${WARMUP} s, then ${DURATION} s"
        wrk "${args[@]}" -d"${WARMUP}s" "$BASE/classes/BenchIdempotent" >/dev/null
        before=$(stack_cpu_ticks)
        output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$BASE/classes/BenchIdempotent")
        cpu=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$(awk '/ requests in / { print $1 }' <<<"$output")")
        LINES+=("$(printf '%-28s %s   cpu us/req: %s' "idempotency=$mode round $round" "$(wrk_figures create "$output" "")" "$cpu")")
    done
done
echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per round after ${WARMUP} s, $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %s\n' "POST /classes (fresh ids)" "req/s p50_ms p99_ms"
printf '%s\n' "${LINES[@]}"
