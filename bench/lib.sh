# shellcheck shell=bash
# Settings and helpers shared by the benchmark scripts; sourced, not run, after the script sets REPO_ROOT.
# Each script adds the settings of its own (duration, connections, sizes).

PORT=${PORT:-1337}
MOUNT=${PARSE_SERVER_MOUNT_PATH:-/parse}
APP_ID=${PARSE_SERVER_APPLICATION_ID:-myAppId}
PG_PORT=${PARSE_PG_PORT:-15432}
PG_BIN=${PARSE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
export PORT
# shellcheck disable=SC2034 # APP_ID is read by the scripts that source this file
readonly PORT MOUNT APP_ID PG_PORT PG_BIN
readonly STACK="$REPO_ROOT/deploy/stack"
# The gateway's URL with the mount.
readonly BASE="http://127.0.0.1:$PORT$MOUNT"

# The stack's state folder (pid files), as deploy/stack reads it.
STACK_DIR=${PARSE_STACK_DIR:-$REPO_ROOT/.stack}
readonly STACK_DIR
# Missing for a part the stack does not run (the second and third RabbitMQ nodes of a single-node stack).
pid_of() { local pid= file="$STACK_DIR/run/$1.pid"; [[ -r $file ]] || return 1; read -r pid <"$file"; [[ -n $pid ]] && echo "$pid"; }

psql_db() { local db=$1; shift; "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$db" "$@"; }

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

# wrk, installed from Debian's package when it is missing (as root, or through sudo).
need_wrk() {
    command -v wrk >/dev/null && return 0
    command -v apt-get >/dev/null || die "wrk is missing (install it from your system's packages)"
    local root=()
    ((EUID == 0)) || { command -v sudo >/dev/null && root=(sudo); } || die "wrk is missing (apt-get install wrk as root)"
    say "installing wrk from Debian's packages"
    "${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null 2>&1 || {
        "${root[@]}" apt-get update -q >/dev/null 2>&1
        "${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null
    }
    command -v wrk >/dev/null || die "wrk could not be installed"
}

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

# "req/s p50_ms p99_ms" from wrk's --latency output; errors wrk counted are reported unless $3 is set
# (a target where refusals are expected).
wrk_figures() {
    local name=$1 output=$2 quiet=${3:-} rps p50 p99 bad
    rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$output")
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$output")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$output")")
    bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF } /Socket errors:/ { print }' <<<"$output")
    if [[ -n $bad && -z $quiet ]]; then say "$name: errors during the run: $bad"; fi
    echo "$rps $p50 $p99"
}

# "1.23x": a / b, or "-" without a baseline.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# One line of a result table: RESULTS[NAME]'s req/s, p50 and p99 and its ratio to RESULTS[BASELINE]'s req/s.
# Usage: ratio_row LABEL NAME BASELINE [LABEL_WIDTH]
ratio_row() {
    local label=$1 name=$2 baseline=$3 width=${4:-52} rps p50 p99 base
    read -r rps p50 p99 <<<"${RESULTS[$name]}"
    read -r base _ _ <<<"${RESULTS[$baseline]}"
    printf "%-${width}s %10.0f %9s %9s   %8s of %s\n" "$label" "$rps" "$p50" "$p99" "$(ratio "$rps" "$base")" "$baseline"
}

# CPU used so far by each process of the stack, in clock ticks, as "name=ticks" words: the services, RabbitMQ
# and PostgreSQL (the postmaster, its live backends and, through its children's times, those that have exited).
stack_cpu_ticks() {
    local name pid postmaster ticks child
    for name in gateway posts auth votes files cloud cloud-example-worker rabbitmq-beam rabbitmq2-beam rabbitmq3-beam; do
        pid=$(pid_of "$name") || continue
        printf '%s=%s ' "${name%-beam}" "$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    done
    read -r postmaster <"$STACK_DIR/postgres/data/postmaster.pid" 2>/dev/null || { echo; return 0; }
    ticks=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster/stat" 2>/dev/null || echo 0)
    for child in $(pgrep -P "$postmaster"); do
        ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || echo 0)))
    done
    echo "postgres=$ticks"
}

# "gateway=N posts=N": the thread switches (voluntary and not) of the gateway's and posts' threads so far, from
# /proc/<pid>/task/*/status. A thread that ends takes its count with it; these processes keep theirs for their life.
stack_switches() {
    local name pid
    for name in gateway posts; do
        pid=$(pid_of "$name") || continue
        printf '%s=%s ' "$name" "$(cat "/proc/$pid"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }')"
    done
    echo
}

# "gateway 3.7, posts 4.8": thread switches per request of each process between two stack_switches snapshots ($1,
# $2), over $3 requests: each is a hand-off between threads (a connection's thread, the task pool), whose price
# the CPU lines include but do not show.
switches_per_request() {
    awk -v before="$1" -v after="$2" -v count="$3" 'BEGIN {
        n = split(before, words, " "); for (i = 1; i <= n; i++) { split(words[i], kv, "="); start[kv[1]] = kv[2] }
        n = split(after, words, " "); out = ""
        for (i = 1; i <= n; i++) {
            split(words[i], kv, "=")
            if (count > 0) out = out (out == "" ? "" : ", ") sprintf("%s %.1f", kv[1], (kv[2] - start[kv[1]]) / count)
        }
        print (out == "" ? "-" : out) }'
}

