#!/usr/bin/env bash
# Measures votes (PUT <mount>/classes/<C>/<id> with {"votes":{"__op":"Increment","amount":1}}) against pgbench on
# the same PostgreSQL, in one run:
#   1. pgbench hot row: UPDATE ... SET n = n + 1 on one row, BENCH_CONNECTIONS clients (the baseline of 3),
#   2. pgbench simple-update (built-in -N, scale 10): the baseline of 4,
#   3. votes on one hot object with BENCH_CONNECTIONS wrk connections,
#   4. votes spread over BENCH_CATS objects.
# Targets: 3 >= 2x 1 with p99 < 50 ms; 4 >= 1x 2. Prints the figures and the ratios. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
CATS=${BENCH_CATS:-10000}
readonly DURATION WARMUP CONNECTIONS CATS

readonly PGBENCH_DB=bench_votes_pgbench
readonly CLASS=BenchVoteCat


api() {
    local method=$1 path=$2 body=${3:-}
    curl -sf -X "$method" -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        ${body:+--data "$body"} "$BASE$path"
}

WORK_DIR=$(mktemp -d /tmp/bench-votes.XXXXXX)

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    psql_db postgres -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}


# RESULTS[name] = "per_second p50_ms p99_ms"; CPU[name] = microseconds of CPU per vote (or per pgbench
# transaction) of each stack process during the measured run (cpu_per_request in lib.sh).
declare -A RESULTS=() CPU=()

# A vote run on a settled database (the script sets each request's path).
measure_votes() {
    measure_wrk_settled "$1" "$BASE/health" "$2"
}

