#!/usr/bin/env bash
# Measures the HTTP floor of the gateway against nginx on the same machine, in one run:
#   1. GET <mount>/health on the gateway (the gateway alone),
#   2. nginx answering the same JSON body at the same path (the baseline),
#   3. GET <mount>/health/ready on the gateway (a ping round trip to every service over AMQP),
#   4. GET /metrics on the gateway (the text of every metric, and the command queues' depth from RabbitMQ),
#   5. GET <mount>/health again with the gateway restarted with PARSE_METRICS=0, then on again.
# Prints req/s, p50 and p99 latency of each and their ratio to nginx. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
NGINX_PORT=${BENCH_NGINX_PORT:-28080}
NGINX_WORKERS=${BENCH_NGINX_WORKERS:-1}
readonly DURATION WARMUP CONNECTIONS NGINX_PORT NGINX_WORKERS


install_missing_tools() {
    local missing=()
    command -v wrk >/dev/null || missing+=(wrk)
    command -v nginx >/dev/null || missing+=(nginx-light)
    command -v curl >/dev/null || missing+=(curl)
    ((${#missing[@]} > 0)) || return 0
    local sudo=()
    if ((EUID != 0)); then sudo=(sudo); fi
    say "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

# ---------------------------------------------------------------------------------------------
# What this run started, stopped at exit whatever happens.

NGINX_DIR=""
STARTED_STACK=0

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n $NGINX_DIR ]]; then stop_nginx; fi
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}


start_nginx() {
    [[ $(http_status "http://127.0.0.1:$NGINX_PORT/") == 000 ]] ||
        die "port $NGINX_PORT is in use; set BENCH_NGINX_PORT"
    NGINX_DIR=$(mktemp -d /tmp/bench-nginx.XXXXXX)
    mkdir -p "$NGINX_DIR/tmp"
    # Same body, same path, same content type as the gateway's /health; no access log, like the gateway.
    cat >"$NGINX_DIR/nginx.conf" <<EOF
worker_processes $NGINX_WORKERS;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $NGINX_DIR/tmp/body;
    proxy_temp_path $NGINX_DIR/tmp/proxy;
    fastcgi_temp_path $NGINX_DIR/tmp/fastcgi;
    uwsgi_temp_path $NGINX_DIR/tmp/uwsgi;
    scgi_temp_path $NGINX_DIR/tmp/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location = $MOUNT/health {
            default_type "application/json; charset=utf-8";
            return 200 '{"status":"ok"}';
        }
    }
}
EOF
    nginx -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/error.log" ||
        die "nginx did not start (see $NGINX_DIR/error.log)"
    local tries=0
    until [[ $(http_status "http://127.0.0.1:$NGINX_PORT$MOUNT/health") == 200 ]]; do
        ((++tries < 50)) || die "nginx does not answer on port $NGINX_PORT"
        sleep 0.1
    done
}

stop_nginx() {
    local pid
    if [[ -r $NGINX_DIR/nginx.pid ]] && read -r pid <"$NGINX_DIR/nginx.pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    rm -rf "$NGINX_DIR"
    NGINX_DIR=""
}

# ---------------------------------------------------------------------------------------------
# Measuring

# wrk prints latencies as 812.00us, 1.23ms or 1.02s; this turns them into milliseconds.

# Runs wrk on $2 after a warm-up; records "req/s p50_ms p99_ms" in RESULTS[$1] and reports errors.
declare -A RESULTS=()
measure() {
    local name=$1 url=$2 output
    [[ $(http_status "$url") == 200 ]] || die "$url does not answer 200"
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "$url" >/dev/null
    output=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$url")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

print_row() {
    local label=$1 values=$2 rps p50 p99 base_rps base_p50 base_p99
    read -r rps p50 p99 <<<"$values"
    read -r base_rps base_p50 base_p99 <<<"${RESULTS[nginx]}"
    printf '%-34s %10.0f %9.3f %9.3f   %8s %8s %8s\n' "$label" "$rps" "$p50" "$p99" \
        "$(ratio "$rps" "$base_rps")" "$(ratio "$p50" "$base_p50")" "$(ratio "$p99" "$base_p99")"
}

main() {
    install_missing_tools
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    start_nginx

    measure gateway "http://127.0.0.1:$PORT$MOUNT/health"
    measure nginx "http://127.0.0.1:$NGINX_PORT$MOUNT/health"
    measure ready "http://127.0.0.1:$PORT$MOUNT/health/ready"
    measure metrics "http://127.0.0.1:$PORT/metrics"
    restart_with_metrics 0 gateway
    measure gateway-metrics-off "http://127.0.0.1:$PORT$MOUNT/health"
    restart_with_metrics 1 gateway
    measure gateway-metrics-on "http://127.0.0.1:$PORT$MOUNT/health"

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, all on loopback."
    echo "wrk uses one thread because it shares this machine's $(nproc) cores with the servers it measures;"
    echo "nginx runs $NGINX_WORKERS worker(s). Load average before the run: $LOAD_BEFORE"
    echo
    printf '%-34s %10s %9s %9s   %8s %8s %8s\n' "target" "req/s" "p50 ms" "p99 ms" "req/s" "p50" "p99"
    printf '%-34s %10s %9s %9s   %26s\n' "" "" "" "" "(ratio to nginx)"
    print_row "nginx $MOUNT/health (baseline)" "${RESULTS[nginx]}"
    print_row "gateway $MOUNT/health" "${RESULTS[gateway]}"
    print_row "gateway $MOUNT/health/ready" "${RESULTS[ready]}"
    print_row "gateway /metrics" "${RESULTS[metrics]}"
    print_row "gateway $MOUNT/health, metrics off" "${RESULTS[gateway-metrics-off]}"
    print_row "gateway $MOUNT/health, metrics on again" "${RESULTS[gateway-metrics-on]}"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
