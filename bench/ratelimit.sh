#!/usr/bin/env bash
# What a rate limit costs per request: GET <mount>/classes/RateBench (a rule covers it, with a count never
# reached, so every request is counted in PostgreSQL) beside GET <mount>/classes/FreeBench (no rule covers it),
# alternating in one run on one gateway restarted with PARSE_SERVER_RATE_LIMIT. Needs a stack started by
# deploy/stack (PARSE_STACK_DIR).
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
readonly RULES='[{"requestPath":"/classes/RateBench","requestTimeWindow":60000,"requestCount":1000000000,"includeInternalRequests":true}]'
trap '"$STACK" stop-service gateway >/dev/null 2>&1; "$STACK" start-service gateway >/dev/null 2>&1 || true' EXIT

[[ $(http_status "$BASE/health") == 200 ]] || die "no gateway answers on port $PORT (deploy/stack up first)"
"$STACK" stop-service gateway >/dev/null
PARSE_SERVER_RATE_LIMIT=$RULES "$STACK" start-service gateway >/dev/null
until [[ $(http_status "$BASE/health") == 200 ]]; do sleep 0.2; done
declare -a LINES=()
for ((round = 1; round <= ROUNDS; round++)); do
    for target in FreeBench RateBench; do
        args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID")
        say "$target, round $round: warm-up ${WARMUP} s, then ${DURATION} s"
        wrk "${args[@]}" -d"${WARMUP}s" "$BASE/classes/$target" >/dev/null
        before=$(stack_cpu_ticks)
        output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$BASE/classes/$target")
        cpu=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$(awk '/ requests in / { print $1 }' <<<"$output")")
        LINES+=("$(printf '%-26s %s   cpu us/req: %s' "$target round $round" "$(wrk_figures "$target" "$output" "")" "$cpu")")
    done
done
echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per round after ${WARMUP} s, $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %s\n' "GET /classes/<C> (empty)" "req/s p50_ms p99_ms"
printf '%s\n' "${LINES[@]}"
