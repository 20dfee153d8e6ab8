#!/usr/bin/env bash
# Measures the installation routes and push fan-out against pgbench on the same PostgreSQL, in one run:
#   1. pgbench: a one-row INSERT and a one-row UPDATE script (the baselines),
#   2. installation create throughput: POST <mount>/installations, a new device each time, on a small class,
#   3. installation update throughput: PUT <mount>/installations/<random id> of 10k installations,
#   4. the creates again with the fan-out's 100k installations in the class (what the device look-up costs at scale),
#      also over one connection, where the latency is a create's own and not the wait behind 15 others,
#   5. push fan-out: two POST <mount>/push to a channel of 100k installations, each timed until every
#      push.requested.v1 event is confirmed by the broker, with the posts process's peak memory before and after and
#      the share of the push's badge updates PostgreSQL made HOT (no new index entries).
# Prints req/s and latencies (installations/s for the fan-out) and their ratio to pgbench. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
UPDATED=${BENCH_UPDATED_INSTALLATIONS:-10000}
FANOUT=${BENCH_PUSH_INSTALLATIONS:-100000}
MASTER_KEY=${PARSE_SERVER_MASTER_KEY:-myMasterKey}
readonly DURATION WARMUP CONNECTIONS UPDATED FANOUT MASTER_KEY

readonly POSTS_DB=parse_posts
readonly PGBENCH_DB=bench_pgbench_platform
readonly TABLE='classes."_Installation"'

psql_posts() { psql_db "$POSTS_DB" "$@"; }
psql_admin() { psql_db postgres "$@"; }

WORK_DIR=$(mktemp -d /tmp/bench-platform.XXXXXX)

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    psql_admin -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null 2>&1 || true
    psql_posts -c "DELETE FROM $TABLE WHERE 'bench' = ANY(ARRAY(SELECT jsonb_array_elements_text(channels)))
                   OR 'fanout' = ANY(ARRAY(SELECT jsonb_array_elements_text(channels)))" >/dev/null 2>&1 || true
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

declare -A RESULTS=()

