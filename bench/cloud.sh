#!/usr/bin/env bash
# Measures Cloud Code function calls beside a plain read, in one run:
#   1. GET <mount>/classes/BenchCloud/<id> (the baseline: gateway, RabbitMQ, posts, PostgreSQL),
#   2. POST <mount>/functions/echo served by the example Swift worker (gateway, cloud, the worker's queue),
#   3. POST <mount>/functions/<hook> served by a webhook: a small Python receiver on loopback started here,
#   4. POST <mount>/classes/CloudTriggerCat (the example worker's beforeSave) beside POST <mount>/classes/BenchPlain,
#   5. the get-by-id again, so the figures have a baseline of their own moment.
# Needs the example worker (a stack this script starts has it; for your own: PARSE_CLOUD_EXAMPLE_WORKER=1 deploy/stack up).
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
MASTER_KEY=${PARSE_SERVER_MASTER_KEY:-myMasterKey}
HOOK_PORT=${BENCH_HOOK_PORT:-18999}
readonly DURATION WARMUP CONNECTIONS MASTER_KEY HOOK_PORT
readonly HOOK_NAME=benchEchoHook

WORK_DIR=$(mktemp -d /tmp/bench-cloud.XXXXXX)
RECEIVER_PID=""

api() {
    local method=$1 path=$2 body=${3:-}
    curl -sf -X "$method" -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" \
        -H 'Content-Type: application/json' ${body:+--data "$body"} "$BASE$path"
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    api PUT "/hooks/functions/$HOOK_NAME" '{"__op":"Delete"}' >/dev/null 2>&1 || true
    if [[ -n $RECEIVER_PID ]]; then kill "$RECEIVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

# The webhook: answers every POST with {"success": <the request's params>}, keep-alive, one thread per connection.
start_receiver() {
    cat >"$WORK_DIR/receiver.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Head and body leave in two writes: with Nagle's algorithm the second waits for the client's delayed ACK.
    disable_nagle_algorithm = True
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        answer = json.dumps({"success": body.get("params", {})}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
PY
    python3 "$WORK_DIR/receiver.py" "$HOOK_PORT" &
    RECEIVER_PID=$!
    local tries=0
    until curl -s -o /dev/null -X POST -d '{}' "http://127.0.0.1:$HOOK_PORT/"; do
        tries=$((tries + 1)); ((tries < 50)) || die "the webhook receiver did not start"; sleep 0.1
    done
    api PUT "/hooks/functions/$HOOK_NAME" '{"__op":"Delete"}' >/dev/null 2>&1 || true
    api POST /hooks/functions "{\"functionName\":\"$HOOK_NAME\",\"url\":\"http://127.0.0.1:$HOOK_PORT/echo\"}" >/dev/null
}

declare -A RESULTS=() CPU=()

measure_wrk() {
    local name=$1 url=$2 script=${3:-} output before
    local args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID")
    if [[ -n $script ]]; then args+=(-s "$script"); fi
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    before=$(stack_cpu_ticks)
    output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$url")
    CPU[$name]=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$(awk '/ requests in / { print $1 }' <<<"$output")")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

post_script() {
    cat >"$WORK_DIR/$1.lua" <<LUA
wrk.method = "POST"
wrk.body = '$2'
wrk.headers["Content-Type"] = "application/json"
LUA
    echo "$WORK_DIR/$1.lua"
}


main() {
    need_wrk
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [[ $(http_status "$BASE/health") != 200 ]]; then export PARSE_CLOUD_EXAMPLE_WORKER=1; fi
    ensure_stack
    api POST /functions/echo '{"a":1}' | grep -q '"a":1' || die "the example worker does not answer echo (PARSE_CLOUD_EXAMPLE_WORKER=1)"
    local id triggered
    id=$(api POST /classes/BenchCloud '{"name":"cat","votes":1}' | sed -E 's/.*"objectId":"([^"]+)".*/\1/')
    start_receiver
    triggered=$(api POST /classes/CloudTriggerCat '{"name":"probe"}' | grep -c '"checked"' || true)

    measure_wrk get "$BASE/classes/BenchCloud/$id"
    measure_wrk echo-worker "$BASE/functions/echo" "$(post_script echo '{"a":1,"b":"two"}')"
    measure_wrk echo-webhook "$BASE/functions/$HOOK_NAME" "$(post_script hook '{"a":1,"b":"two"}')"
    measure_wrk write-plain "$BASE/classes/BenchPlain" "$(post_script plain '{"name":"cat"}')"
    measure_wrk write-trigger "$BASE/classes/CloudTriggerCat" "$(post_script trigger '{"name":"cat"}')"
    measure_wrk get-2 "$BASE/classes/BenchCloud/$id"

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ, PostgreSQL, the worker and the receiver. Load before: $LOAD_BEFORE"
    echo
    printf '%-52s %10s %9s %9s   %s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
    ratio_row "GET /classes/BenchCloud/<id> (baseline)" get get
    ratio_row "POST /functions/echo, Swift worker" echo-worker get
    ratio_row "POST /functions/$HOOK_NAME, webhook (Python)" echo-webhook get
    ratio_row "GET /classes/BenchCloud/<id> again" get-2 get
    ratio_row "POST /classes/BenchPlain (no trigger)" write-plain write-plain
    ratio_row "POST /classes/CloudTriggerCat (beforeSave)" write-trigger write-plain
    if [[ $triggered == 0 ]]; then
        echo "note: posts did not run the beforeSave trigger (no 'checked' in the answer): both writes are plain ones."
    fi
    echo
    echo "CPU per request, microseconds by process (the load generator's and the webhook receiver's not counted):"
    printf '  %-42s %s\n' "get-by-id" "${CPU[get]}" "echo, Swift worker" "${CPU[echo-worker]}" \
        "echo, webhook" "${CPU[echo-webhook]}" "write, no trigger" "${CPU[write-plain]}" \
        "write, beforeSave" "${CPU[write-trigger]}"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