# Every run starts from vacuumed tables, so that it does not pay for the dead rows the run before it left (a
# vacuum of pgbench's accounts, started by autovacuum, used to land in the votes spread run), and right after a
# checkpoint, so that none starts during it: the WAL of the earlier runs (pgbench's initialisation, a vote's 2.6 KB)
# used to bring a checkpoint (one per ~530 MB at the default max_wal_size of 1 GB), with its full-page writes,
# into a later run; in bench/objects.sh it gave creates a p99 of 200-300 ms (bench/votes.md, bench/objects.md).
settle_database() {
    "$PG_BIN/vacuumdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres --all --quiet
    psql_db postgres -c "CHECKPOINT" >/dev/null
}

# "gateway 63, posts 120, ..." : microseconds of CPU per request of each process that used any, between two
# stack_cpu_ticks snapshots ($1, $2), over $3 requests.
cpu_per_request() {
    awk -v before="$1" -v after="$2" -v count="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        n = split(before, words, " "); for (i = 1; i <= n; i++) { split(words[i], kv, "="); start[kv[1]] = kv[2] }
        n = split(after, words, " "); out = ""
        for (i = 1; i <= n; i++) {
            split(words[i], kv, "="); used = (kv[2] - start[kv[1]]) * 1e6 / hz / count
            if (count > 0 && used >= 0.5) out = out (out == "" ? "" : ", ") sprintf("%s %.0f", kv[1], used)
        }
        print (out == "" ? "-" : out) }'
}

# Restarts the named processes of the stack with PARSE_METRICS=$1 (1 or 0), to measure what metrics cost in
# the same run; waits until the gateway is ready again.
restart_with_metrics() {
    local setting=$1 name
    shift
    for name in "$@"; do "$STACK" stop-service "$name" >/dev/null; done
    for name in "$@"; do PARSE_METRICS=$setting "$STACK" start-service "$name" >/dev/null; done
    local tries=0
    until [[ $(http_status "$BASE/health/ready") == 200 ]]; do
        ((++tries < 100)) || die "the stack is not ready after restarting $*"
        sleep 0.2
    done
}

# Creates COUNT objects of CLASS with the JSON body BODY; prints their ids, comma-separated.
create_objects() {
    local class=$1 count=$2 body=$3 ids=() id i
    for ((i = 0; i < count; i++)); do
        id=$(curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
            --data "$body" "$BASE/classes/$class" | sed 's/.*"objectId":"\([^"]*\)".*/\1/')
        ids+=("$id")
    done
    (IFS=,; echo "${ids[*]}")
}

# Starts bench/live.py's broadcast server (the LiveQuery baselines) on PORT, its output in DIR; sets BASELINE_PID.
# Its clients leave without a close frame: the tracebacks that makes go to DIR/baseline.err, not to the figures.
start_broadcast_server() {
    local port=$1 dir=$2
    python3 "$REPO_ROOT/bench/live.py" broadcast-server "$port" >"$dir/baseline.out" 2>"$dir/baseline.err" &
    BASELINE_PID=$!
    until [[ -s $dir/baseline.out ]]; do
        kill -0 "$BASELINE_PID" 2>/dev/null || die "the baseline server stopped"
        sleep 0.2
    done
}

# The end of a run's cleanup: removes WORK_DIR, stops the stack the run started (ensure_stack), exits with STATUS.
end_run() {
    local status=$1
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

# wrk on $2 (a Lua script in $3 may shape the requests) after a warm-up, into RESULTS[$1] (wrk_figures) and CPU[$1]
# (cpu_per_request); $4 set: refusals are expected. The caller declares RESULTS and CPU and sets DURATION, WARMUP
# and CONNECTIONS.
measure_wrk() {
    local name=$1 url=$2 script=${3:-} refusals=${4:-} output
    local args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID")
    if [[ -n $script ]]; then args+=(-s "$script"); fi
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    local before switches requests
    before=$(stack_cpu_ticks)
    switches=$(stack_switches)
    output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$url")
    requests=$(awk '/ requests in / { print $1 }' <<<"$output")
    CPU[$name]=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$requests")
    # Only for a caller that keeps them (declares SWITCHES).
    if declare -p SWITCHES >/dev/null 2>&1; then
        SWITCHES[$name]=$(switches_per_request "$switches" "$(stack_switches)" "$requests")
    fi
    RESULTS[$name]=$(wrk_figures "$name" "$output" "$refusals")
}

# measure_wrk on a settled database (settle_database), as each pgbench run of the scripts is.
measure_wrk_settled() {
    settle_database
    measure_wrk "$@"
}
