#!/usr/bin/env bash
# Measures the object routes of the posts service against pgbench on the same PostgreSQL, in one run:
#   1. pgbench: an INSERT script and the built-in select-only script (the baselines),
#   2. create throughput: POST <mount>/classes/BenchCreate,
#   3. get-by-id throughput: GET <mount>/classes/BenchObject/<random id> at 10k and at 1M objects,
#   4. GET <mount>/classes/BenchObject?order=-votes&limit=25 at 10k and at 1M objects.
#   5. the floor of the path: a request the posts service refuses before any SQL.
#   6. get-by-id at 10k objects with metrics on and off (PARSE_METRICS=0), BENCH_METRICS_PAIRS pairs (2) in the order
#      on off off on on off ..., the processes restarted between: what metrics cost (BENCH_METRICS_ONLY=1 runs only
#      this part and its pgbench baseline).
# BENCH_APPS=N runs instead creates and gets spread over N apps (the stack's own and N-1 created for the run, each
# request to one picked at random; the 10k objects shared out among them) beside the same pgbench baselines, so
# that a run with 1 and one with 20 compare what serving several apps costs.
# Prints req/s and latencies of each and their ratio to the matching pgbench figure. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
SMALL=${BENCH_SMALL_OBJECTS:-10000}
LARGE=${BENCH_LARGE_OBJECTS:-1000000}
METRICS_ONLY=${BENCH_METRICS_ONLY:-0}
METRICS_PAIRS=${BENCH_METRICS_PAIRS:-2}
APPS=${BENCH_APPS:-0}
ADMIN_KEY=${PARSE_SERVER_ADMIN_KEY:-myAdminKey}
readonly DURATION WARMUP CONNECTIONS SMALL LARGE METRICS_ONLY METRICS_PAIRS APPS ADMIN_KEY

readonly POSTS_DB=parse_posts
readonly PGBENCH_DB=bench_pgbench
readonly CLASS=BenchObject


psql_posts() { psql_db "$POSTS_DB" "$@"; }
psql_admin() { psql_db postgres "$@"; }
api() {
    local method=$1 path=$2 body=${3:-}
    curl -sf -X "$method" -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        ${body:+--data "$body"} "$BASE$path"
}

# ---------------------------------------------------------------------------------------------
# What this run started or created, removed at exit whatever happens.

WORK_DIR=$(mktemp -d /tmp/bench-objects.XXXXXX)
# The apps this run created (BENCH_APPS), deleted at exit; APP_IDS and APP_KEYS: every app the run spreads over.
CREATED_APPS=()
APP_IDS=()
APP_KEYS=()
ROOT=${BASE%"$MOUNT"}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    psql_admin -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null 2>&1 || true
    psql_posts -c "DROP TABLE IF EXISTS classes.\"$CLASS\", classes.\"BenchCreate\"; DELETE FROM parse_schema WHERE class_name IN ('$CLASS', 'BenchCreate')" >/dev/null 2>&1 || true
    local name
    for name in "${CREATED_APPS[@]}"; do
        curl -sf -X DELETE -H "X-Parse-Admin-Key: $ADMIN_KEY" "$ROOT/admin/apps/$name?confirm=$name" >/dev/null || true
    done
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}


# ---------------------------------------------------------------------------------------------
# Measuring


# RESULTS[name] = "req/s p50_ms p99_ms" (pgbench: "tps avg_ms -"); CPU[name] = microseconds of CPU per request
# of each stack process during the measured run (cpu_per_request); SWITCHES[name] = the gateway's and posts' thread
# switches per request (switches_per_request).
declare -A RESULTS=() CPU=() SWITCHES=()


