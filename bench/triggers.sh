#!/usr/bin/env bash
# Measures what Cloud Code triggers cost a create, in one run:
#   1. POST <mount>/classes/BenchTrigNone: a class without triggers (the baseline),
#   2. POST <mount>/classes/BenchTrigHook: a class with a beforeSave webhook (a local HTTP server that answers
#      {"success":{}}, so the trigger changes nothing and the figure is the cost of the round trip),
#   3. with BENCH_BASELINE_BIN_DIR (the executables of a build of main): POST <mount>/classes/BenchTrigNone again,
#      with the gateway and posts of that build started in place of this one's, then this one's again, so a class
#      without triggers is compared before and after the trigger hook points on the same stack and machine.
# Prints req/s, latencies and the ratios. See bench/triggers.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
WEBHOOK_PORT=${BENCH_WEBHOOK_PORT:-28095}
BASELINE_BIN_DIR=${BENCH_BASELINE_BIN_DIR:-}
MASTER_KEY=${PARSE_SERVER_MASTER_KEY:-myMasterKey}
BIN_DIR=${PARSE_BIN_DIR:-$REPO_ROOT/.build/release}
readonly DURATION WARMUP CONNECTIONS WEBHOOK_PORT BASELINE_BIN_DIR MASTER_KEY BIN_DIR

WORK_DIR=$(mktemp -d /tmp/bench-triggers.XXXXXX)
WEBHOOK_PID=

hooks() {
    curl -s -X "$1" -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" \
        -H 'Content-Type: application/json' --data "$3" "$BASE/hooks/triggers$2" >/dev/null
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    hooks PUT /BenchTrigHook/beforeSave '{"__op":"Delete"}' || true
    [[ -z $WEBHOOK_PID ]] || kill "$WEBHOOK_PID" 2>/dev/null || true
    if [[ -n $BASELINE_BIN_DIR ]]; then use_build "$BIN_DIR" >/dev/null 2>&1 || true; fi
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

declare -A RESULTS=() CPU=()

measure_wrk() {
    local name=$1 url=$2 output before
    local args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID" -s "$WORK_DIR/create.lua")
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    before=$(stack_cpu_ticks)
    output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$url")
    CPU[$name]=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$(awk '/ requests in / { print $1 }' <<<"$output")")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

start_webhook() {
    cat >"$WORK_DIR/webhook.py" <<'PY'
import http.server, sys
marker = sys.argv[2]
class Hook(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes: without this, Nagle's algorithm holds the body for the client's ACK.
    disable_nagle_algorithm = True
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if marker:
            open(marker, "w").close()
        body = b'{"success":{}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hook).serve_forever()
PY
    python3 "$WORK_DIR/webhook.py" "$WEBHOOK_PORT" "$WORK_DIR/called" &
    WEBHOOK_PID=$!
    until curl -s -o /dev/null "http://127.0.0.1:$WEBHOOK_PORT/"; do
        kill -0 "$WEBHOOK_PID" 2>/dev/null || die "the webhook server did not start"
        sleep 0.1
    done
}

# Creates on BenchTrigHook until one reaches the webhook (it leaves a file at its first call): posts learns of the
# registration a moment after it is answered.
wait_for_trigger() {
    local deadline=$((SECONDS + 15))
    hooks POST "" "{\"className\":\"BenchTrigHook\",\"triggerName\":\"beforeSave\",\"url\":\"http://127.0.0.1:$WEBHOOK_PORT/\"}"
    until [[ -e $WORK_DIR/called ]]; do
        ((SECONDS < deadline)) || die "posts never called the beforeSave webhook"
        api POST /classes/BenchTrigHook '{"name":"probe"}'
        sleep 0.1
    done
}

api() {
    curl -s -o /dev/null -X "$1" -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        --data "$3" "$BASE$2"
}

# Restarts the gateway and posts from the executables in $1.
use_build() {
    local name
    for name in posts gateway; do PARSE_BIN_DIR=$1 "$STACK" start-service "$name" >/dev/null; done
}


main() {
    need_wrk
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    cat >"$WORK_DIR/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"name":"cat","votes":1}'
wrk.headers["Content-Type"] = "application/json"
LUA
    start_webhook
    wait_for_trigger

    measure_wrk none "$BASE/classes/BenchTrigNone"
    measure_wrk webhook "$BASE/classes/BenchTrigHook"
    if [[ -n $BASELINE_BIN_DIR ]]; then
        [[ -x $BASELINE_BIN_DIR/gateway && -x $BASELINE_BIN_DIR/posts ]] || die "no gateway and posts in $BASELINE_BIN_DIR"
        say "gateway and posts from $BASELINE_BIN_DIR"
        use_build "$BASELINE_BIN_DIR"
        measure_wrk none-main "$BASE/classes/BenchTrigNone"
        say "gateway and posts from $BIN_DIR again"
        use_build "$BIN_DIR"
        measure_wrk none-again "$BASE/classes/BenchTrigNone"
    fi

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback; executables in $BIN_DIR."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ, PostgreSQL and the webhook. Load before: $LOAD_BEFORE"
    echo
    printf '%-52s %10s %9s %9s   %s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
    ratio_row "POST /classes/BenchTrigNone (no trigger)" none none
    ratio_row "POST /classes/BenchTrigHook (beforeSave webhook)" webhook none
    if [[ -n $BASELINE_BIN_DIR ]]; then
        ratio_row "POST /classes/BenchTrigNone, gateway+posts of main" none-main none
        ratio_row "POST /classes/BenchTrigNone, this build again" none-again none-main
    fi
    echo
    echo "CPU per request, microseconds by process (the load generator's and the webhook's own not counted):"
    printf '  %-50s %s\n' "no trigger" "${CPU[none]}" "beforeSave webhook" "${CPU[webhook]}"
    if [[ -n $BASELINE_BIN_DIR ]]; then
        printf '  %-50s %s\n' "no trigger, gateway+posts of main" "${CPU[none-main]}" "no trigger, this build again" "${CPU[none-again]}"
    fi
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