# pgbench with the same number of clients, one thread like wrk; -r for the latency percentiles is not available
# in the summary, so p99 comes from a per-transaction log.
measure_pgbench() {
    local name=$1 output tps p50 p99
    shift
    settle_database
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$CONNECTIONS" -j 1 -T "$WARMUP" "$@" "$PGBENCH_DB" >/dev/null 2>&1
    rm -f "$WORK_DIR"/pgbench_log.*
    local before
    before=$(stack_cpu_ticks)
    output=$(cd "$WORK_DIR" && "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$CONNECTIONS" -j 1 \
        -T "$DURATION" -l "$@" "$PGBENCH_DB" 2>&1)
    CPU[$name]=$(cpu_per_request "$before" "$(stack_cpu_ticks)" \
        "$(awk '/^number of transactions actually processed: / { print $NF }' <<<"$output")")
    tps=$(awk '/^tps = / { print $3 }' <<<"$output")
    read -r p50 p99 < <(cat "$WORK_DIR"/pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", v[int(NR * 0.5) + 1], v[int(NR * 0.99) + 1] }')
    RESULTS[$name]="$tps $p50 $p99"
}

prepare_pgbench() {
    say "pgbench: initialising $PGBENCH_DB (scale 10) and a one-row table"
    psql_db postgres -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null
    psql_db postgres -c "CREATE DATABASE $PGBENCH_DB" >/dev/null
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -i -q -s 10 "$PGBENCH_DB" >/dev/null 2>&1
    psql_db "$PGBENCH_DB" -c "CREATE TABLE hot (id int PRIMARY KEY, n bigint NOT NULL); INSERT INTO hot VALUES (1, 0)"
    echo "UPDATE hot SET n = n + 1 WHERE id = 1;" >"$WORK_DIR/hot.sql"
}

# One hot cat made through the API, and $CATS cats c1..cN added with SQL for the spread run.
prepare_cats() {
    local hot
    hot=$(api POST "/classes/$CLASS" '{"name":"hot","votes":0}' | sed -E 's/.*"objectId":"([^"]+)".*/\1/')
    [[ -n $hot ]] || die "cannot create a cat"
    say "$CLASS: hot cat $hot, adding $CATS cats"
    psql_db parse_posts -c "INSERT INTO classes.\"$CLASS\" (\"objectId\", \"createdAt\", \"updatedAt\", name, votes)
        SELECT 'c' || i, now(), now(), 'cat ' || i, 0 FROM generate_series(1, $CATS) AS i ON CONFLICT DO NOTHING;
        ANALYZE classes.\"$CLASS\";" >/dev/null
    cat >"$WORK_DIR/hot.lua" <<LUA
wrk.method = "PUT"
wrk.path = "$MOUNT/classes/$CLASS/$hot"
wrk.body = '{"votes":{"__op":"Increment","amount":1}}'
wrk.headers["Content-Type"] = "application/json"
LUA
    cat >"$WORK_DIR/spread.lua" <<LUA
math.randomseed(os.time())
wrk.headers["Content-Type"] = "application/json"
request = function()
    return wrk.format("PUT", "$MOUNT/classes/$CLASS/c" .. math.random(1, $CATS), nil, '{"votes":{"__op":"Increment","amount":1}}')
end
LUA
    HOT_ID=$hot
}


row() {
    local label=$1 name=$2 rps p50 p99
    read -r rps p50 p99 <<<"${RESULTS[$name]}"
    printf '%-52s %10.0f %9s %9s\n' "$label" "$rps" "$p50" "$p99"
}

main() {
    need_wrk
    [[ -x $PG_BIN/pgbench ]] || die "pgbench not found in $PG_BIN (set PARSE_PG_BIN)"
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    local fsync sync load_before
    fsync=$(psql_db postgres -At -c "SHOW fsync")
    sync=$(psql_db postgres -At -c "SHOW synchronous_commit")
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    prepare_pgbench
    prepare_cats

    measure_pgbench pgbench-hot -f "$WORK_DIR/hot.sql"
    measure_votes votes-hot "$WORK_DIR/hot.lua"
    measure_pgbench pgbench-simple-update -N
    measure_votes votes-spread "$WORK_DIR/spread.lua"

    local counted applied
    counted=$(psql_db parse_posts -At -c "SELECT votes FROM classes.\"$CLASS\" WHERE \"objectId\" = '$HOT_ID'")
    applied=$(psql_db parse_votes -At -c "SELECT count(*) FROM ballots WHERE class_name = '$CLASS' AND object_id = '$HOT_ID' AND state = 'applied'")

    echo
    echo "wrk -t1 -c$CONNECTIONS and pgbench -j1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback;"
    echo "fsync=$fsync synchronous_commit=$sync; $(nproc) cores shared by everything. Load before: $load_before"
    echo
    printf '%-52s %10s %9s %9s\n' "run" "per s" "p50 ms" "p99 ms"
    row "pgbench hot row UPDATE n = n + 1 (baseline)" pgbench-hot
    row "votes on one hot cat" votes-hot
    row "pgbench simple-update -N (baseline)" pgbench-simple-update
    row "votes spread over $CATS cats" votes-spread
    echo
    local hot base spread simple hot_p99
    read -r hot _ hot_p99 <<<"${RESULTS[votes-hot]}"
    read -r base _ _ <<<"${RESULTS[pgbench-hot]}"
    read -r spread _ _ <<<"${RESULTS[votes-spread]}"
    read -r simple _ _ <<<"${RESULTS[pgbench-simple-update]}"
    echo "hot cat: $(ratio "$hot" "$base") the pgbench hot row (target >= 2), p99 $hot_p99 ms (target < 50)"
    echo "spread:  $(ratio "$spread" "$simple") pgbench simple-update (target >= 1)"
    echo "hot cat counter $counted = $applied applied ballots in the ledger (after the warm-up and the run)"
    echo
    echo "CPU per vote (pgbench: per transaction), microseconds by process (the load generator's own not counted):"
    printf '  %-30s %s\n' "pgbench hot row" "${CPU[pgbench-hot]}" "votes on one hot cat" "${CPU[votes-hot]}" \
        "pgbench simple-update" "${CPU[pgbench-simple-update]}" "votes spread" "${CPU[votes-spread]}"
}

main "$@"