# pgbench with the same number of clients, one thread, like wrk.
measure_pgbench() {
    local name=$1 output tps latency
    shift
    settle_database
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$CONNECTIONS" -j 1 -T "$WARMUP" "$@" "$PGBENCH_DB" >/dev/null 2>&1
    local before
    before=$(stack_cpu_ticks)
    output=$("$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$CONNECTIONS" -j 1 -T "$DURATION" "$@" "$PGBENCH_DB" 2>&1)
    CPU[$name]=$(cpu_per_request "$before" "$(stack_cpu_ticks)" \
        "$(awk '/^number of transactions actually processed: / { print $NF }' <<<"$output")")
    tps=$(awk '/^tps = / { print $3 }' <<<"$output")
    latency=$(awk '/^latency average = / { print $4 }' <<<"$output")
    RESULTS[$name]="$tps $latency -"
}

prepare_pgbench() {
    say "pgbench: initialising $PGBENCH_DB (scale 10, 1M accounts)"
    psql_admin -c "DROP DATABASE IF EXISTS $PGBENCH_DB WITH (FORCE)" >/dev/null
    psql_admin -c "CREATE DATABASE $PGBENCH_DB" >/dev/null
    "$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -i -q -s 10 "$PGBENCH_DB" >/dev/null 2>&1
    "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$PGBENCH_DB" \
        -c "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, name text, votes double precision, created timestamptz)"
    # The same work as a create: one row with a text and a number, one round trip.
    echo "INSERT INTO bench_insert (name, votes, created) VALUES ('cat', 1, now());" >"$WORK_DIR/insert.sql"
}

# Grows the class to $1 objects: the first through the API (it makes the class and its fields), the rest
# in bulk with SQL, with ids b1..bN so the get-by-id script can pick them at random.
fill_class() {
    local target=$1 have
    have=$(psql_posts -At -c "SELECT count(*) FROM classes.\"$CLASS\"" 2>/dev/null || echo 0)
    if [[ $have == 0 ]]; then
        api POST "/classes/$CLASS" '{"name":"seed","votes":0}' >/dev/null
        have=1
    fi
    say "$CLASS: $have -> $target objects"
    psql_posts -c "INSERT INTO classes.\"$CLASS\" (\"objectId\", \"createdAt\", \"updatedAt\", name, votes)
        SELECT 'b' || i, now(), now(), 'cat ' || i, floor(random() * 1000000)
        FROM generate_series($have, $target - 1) AS i;
        ANALYZE classes.\"$CLASS\";"
}

write_scripts() {
    cat >"$WORK_DIR/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"name":"cat","votes":1}'
wrk.headers["Content-Type"] = "application/json"
LUA
}

get_script() {
    local count=$1
    cat >"$WORK_DIR/get-$count.lua" <<LUA
math.randomseed(os.time())
request = function()
    return wrk.format("GET", "$MOUNT/classes/$CLASS/b" .. math.random(1, $count - 1))
end
LUA
    echo "$WORK_DIR/get-$count.lua"
}


# The run's conditions (and `$1`, a line about it), then the table's head.
print_header() {
    echo
    echo "wrk -t1 -c$CONNECTIONS and pgbench -j1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ and PostgreSQL. Load before: $LOAD_BEFORE"
    if [[ -n ${1:-} ]]; then echo "$1"; fi
    echo
    printf '%-44s %10s %9s %9s   %s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
}

# A pgbench baseline's row: `$1` its label, `$2` its name in RESULTS.
baseline_row() {
    printf '%-44s %10.0f %9s %9s\n' "$1" "$(cut -d' ' -f1 <<<"${RESULTS[$2]}")" "avg $(cut -d' ' -f2 <<<"${RESULTS[$2]}")" "-"
}

# ---------------------------------------------------------------------------------------------
# BENCH_APPS: the same requests spread over several apps

