#!/usr/bin/env bash
# Measures two queries of the SDKs at 10k and at 1M objects, in one run:
#   1. whereNear: GET <mount>/classes/BenchPlace?where={"location":{"$nearSphere":...}}&limit=25 (random GeoPoints),
#   2. a weekly leaderboard: GET <mount>/aggregate/BenchGame with $match (the last week), $group by player summing
#      the scores, $sort, $limit 10, over games that arrive at 1,000 a week (so 1M games are 1,000 weeks).
# Prints req/s and latencies of each and the p50 at 1M against the p50 at 10k. Every request carries the master key
# (the aggregate needs it; a stack with client keys configured accepts it too). See bench/README.md.
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
MASTER_KEY=${PARSE_SERVER_MASTER_KEY:-myMasterKey}
readonly DURATION WARMUP CONNECTIONS SMALL LARGE MASTER_KEY

readonly POSTS_DB=parse_posts PLACES=BenchPlace GAMES=BenchGame

psql_posts() { psql_db "$POSTS_DB" "$@"; }
api() {
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" \
        -H 'Content-Type: application/json' --data "$2" "$BASE$1"
}
urlencode() {
    local text=$1 i c out=
    for ((i = 0; i < ${#text}; i++)); do
        c=${text:i:1}
        case $c in [a-zA-Z0-9._~-]) out+=$c ;; *) out+=$(printf '%%%02X' "'$c") ;; esac
    done
    printf '%s' "$out"
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    psql_posts -c "DROP TABLE IF EXISTS classes.\"$PLACES\", classes.\"$GAMES\"; DELETE FROM parse_schema WHERE class_name IN ('$PLACES', '$GAMES')" >/dev/null 2>&1 || true
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}

declare -A RESULTS=()

measure_wrk() {
    local name=$1 url=$2 output
    local args=(-t1 -c"$CONNECTIONS" -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY")
    say "$name: warm-up ${WARMUP} s, then ${DURATION} s"
    wrk "${args[@]}" -d"${WARMUP}s" "$url" >/dev/null
    output=$(wrk "${args[@]}" -d"${DURATION}s" --latency "$url")
    RESULTS[$name]=$(wrk_figures "$name" "$output")
}

# Both classes up to $1 objects, straight into their tables (the API would take hours for 1M), then analysed.
fill() {
    local target=$1 have
    have=$(psql_posts -At -c "SELECT count(*) FROM classes.\"$PLACES\"" 2>/dev/null || echo 0)
    if [[ $have == 0 ]]; then
        api "/classes/$PLACES" '{"name":"seed","location":{"__type":"GeoPoint","latitude":0,"longitude":0}}' >/dev/null
        api "/classes/$GAMES" '{"name":"seed","score":0,"playedAt":{"__type":"Date","iso":"2000-01-01T00:00:00.000Z"}}' >/dev/null
        have=1
    fi
    say "$PLACES and $GAMES: $have -> $target objects"
    psql_posts -c "INSERT INTO classes.\"$PLACES\" (\"objectId\", \"createdAt\", \"updatedAt\", name, location)
        SELECT 'p' || i, now(), now(), 'place ' || i, point(random() * 360 - 180, degrees(asin(random() * 2 - 1)))
        FROM generate_series($have, $target - 1) AS i;
        INSERT INTO classes.\"$GAMES\" (\"objectId\", \"createdAt\", \"updatedAt\", name, score, \"playedAt\")
        SELECT 'g' || i, now(), now(), 'player ' || (i % 500), floor(random() * 1000),
               now() - (i / 1000) * interval '1 week' - random() * interval '1 week'
        FROM generate_series($have, $target - 1) AS i;
        ANALYZE classes.\"$PLACES\"; ANALYZE classes.\"$GAMES\";" >/dev/null
}

main() {
    need_wrk
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    ensure_stack
    local near board
    near="$BASE/classes/$PLACES?limit=25&where=$(urlencode '{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":48.85,"longitude":2.35}}}')"
    board="$BASE/aggregate/$GAMES?pipeline=$(urlencode '[{"$match":{"playedAt":{"$gte":{"$relativeTime":"1 week ago"}}}},{"$group":{"_id":"$name","score":{"$sum":"$score"}}},{"$sort":{"score":-1}},{"$limit":10}]')"

    fill "$SMALL"
    # The first queries build the indexes.
    curl -sf -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" "$near" >/dev/null
    curl -sf -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: $MASTER_KEY" "$board" >/dev/null
    measure_wrk near-small "$near"
    measure_wrk board-small "$board"
    fill "$LARGE"
    measure_wrk near-large "$near"
    measure_wrk board-large "$board"

    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION} s per run after a ${WARMUP} s warm-up, loopback."
    echo "$(nproc) cores shared by the load generator, the services, RabbitMQ and PostgreSQL. Load before: $LOAD_BEFORE"
    echo
    printf '%-52s %10s %9s %9s\n' "target" "req/s" "p50 ms" "p99 ms"
    local name label rps p50 p99
    for name in near-small near-large board-small board-large; do
        case $name in
            near-small) label="\$nearSphere limit 25, $SMALL GeoPoints" ;;
            near-large) label="\$nearSphere limit 25, $LARGE GeoPoints" ;;
            board-small) label="weekly top 10 aggregate, $SMALL games" ;;
            board-large) label="weekly top 10 aggregate, $LARGE games" ;;
        esac
        read -r rps p50 p99 <<<"${RESULTS[$name]}"
        printf '%-52s %10.0f %9s %9s\n' "$label" "$rps" "$p50" "$p99"
    done
    local small large
    echo
    for name in near board; do
        read -r _ small _ <<<"${RESULTS[$name-small]}"
        read -r _ large _ <<<"${RESULTS[$name-large]}"
        echo "$name: p50 at $LARGE vs $SMALL objects $(ratio "$large" "$small") (target at most 1.5x)"
    done
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
main "$@"
