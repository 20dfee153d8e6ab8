#!/usr/bin/env bash
# Measures the GraphQL API beside the same reads through REST, in one run, on one class of BENCH_OBJECTS objects:
#   1. a get by id: GET <mount>/classes/BenchGql/<random id> and `benchGql(id:)` over POST /graphql,
#   2. a find: GET <mount>/classes/BenchGql?order=-votes&limit=25 and `benchGqls(order: [votes_DESC], first: 25)`.
# Prints req/s and latencies of each, GraphQL's time per request against REST's (target: at most 1.5x), and the
# CPU per request by process. See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
OBJECTS=${BENCH_OBJECTS:-10000}
readonly DURATION WARMUP CONNECTIONS OBJECTS

readonly CLASS=BenchGql
readonly GRAPHQL="http://127.0.0.1:$PORT${PARSE_SERVER_GRAPHQL_PATH:-/graphql}"

WORK_DIR=$(mktemp -d /tmp/bench-graphql.XXXXXX)

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    psql_db parse_posts -c "DROP TABLE IF EXISTS classes.\"$CLASS\"; DELETE FROM parse_schema WHERE class_name = '$CLASS'" >/dev/null 2>&1 || true
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

declare -A RESULTS=() CPU=()

# The class with ids b0..bN-1: the first object through the API (it makes the class), the rest with SQL.
fill_class() {
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        --data '{"name":"seed","votes":0}' "$BASE/classes/$CLASS" >/dev/null
    say "$CLASS: $OBJECTS objects"
    psql_db parse_posts -c "INSERT INTO classes.\"$CLASS\" (\"objectId\", \"createdAt\", \"updatedAt\", name, votes)
        SELECT 'b' || i, now(), now(), 'cat ' || i, floor(random() * 1000000) FROM generate_series(0, $OBJECTS - 1) AS i;
        ANALYZE classes.\"$CLASS\";"
}

write_scripts() {
    cat >"$WORK_DIR/rest-get.lua" <<LUA
math.randomseed(os.time())
request = function() return wrk.format("GET", "$MOUNT/classes/$CLASS/b" .. math.random(0, $OBJECTS - 1)) end
LUA
    cat >"$WORK_DIR/graphql-get.lua" <<LUA
math.randomseed(os.time())
wrk.headers["Content-Type"] = "application/json"
request = function()
    local body = '{"query":"query Get(\$id: ID!) { benchGql(id: \$id) { objectId name votes } }","variables":{"id":"b' .. math.random(0, $OBJECTS - 1) .. '"}}'
    return wrk.format("POST", nil, nil, body)
end
LUA
    cat >"$WORK_DIR/rest-find.lua" <<LUA
request = function() return wrk.format("GET", "$MOUNT/classes/$CLASS?order=-votes&limit=25") end
LUA
    cat >"$WORK_DIR/graphql-find.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"{ benchGqls(order: [votes_DESC], first: 25) { edges { node { objectId name votes } } } }"}'
LUA
}

main() {
    need_wrk
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    write_scripts
    fill_class
    local check
    check=$(curl -sf -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        --data '{"query":"{ benchGql(id: \"b1\") { name } }"}' "$GRAPHQL")
    [[ $check == '{"data":{"benchGql":{"name":"cat 1"}}}' ]] || die "the GraphQL get answered $check"

    # REST, GraphQL, GraphQL, REST: a machine that drifts during the run weighs on both alike.
    measure_wrk rest-get "$BASE/classes/$CLASS" "$WORK_DIR/rest-get.lua"
    measure_wrk graphql-get "$GRAPHQL" "$WORK_DIR/graphql-get.lua"
    measure_wrk graphql-find "$GRAPHQL" "$WORK_DIR/graphql-find.lua"
    measure_wrk rest-find "$BASE/classes/$CLASS" "$WORK_DIR/rest-find.lua"

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback, $OBJECTS objects."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ and PostgreSQL. Load before: $LOAD_BEFORE"
    echo
    printf '%-44s %10s %9s %9s   %s\n' "target" "req/s" "p50 ms" "p99 ms" "req/s against REST"
    ratio_row "REST GET /classes/$CLASS/<id>" rest-get rest-get 44
    ratio_row "GraphQL benchGql(id:)" graphql-get rest-get 44
    ratio_row "REST order=-votes&limit=25" rest-find rest-find 44
    ratio_row "GraphQL benchGqls(order:, first: 25)" graphql-find rest-find 44
    local rest graphql
    read -r rest _ _ <<<"${RESULTS[rest-get]}"; read -r graphql _ _ <<<"${RESULTS[graphql-get]}"
    echo "get: GraphQL takes $(ratio "$rest" "$graphql") REST's time per request"
    read -r rest _ _ <<<"${RESULTS[rest-find]}"; read -r graphql _ _ <<<"${RESULTS[graphql-find]}"
    echo "find: GraphQL takes $(ratio "$rest" "$graphql") REST's time per request"
    echo
    echo "CPU per request, microseconds by process:"
    local name
    for name in rest-get graphql-get rest-find graphql-find; do printf '  %-14s %s\n' "$name" "${CPU[$name]}"; done
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
readonly LOAD_BEFORE
main "$@"