create_apps() {
    APP_IDS=("$APP_ID")
    APP_KEYS=("")
    local i answer
    for ((i = 2; i <= APPS; i++)); do
        answer=$(curl -sf -X POST -H "X-Parse-Admin-Key: $ADMIN_KEY" -H 'Content-Type: application/json' \
            --data "{\"name\":\"bench-$$-$i\"}" "$ROOT/admin/apps") || die "cannot create an app (is PARSE_SERVER_ADMIN_KEY the stack's?)"
        CREATED_APPS+=("bench-$$-$i")
        APP_IDS+=("$(python3 -c 'import json, sys; print(json.load(sys.stdin)["applicationId"])' <<<"$answer")")
        APP_KEYS+=("$(python3 -c 'import json, sys; print(json.load(sys.stdin)["restApiKey"])' <<<"$answer")")
    done
    say "${#APP_IDS[@]} apps"
}

# A Lua table of every app's headers, for the scripts below.
apps_lua() {
    local i
    echo "apps = {"
    for i in "${!APP_IDS[@]}"; do
        printf '  {["X-Parse-Application-Id"] = "%s", ["X-Parse-REST-API-Key"] = "%s", ["Content-Type"] = "application/json"},\n' \
            "${APP_IDS[$i]}" "${APP_KEYS[$i]}"
    done
    echo "}"
}