# Usage: measure_wrk NAME URL SCRIPT [CONNECTIONS]
measure_wrk() {
    local name=$1 url=$2 script=$3 connections=${4:-$CONNECTIONS} output
    local args=(-t1 -c"$connections" -H "X-Parse-Application-Id: $APP_ID" -s "$script")
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$url")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

# Usage: measure_pgbench NAME CONNECTIONS PGBENCH_ARGS...
measure_pgbench() {
    local name=$1 connections=$2 output
    shift 2
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$connections" -j 1 -T "$WARMUP" "$@" "$PGBENCH_DB" >/dev/null 2>&1
    output=$("$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$connections" -j 1 -T "$DURATION" "$@" "$PGBENCH_DB" 2>&1)
    RESULTS[$name]="$(awk '/^tps = / { print $3 }' <<<"$output") $(awk '/^latency average = / { print $4 }' <<<"$output") -"
}

prepare_pgbench() {
    say "pgbench: preparing $PGBENCH_DB"
    psql_admin -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null
    psql_admin -c "CREATE DATABASE $PGBENCH_DB" >/dev/null
    psql_db "$PGBENCH_DB" -c "CREATE TABLE device (id bigserial PRIMARY KEY, token text, kind text, badge double precision)
        ; INSERT INTO device (token, kind, badge) SELECT 't' || i, 'android', 0 FROM generate_series(1, $UPDATED) AS i"
    echo "INSERT INTO device (token, kind, badge) VALUES (md5(random()::text), 'android', 0);" >"$WORK_DIR/insert.sql"
    printf '%s\n' "\\set id random(1, $UPDATED)" "UPDATE device SET badge = badge + 1 WHERE id = :id;" >"$WORK_DIR/update.sql"
}

write_scripts() {
    # wrk.format uses wrk.headers (the -H ones) only when given no headers of its own.
    cat >"$WORK_DIR/create.lua" <<LUA
math.randomseed(os.time())
local run, n = math.random(0, 0x7fffffff), 0
wrk.headers["Content-Type"] = "application/json"
request = function()
    n = n + 1
    local id = string.format("%08x-0000-4000-8000-%012x", run, n)
    return wrk.format("POST", "$MOUNT/installations", nil,
        '{"installationId":"' .. id .. '","deviceToken":"t' .. id .. '","deviceType":"android","channels":["bench"]}')
end
LUA
    cat >"$WORK_DIR/update.lua" <<LUA
math.randomseed(os.time())
wrk.headers["Content-Type"] = "application/json"
request = function()
    return wrk.format("PUT", "$MOUNT/installations/bu" .. math.random(1, $UPDATED), nil,
        '{"appVersion":"2.0","timeZone":"Europe/Paris"}')
end
LUA
}

# N installations in bulk with SQL once the class exists with its default fields: bu1..buN (update targets) or,
# with OBJECT_ID set to an SQL expression of i, the fan-out's channel. Rows land in the order of i, as devices
# register in turn; the fan-out's objectIds are random as the server's are, so a push (which walks the objectId
# order) visits each page of the table many times.
fill_installations() {
    local prefix=$1 count=$2 channel=$3 object_id=${4:-"'$1' || i"}
    psql_posts -c "INSERT INTO $TABLE (\"objectId\", \"createdAt\", \"updatedAt\", \"installationId\", \"deviceToken\",
            \"deviceType\", channels, badge)
        SELECT $object_id, now(), now(), md5('$prefix' || i), 'tok$prefix' || i,
            CASE WHEN i % 2 = 0 THEN 'ios' ELSE 'android' END, '[\"$channel\"]'::jsonb, 0
        FROM generate_series(1, $count) AS i ON CONFLICT DO NOTHING; ANALYZE $TABLE;"
}

peak_rss_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$(pid_of posts)/status" 2>/dev/null || echo "?"; }

# "updates hot_updates" of the installation table so far, as PostgreSQL's statistics show them.
table_updates() {
    psql_posts -At -F ' ' -c "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
        WHERE schemaname = 'classes' AND relname = '_Installation'"
}

# "HOT% of N updates" since `table_updates` gave "$1 $2". The server reports a backend's counts a moment after its
# transactions end, so this waits (30 s at most) until the push's updates are counted.
hot_share() {
    local updates_before=$1 hot_before=$2 expected=$3 updates hot tries=0
    while :; do
        read -r updates hot < <(table_updates)
        if ((updates - updates_before >= expected || tries >= 300)); then break; fi
        tries=$((tries + 1))
        sleep 0.1
    done
    awk -v u=$((updates - updates_before)) -v h=$((hot - hot_before)) \
        'BEGIN { printf "%.1f%% of %d updates HOT", (u > 0 ? 100 * h / u : 0), u }'
}

# One push to every installation of the fan-out channel; seconds until posts has published them all and the
# broker confirmed every event. Sets FANOUT_SECONDS, FANOUT_CPU, FANOUT_EVENTS and FANOUT_HOT.
measure_fanout() {
    local started id now state unpublished before updates_before hot_before
    say "push fan-out: $FANOUT installations"
    read -r updates_before hot_before < <(table_updates)
    before=$(stack_cpu_ticks)
    started=$(date +%s.%N)
    id=$(curl -sf -D - -o /dev/null -X POST -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" \
        -H 'Content-Type: application/json' --data '{"channels":["fanout"],"data":{"alert":"bench","badge":"Increment"}}' \
        "$BASE/push" | awk 'tolower($1) == "x-parse-push-status-id:" { print $2 }' | tr -d '\r')
    [[ -n $id ]] || die "POST /push gave no X-Parse-Push-Status-Id"
    while :; do
        read -r state unpublished < <(psql_posts -At -F ' ' -c "SELECT (SELECT state FROM push_jobs WHERE push_status_id = '$id'),
            (SELECT count(*) FROM outbox WHERE routing_key LIKE 'push.requested.%' AND published_at IS NULL)")
        if [[ $state == published && $unpublished == 0 ]]; then break; fi
        sleep 0.1
    done
    now=$(date +%s.%N)
    # CPU per installation says what the fan-out costs whatever else the machine runs at the time.
    FANOUT_CPU=$(cpu_per_request "$before" "$(stack_cpu_ticks)" "$FANOUT")
    FANOUT_SECONDS=$(awk -v a="$started" -v b="$now" 'BEGIN { printf "%.2f", b - a }')
    FANOUT_EVENTS=$(psql_posts -At -c "SELECT count(*) FROM outbox WHERE payload->>'subject' = '_PushStatus/$id'")
    FANOUT_HOT=$(hot_share "$updates_before" "$hot_before" "$FANOUT")
}

print_fanout() {
    local label=$1 base_rps=$2 per_second
    per_second=$(awk -v n="$FANOUT" -v s="$FANOUT_SECONDS" 'BEGIN { printf "%.0f", n / s }')
    echo "$label push to $FANOUT installations: fully published in $FANOUT_SECONDS s ($per_second installations/s, $FANOUT_EVENTS events);"
    echo "  pgbench INSERT one row in the same run: $base_rps tps ($(ratio "$per_second" "$base_rps") as installations/s per tps)"
    echo "  CPU per installation published, microseconds by process (the adapter's not counted): $FANOUT_CPU"
    echo "  badge updates: $FANOUT_HOT"
}

main() {
    need_wrk
    [[ -x $PG_BIN/pgbench ]] || die "pgbench not found in $PG_BIN (set PARSE_PG_BIN)"
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    write_scripts
    prepare_pgbench
    # The first installation makes the class with its default fields.
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        --data '{"installationId":"bench-seed","deviceType":"android","channels":["bench"]}' "$BASE/installations" >/dev/null

    measure_pgbench pgbench-insert "$CONNECTIONS" -f "$WORK_DIR/insert.sql"
    measure_pgbench pgbench-insert-one 1 -f "$WORK_DIR/insert.sql"
    measure_pgbench pgbench-update "$CONNECTIONS" -f "$WORK_DIR/update.sql"
    measure_wrk create "$BASE/installations" "$WORK_DIR/create.lua"
    measure_wrk create-one "$BASE/installations" "$WORK_DIR/create.lua" 1
    fill_installations bu "$UPDATED" bench
    measure_wrk update "$BASE/installations" "$WORK_DIR/update.lua"
    fill_installations bf "$FANOUT" fanout "substr(md5('bf' || i), 1, 10)"
    measure_wrk create-at-scale "$BASE/installations" "$WORK_DIR/create.lua"
    measure_wrk create-at-scale-one "$BASE/installations" "$WORK_DIR/create.lua" 1
    local rss_before first
    rss_before=$(peak_rss_kb)
    measure_fanout
    first=("$FANOUT_SECONDS" "$FANOUT_CPU" "$FANOUT_EVENTS" "$FANOUT_HOT")
    # The second push finds the first one's dead row versions on the pages.
    measure_fanout
    # Same machine, same run: the insert baseline again, beside the fan-out.
    measure_pgbench pgbench-insert-2 "$CONNECTIONS" -f "$WORK_DIR/insert.sql"

    echo
    echo "wrk -t1 -c$CONNECTIONS and pgbench -j1 -c$CONNECTIONS (\"one connection\": -c1), ${DURATION} s per run after a ${WARMUP} s"
    echo "warm-up, loopback."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ and PostgreSQL. Load before: $LOAD_BEFORE"
    echo
    printf '%-52s %10s %9s %9s   %s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
    local name label base rps p50 p99 base_rps
    for name in pgbench-insert pgbench-insert-one pgbench-update; do
        read -r rps p50 _ <<<"${RESULTS[$name]}"
        printf '%-52s %10.0f %9s %9s\n' "$name (baseline)" "$rps" "avg $p50" "-"
    done
    for pair in "create:POST /installations (new device):pgbench-insert" \
        "create-one:POST /installations (new device), one connection:pgbench-insert-one" \
        "update:PUT /installations/<id>, $UPDATED rows:pgbench-update" \
        "create-at-scale:POST /installations, $FANOUT more in the class:pgbench-insert" \
        "create-at-scale-one:POST /installations, $FANOUT more, one connection:pgbench-insert-one"; do
        IFS=: read -r name label base <<<"$pair"
        read -r rps p50 p99 <<<"${RESULTS[$name]}"
        read -r base_rps _ _ <<<"${RESULTS[$base]}"
        printf '%-52s %10.0f %9s %9s   %s of %s\n' "$label" "$rps" "$p50" "$p99" "$(ratio "$rps" "$base_rps")" "$base"
    done
    read -r base_rps _ _ <<<"${RESULTS[pgbench-insert-2]}"
    local second=("$FANOUT_SECONDS" "$FANOUT_CPU" "$FANOUT_EVENTS" "$FANOUT_HOT")
    echo
    FANOUT_SECONDS=${first[0]} FANOUT_CPU=${first[1]} FANOUT_EVENTS=${first[2]} FANOUT_HOT=${first[3]}
    print_fanout "first" "$base_rps"
    FANOUT_SECONDS=${second[0]} FANOUT_CPU=${second[1]} FANOUT_EVENTS=${second[2]} FANOUT_HOT=${second[3]}
    print_fanout "second" "$base_rps"
    echo "  posts peak RSS: $rss_before kB before the pushes, $(peak_rss_kb) kB after"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
