#!/usr/bin/env bash
# Memory under large bodies, and the retry of a batch that outlived its deadline, against a running stack:
#   1. BENCH_CLIENTS (16) concurrent creates of a BENCH_BODY_MB (19) MB JSON object: the gateway's and posts'
#      resident size sampled every 0.2 s (peak), then again BENCH_SETTLE_S (10) s later (settled), beside the
#      gateway's body budget (PARSE_HTTP_BODY_BYTES_IN_FLIGHT) and each answer's status;
#   2. a /batch of BENCH_BATCH_ITEMS (10000) creates with one X-Parse-Request-Id, sent until it is answered 200:
#      each try's status, time and the objects stored, then one more try (the answers again, nothing redone).
# Uses the stack answering on $PORT (or starts one) and reads pids from its state folder (PARSE_STACK_DIR).
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

CLIENTS=${BENCH_CLIENTS:-16}
BODY_MB=${BENCH_BODY_MB:-19}
SETTLE_S=${BENCH_SETTLE_S:-10}
BATCH_ITEMS=${BENCH_BATCH_ITEMS:-10000}
readonly CLIENTS BODY_MB SETTLE_S BATCH_ITEMS
WORK_DIR=$(mktemp -d /tmp/bench-large-bodies.XXXXXX)
readonly WORK_DIR

cleanup() {
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then "$STACK" down >/dev/null 2>&1 || true; fi
}

resident_mb() { awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$1/status" 2>/dev/null || echo 0; }

master() {
    curl -s -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Master-Key: ${PARSE_SERVER_MASTER_KEY:-myMasterKey}" "$@"
}

stored_count() {
    master -G "$BASE/classes/$1" --data-urlencode 'count=1' --data-urlencode 'limit=0' |
        python3 -c 'import json, sys; print(json.load(sys.stdin).get("count", "?"))'
}

concurrent_creates() {
    local gateway posts peak_gateway=0 peak_posts=0 load now_gateway now_posts
    gateway=$(pid_of gateway) || die "no gateway pid in $STACK_DIR/run"
    posts=$(pid_of posts) || die "no posts pid in $STACK_DIR/run"
    python3 -c "import json, sys; json.dump({'blob': 'x' * ($BODY_MB * 1024 * 1024 - 64)}, sys.stdout)" >"$WORK_DIR/body.json"
    say "$CLIENTS concurrent creates of $BODY_MB MB; before: gateway $(resident_mb "$gateway") MB, posts $(resident_mb "$posts") MB"
    (
        for _ in $(seq "$CLIENTS"); do
            curl -s -o /dev/null -w '%{http_code}\n' -X POST -H "X-Parse-Application-Id: $APP_ID" \
                -H 'Content-Type: application/json' --data-binary "@$WORK_DIR/body.json" "$BASE/classes/BenchLargeBody" &
        done
        wait
    ) >"$WORK_DIR/statuses" &
    load=$!
    while kill -0 "$load" 2>/dev/null; do
        now_gateway=$(resident_mb "$gateway") now_posts=$(resident_mb "$posts")
        ((now_gateway > peak_gateway)) && peak_gateway=$now_gateway
        ((now_posts > peak_posts)) && peak_posts=$now_posts
        sleep 0.2
    done
    sleep "$SETTLE_S"
    echo "$CLIENTS concurrent $BODY_MB MB creates: answers $(sort "$WORK_DIR/statuses" | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')"
    echo "  peak resident: gateway $peak_gateway MB, posts $peak_posts MB;" \
        "after ${SETTLE_S} s: gateway $(resident_mb "$gateway") MB, posts $(resident_mb "$posts") MB"
    echo "  gateway body budget (PARSE_HTTP_BODY_BYTES_IN_FLIGHT): ${PARSE_HTTP_BODY_BYTES_IN_FLIGHT:-32mb}"
}

batch_retry() {
    local class="BenchBatch$RANDOM" id="bench-batch-$RANDOM-$RANDOM" try status seconds
    python3 -c "
import json, sys
mount = '$MOUNT'
json.dump({'requests': [{'method': 'POST', 'path': mount + '/classes/$class', 'body': {'n': i}}
                        for i in range($BATCH_ITEMS)]}, sys.stdout)" >"$WORK_DIR/batch.json"
    echo "a $BATCH_ITEMS-item /batch, X-Parse-Request-Id $id, sent until answered 200, then once more:"
    for try in 1 2 3 4 5 6; do
        read -r status seconds < <(curl -s -o "$WORK_DIR/answer.$try" -w '%{http_code} %{time_total}\n' -X POST \
            -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' -H "X-Parse-Request-Id: $id" \
            --data-binary "@$WORK_DIR/batch.json" "$BASE/batch")
        echo "  try $try: $status in $seconds s, $(stored_count "$class") objects stored"
        if [[ $status == 200 ]]; then
            read -r status seconds < <(curl -s -o "$WORK_DIR/answer.again" -w '%{http_code} %{time_total}\n' -X POST \
                -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' -H "X-Parse-Request-Id: $id" \
                --data-binary "@$WORK_DIR/batch.json" "$BASE/batch")
            local same=no
            cmp -s "$WORK_DIR/answer.$try" "$WORK_DIR/answer.again" && same=yes
            echo "  once more: $status in $seconds s, $(stored_count "$class") objects stored, the same answers: $same"
            return 0
        fi
    done
    echo "  never answered 200"
}

main() {
    trap cleanup EXIT
    ensure_stack
    echo "Load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
    concurrent_creates
    batch_retry
}

main "$@"