write_app_scripts() {
    local per_app=$((SMALL / APPS))
    { apps_lua; cat <<'LUA'
math.randomseed(os.time())
request = function()
    return wrk.format("POST", nil, apps[math.random(1, #apps)], '{"name":"cat","votes":1}')
end
LUA
    } >"$WORK_DIR/create-apps.lua"
    { apps_lua; cat <<LUA
math.randomseed(os.time())
request = function()
    return wrk.format("GET", "$MOUNT/classes/$CLASS/b" .. math.random(1, $per_app - 1), apps[math.random(1, #apps)])
end
LUA
    } >"$WORK_DIR/get-apps.lua"
}

# Each app's class gets its share of the objects, made with SQL in its own database after one create through the
# API has made the class there.
fill_apps() {
    local per_app=$((SMALL / APPS)) i database
    for i in "${!APP_IDS[@]}"; do
        curl -sf -X POST -H "X-Parse-Application-Id: ${APP_IDS[$i]}" ${APP_KEYS[$i]:+-H "X-Parse-REST-API-Key: ${APP_KEYS[$i]}"} \
            -H 'Content-Type: application/json' --data '{"name":"seed","votes":0}' "$BASE/classes/$CLASS" >/dev/null
        if ((i == 0)); then database=$POSTS_DB; else database="${POSTS_DB}_app_${APP_IDS[$i]}"; fi
        psql_db "$database" -c "INSERT INTO classes.\"$CLASS\" (\"objectId\", \"createdAt\", \"updatedAt\", name, votes)
            SELECT 'b' || i, now(), now(), 'cat ' || i, floor(random() * 1000000) FROM generate_series(1, $per_app - 1) AS i;
            ANALYZE classes.\"$CLASS\";" >/dev/null
    done
}

# One create in each app before measuring: an app's services open its databases (created, migrated) on its first
# request, which is not what the runs compare.
open_apps() {
    local i
    for i in "${!APP_IDS[@]}"; do
        curl -sf -X POST -H "X-Parse-Application-Id: ${APP_IDS[$i]}" ${APP_KEYS[$i]:+-H "X-Parse-REST-API-Key: ${APP_KEYS[$i]}"} \
            -H 'Content-Type: application/json' --data '{"name":"first"}' "$BASE/classes/BenchCreate" >/dev/null
    done
}

run_apps() {
    create_apps
    open_apps
    write_app_scripts
    measure_pgbench pgbench-insert -f "$WORK_DIR/insert.sql"
    measure_pgbench pgbench-select -S
    measure_wrk_settled create "$BASE/classes/BenchCreate" "$WORK_DIR/create-apps.lua"
    fill_apps
    measure_wrk_settled get-small "$BASE/classes/$CLASS" "$WORK_DIR/get-apps.lua"
    print_header "Spread over $APPS apps, each request to one at random; $SMALL objects in all."
    baseline_row "pgbench INSERT one row (baseline)" pgbench-insert
    baseline_row "pgbench -S select-only (baseline)" pgbench-select
    ratio_row "POST /classes/BenchCreate, $APPS apps" create pgbench-insert 44
    ratio_row "GET /classes/$CLASS/<id>, $APPS apps" get-small pgbench-select 44
    echo
    echo "CPU per request, microseconds by process (the load generator's own not counted):"
    printf '  %-42s %s\n' "POST /classes/BenchCreate, $APPS apps" "${CPU[create]}" \
        "GET /classes/$CLASS/<id>, $APPS apps" "${CPU[get-small]}"
}

# Get-by-id with metrics on and off (the processes a get crosses restarted each time) in the order on off off on
# on off ...: with an even number of pairs, a machine that drifts steadily during the run weighs on both settings
# alike, and the spread between runs of one setting shows how far to trust the difference.
metrics_runs() {
    local i
    for ((i = 0; i < 2 * METRICS_PAIRS; i++)); do
        case $((i % 4)) in 0 | 3) echo "on-$((i / 2 + 1))" ;; *) echo "off-$((i / 2 + 1))" ;; esac
    done
}
mapfile -t METRICS_RUNS < <(metrics_runs)
readonly METRICS_RUNS
measure_metrics_cost() {
    local script run
    script=$(get_script "$SMALL")
    for run in "${METRICS_RUNS[@]}"; do
        restart_with_metrics "$([[ $run == on-* ]] && echo 1 || echo 0)" gateway posts
        measure_wrk_settled "get-metrics-$run" "$BASE/classes/$CLASS" "$script"
    done
}

# The gateway's and posts' microseconds of CPU per request in one CPU line ("gateway 284, posts 315, ...").
gateway_posts_cpu() { awk -v line="$1" 'BEGIN { n = split(line, parts, ", "); for (i = 1; i <= n; i++) {
    split(parts[i], kv, " "); if (kv[1] == "gateway" || kv[1] == "posts") sum += kv[2] }; print sum + 0 }'; }

print_metrics_cost() {
    local run rps on_rps=0 off_rps=0 on_cpu=0 off_cpu=0 cpu
    echo
    for run in "${METRICS_RUNS[@]}"; do
        ratio_row "GET <id>, $SMALL objects, metrics ${run%-*}" "get-metrics-$run" pgbench-select 44
        read -r rps _ _ <<<"${RESULTS[get-metrics-$run]}"
        cpu=$(gateway_posts_cpu "${CPU[get-metrics-$run]}")
        if [[ $run == on-* ]]; then
            on_rps=$(awk -v a="$on_rps" -v b="$rps" 'BEGIN { print a + b }'); on_cpu=$((on_cpu + cpu))
        else
            off_rps=$(awk -v a="$off_rps" -v b="$rps" 'BEGIN { print a + b }'); off_cpu=$((off_cpu + cpu))
        fi
        echo "  CPU per request ($run): ${CPU[get-metrics-$run]}"
    done
    awk -v on="$on_rps" -v off="$off_rps" -v oncpu="$on_cpu" -v offcpu="$off_cpu" 'BEGIN {
        printf "metrics cost on get-by-id: %.1f%% of req/s, %+.1f%% of gateway+posts CPU per request (mean of the runs on against off)\n",
            (1 - on / off) * 100, (oncpu / offcpu - 1) * 100 }'
    echo "medians, on against off: $(median_of on rps) / $(median_of off rps) req/s," \
        "$(median_of on cpu) / $(median_of off cpu) us gateway+posts CPU per request"
}

# The median of one figure (rps or cpu) over the metrics runs of one setting (on or off).
median_of() {
    local setting=$1 figure=$2 run rps
    for run in "${METRICS_RUNS[@]}"; do
        [[ $run == "$setting"-* ]] || continue
        if [[ $figure == rps ]]; then read -r rps _ _ <<<"${RESULTS[get-metrics-$run]}"; echo "$rps"
        else gateway_posts_cpu "${CPU[get-metrics-$run]}"; fi
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
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

    if ((APPS > 0)); then
        run_apps
        return 0
    fi
    if ((METRICS_ONLY)); then
        measure_pgbench pgbench-select -S
        fill_class "$SMALL"
        measure_metrics_cost
        echo
        echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback. Load before: $LOAD_BEFORE"
        print_metrics_cost
        return 0
    fi
    measure_pgbench pgbench-insert -f "$WORK_DIR/insert.sql"
    measure_pgbench pgbench-select -S
    measure_wrk_settled create "$BASE/classes/BenchCreate" "$WORK_DIR/create.lua"
    # The floor of the path: gateway, RabbitMQ and the posts service, which refuses the class name before any SQL.
    measure_wrk_settled floor "$BASE/classes/1NoSuchClass" "" refusals

    fill_class "$SMALL"
    curl -sf -H "X-Parse-Application-Id: $APP_ID" "$BASE/classes/$CLASS?order=-votes&limit=25" >/dev/null
    measure_wrk_settled get-small "$BASE/classes/$CLASS" "$(get_script "$SMALL")"
    measure_wrk_settled query-small "$BASE/classes/$CLASS?order=-votes&limit=25"
    measure_metrics_cost

    fill_class "$LARGE"
    measure_wrk_settled get-large "$BASE/classes/$CLASS" "$(get_script "$LARGE")"
    measure_wrk_settled query-large "$BASE/classes/$CLASS?order=-votes&limit=25"
    # Same machine, same run: pgbench select-only again, so the large figures have a baseline of their moment.
    measure_pgbench pgbench-select-2 -S

    print_header
    baseline_row "pgbench INSERT one row (baseline)" pgbench-insert
    baseline_row "pgbench -S select-only (baseline)" pgbench-select
    baseline_row "pgbench -S select-only, after 1M (baseline)" pgbench-select-2
    ratio_row "floor: GET /classes/1NoSuchClass (400, no SQL)" floor pgbench-select 44
    ratio_row "POST /classes/BenchCreate" create pgbench-insert 44
    ratio_row "GET /classes/$CLASS/<id>, $SMALL objects" get-small pgbench-select 44
    ratio_row "GET /classes/$CLASS/<id>, $LARGE objects" get-large pgbench-select-2 44
    ratio_row "order=-votes&limit=25, $SMALL objects" query-small pgbench-select 44
    ratio_row "order=-votes&limit=25, $LARGE objects" query-large pgbench-select-2 44
    local small_rps large_rps small_p50 large_p50
    read -r small_rps small_p50 _ <<<"${RESULTS[query-small]}"
    read -r large_rps large_p50 _ <<<"${RESULTS[query-large]}"
    echo
    echo "order=-votes&limit=25 at $LARGE vs $SMALL objects: p50 $(ratio "$large_p50" "$small_p50"), req/s $(ratio "$large_rps" "$small_rps")"
    print_metrics_cost
    echo
    echo "CPU per request, microseconds by process (the load generator's own not counted):"
    printf '  %-42s %s\n' "pgbench INSERT one row" "${CPU[pgbench-insert]}" \
        "POST /classes/BenchCreate" "${CPU[create]}" \
        "pgbench -S select-only" "${CPU[pgbench-select]}" \
        "floor: GET /classes/1NoSuchClass" "${CPU[floor]}" \
        "GET /classes/$CLASS/<id>, $SMALL objects" "${CPU[get-small]}" \
        "GET /classes/$CLASS/<id>, $LARGE objects" "${CPU[get-large]}"
    echo
    echo "Thread switches per request by process:"
    printf '  %-42s %s\n' "POST /classes/BenchCreate" "${SWITCHES[create]}" \
        "floor: GET /classes/1NoSuchClass" "${SWITCHES[floor]}" \
        "GET /classes/$CLASS/<id>, $SMALL objects" "${SWITCHES[get-small]}"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
