#!/usr/bin/env bash
# What metrics cost a get-by-id, measured on two stacks of the same build side by side: one with metrics on, one
# with PARSE_METRICS=0, both under the same wrk load at the same moment, so whatever else the shared machine does
# during a round weighs on both alike. The settings swap stacks every round (gateway and posts restarted on both),
# so neither stack's own place (started first, its ports, its data files) is counted as the cost.
# Prints each round's req/s and gateway+posts CPU per request for each setting, and the medians of the rounds'
# paired differences. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-8}
WARMUP=${BENCH_WARMUP:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
ROUNDS=${BENCH_ROUNDS:-6}
OBJECTS=${BENCH_OBJECTS:-10000}
# Two prefixes, one per stack: HTTP on <prefix>37, PostgreSQL <prefix>432, RabbitMQ <prefix>672 and up. Below
# Linux's ephemeral range (32768 and up), where an outgoing connection can hold a port a listener wants.
read -r -a PREFIXES <<<"${BENCH_PORT_PREFIXES:-21 22}"
readonly DURATION WARMUP CONNECTIONS ROUNDS OBJECTS PREFIXES
readonly CLASS=BenchObject

WORK_DIR=$(mktemp -d /tmp/bench-metrics-cost.XXXXXX)

stack_dir() { echo "$REPO_ROOT/.stack/side-$1"; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Runs a command with the environment of stack $1 (one of PREFIXES).
on_stack() {
    local p=$1
    shift
    env PARSE_STACK_DIR="$(stack_dir "$p")" PORT="${p}37" PARSE_LIVE_QUERY_PORT="${p}38" PARSE_METRICS_PORT_BASE="${p}50" \
        PARSE_PG_PORT="${p}432" PARSE_AMQP_PORT="${p}672" PARSE_AMQP_MANAGEMENT_PORT="${p}673" \
        PARSE_AMQP_DIST_PORT="${p}674" PARSE_EPMD_PORT="${p}369" "$@"
}

cleanup() {
    local status=$? p
    trap - EXIT INT TERM
    for p in "${PREFIXES[@]}"; do on_stack "$p" "$STACK" down >/dev/null 2>&1 || true; rm -rf "$(stack_dir "$p")"; done
    rm -rf "$WORK_DIR"
    exit "$status"
}

wait_ready() {
    local url="http://127.0.0.1:${1}37$MOUNT/health/ready" tries=0
    until [[ $(http_status "$url") == 200 ]]; do
        ((++tries < 150)) || die "stack $1 is not ready"
        sleep 0.2
    done
}

# Stack $1 with $2 objects b1..b(N-1) in the class: the first through the API (it makes the class), the rest in SQL.
start_and_fill() {
    local p=$1
    say "stack $p: starting"
    rm -rf "$(stack_dir "$p")"
    on_stack "$p" "$STACK" up >"$WORK_DIR/up-$p.log" 2>&1 || { tail -5 "$WORK_DIR/up-$p.log" >&2; die "stack $p did not start"; }
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        -d '{"name":"seed","votes":0}' "http://127.0.0.1:${p}37$MOUNT/classes/$CLASS" >/dev/null
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${p}432" -U postgres -d parse_posts -c "
        INSERT INTO classes.\"$CLASS\" (\"objectId\", \"createdAt\", \"updatedAt\", name, votes)
        SELECT 'b' || i, now(), now(), 'cat ' || i, floor(random() * 1000000) FROM generate_series(1, $OBJECTS - 1) AS i;
        ANALYZE classes.\"$CLASS\";"
}

# Restarts gateway and posts of stack $1 with PARSE_METRICS=$2.
restart_with() {
    local p=$1 setting=$2 name
    for name in gateway posts; do on_stack "$p" "$STACK" stop-service "$name" >/dev/null 2>&1; done
    for name in posts gateway; do on_stack "$p" env PARSE_METRICS="$setting" "$STACK" start-service "$name" >/dev/null 2>&1; done
    wait_ready "$p"
}

# utime+stime ticks of gateway and posts of stack $1, summed.
cpu_ticks() {
    local dir name pid sum=0
    dir=$(stack_dir "$1")
    for name in gateway posts; do
        read -r pid <"$dir/run/$name.pid"
        sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
    done
    echo "$sum"
}

load_both() {
    local seconds=$1 p
    for p in "${PREFIXES[@]}"; do
        wrk -t1 -c"$CONNECTIONS" -d"${seconds}s" -H "X-Parse-Application-Id: $APP_ID" -s "$WORK_DIR/get.lua" \
            "http://127.0.0.1:${p}37" >"$WORK_DIR/wrk-$p.txt" &
    done
    wait
}

requests_of() {
    grep -q 'Non-2xx' "$WORK_DIR/wrk-$1.txt" && die "stack $1 answered errors: $(cat "$WORK_DIR/wrk-$1.txt")"
    awk '/requests in/ { print $1 }' "$WORK_DIR/wrk-$1.txt"
}

median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

main() {
    need_wrk
    local p
    for p in "${PREFIXES[@]}"; do
        ! port_in_use "${p}37" && ! port_in_use "${p}432" || die "ports of prefix $p are in use; set BENCH_PORT_PREFIXES"
    done
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cat >"$WORK_DIR/get.lua" <<LUA
math.randomseed(os.time())
request = function() return wrk.format("GET", "$MOUNT/classes/$CLASS/b" .. math.random(1, $OBJECTS - 1)) end
LUA
    for p in "${PREFIXES[@]}"; do start_and_fill "$p"; done

    local hz round on_stack_p off_stack_p on_before off_before on_n off_n on_cpu off_cpu
    hz=$(getconf CLK_TCK)
    : >"$WORK_DIR/rounds"
    for ((round = 1; round <= ROUNDS; round++)); do
        if ((round % 2)); then on_stack_p=${PREFIXES[0]} off_stack_p=${PREFIXES[1]}; else on_stack_p=${PREFIXES[1]} off_stack_p=${PREFIXES[0]}; fi
        restart_with "$on_stack_p" 1
        restart_with "$off_stack_p" 0
        load_both "$WARMUP"
        on_before=$(cpu_ticks "$on_stack_p") off_before=$(cpu_ticks "$off_stack_p")
        load_both "$DURATION"
        on_n=$(requests_of "$on_stack_p") off_n=$(requests_of "$off_stack_p")
        on_cpu=$(awk -v a="$on_before" -v b="$(cpu_ticks "$on_stack_p")" -v n="$on_n" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) * 1e6 / hz / n }')
        off_cpu=$(awk -v a="$off_before" -v b="$(cpu_ticks "$off_stack_p")" -v n="$off_n" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) * 1e6 / hz / n }')
        echo "$round $on_stack_p $on_n $on_cpu $off_stack_p $off_n $off_cpu" >>"$WORK_DIR/rounds"
        say "round $round: on (stack $on_stack_p) $on_n requests, $on_cpu us; off (stack $off_stack_p) $off_n requests, $off_cpu us"
    done

    echo
    echo "get-by-id at $OBJECTS objects, two stacks at once, wrk -t1 -c$CONNECTIONS each, ${DURATION} s per round after ${WARMUP} s;"
    echo "$(nproc) cores shared by both stacks and both load generators. Load before: $LOAD_BEFORE"
    echo
    printf '%-6s %16s %16s %22s %22s\n' round "on req/s" "off req/s" "on CPU us/req (g+p)" "off CPU us/req (g+p)"
    awk -v d="$DURATION" '{ printf "%-6s %16.0f %16.0f %22s %22s\n", $1, $3 / d, $6 / d, $4, $7 }' "$WORK_DIR/rounds"
    echo
    echo "metrics on against off, medians of the rounds' paired differences:" \
        "req/s $(awk '{ print ($3 / $6 - 1) * 100 }' "$WORK_DIR/rounds" | median)%," \
        "gateway+posts CPU per request $(awk '{ print ($4 / $7 - 1) * 100 }' "$WORK_DIR/rounds" | median)%"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
