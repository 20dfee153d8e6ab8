#!/usr/bin/env bash
# Measures the files routes against PostgreSQL's own rate for the same bytes, in one run:
#   1. PostgreSQL: INSERT ... SELECT of a 64 KB and a 5 MB bytea (write, server side) and SELECT of it
#      (read, sent to the client) with pgbench (the baselines),
#   2. upload MB/s: POST <mount>/files/<name> of 64 KB and 5 MB bodies (wrk),
#   3. download MB/s: GET <mount>/files/<appId>/<name> of the same files (wrk),
#   4. memory: ten 20 MB uploads in parallel, then ten 20 MB downloads in parallel, while the resident size
#      of the gateway and the files service is sampled; prints the peak of each.
# See bench/README.md.
set -euo pipefail

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO_ROOT
# shellcheck source=bench/lib.sh
source "$REPO_ROOT/bench/lib.sh"

DURATION=${BENCH_DURATION:-5}
WARMUP=${BENCH_WARMUP:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-4}
PARALLEL=${BENCH_PARALLEL:-10}
readonly DURATION WARMUP CONNECTIONS PARALLEL

readonly FILES_DB=parse_files
readonly PG_DB=bench_files_pg
readonly MARKER=benchfile


SAMPLER_PID=
WORK_DIR=$(mktemp -d /tmp/bench-files.XXXXXX)
chmod 755 "$WORK_DIR" # PostgreSQL reads the sample files itself (pg_read_binary_file)

# The bench's own files (their names carry $MARKER) and database go, whatever happens.
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n $SAMPLER_PID ]]; then kill "$SAMPLER_PID" 2>/dev/null || true; fi
    psql_db postgres -c "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null 2>&1 || true
    psql_db "$FILES_DB" -c "DELETE FROM file_parts WHERE upload_id IN (SELECT upload_id FROM files WHERE name LIKE '%\\_$MARKER%')
                           OR upload_id IN (SELECT upload_id FROM file_uploads WHERE name LIKE '%\\_$MARKER%');
                           DELETE FROM files WHERE name LIKE '%\\_$MARKER%';
                           DELETE FROM file_uploads WHERE name LIKE '%\\_$MARKER%'" >/dev/null 2>&1 || true
    rm -rf "$WORK_DIR"
    if ((STARTED_STACK)); then
        say "stopping the stack this run started"
        "$STACK" down || true
    fi
    exit "$status"
}
trap cleanup EXIT INT TERM


session_token() {
    local name="bench_files_$RANDOM$RANDOM"
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H 'Content-Type: application/json' \
        --data "{\"username\":\"$name\",\"password\":\"bench-$RANDOM$RANDOM\"}" "$BASE/users" |
        sed -n 's/.*"sessionToken":"\([^"]*\)".*/\1/p'
}

# Uploads $1 under the name $2 and prints the url of the stored file.
upload() {
    curl -sf -X POST -H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-Session-Token: $TOKEN" \
        --data-binary "@$1" "$BASE/files/$2" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p'
}

# ---------------------------------------------------------------------------------------------
# Measuring. RESULTS[name] = MB/s (10^6 bytes per second).

declare -A RESULTS

# wrk on $2 with the Lua script $3; MB/s from its request rate times $4 bytes per request.
measure_wrk() {
    local name=$1 url=$2 script=$3 bytes=$4 output rps errors
    wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" -s "$script" "$url" >/dev/null
    output=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$script" "$url")
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$output")
    errors=$(grep -E 'Non-2xx|Socket errors' <<<"$output" || true)
    [[ -z $errors ]] || say "$name: errors: $errors"
    RESULTS[$name]=$(awk -v r="$rps" -v b="$bytes" 'BEGIN {printf "%.1f", r * b / 1e6}')
    say "$name: ${RESULTS[$name]} MB/s ($rps req/s)"
}

# pgbench running $2 (a script file) for $3 transactions per client; MB/s from its rate times $4 bytes.
measure_pgbench() {
    local name=$1 script=$2 transactions=$3 bytes=$4 output tps
    output=$("$PG_BIN/pgbench" -h 127.0.0.1 -p "$PG_PORT" -U postgres -n -c "$CONNECTIONS" -j 1 -t "$transactions" \
        -f "$script" "$PG_DB" 2>&1)
    tps=$(awk '/^tps = / {print $3; exit}' <<<"$output")
    [[ -n $tps ]] || die "$name: pgbench failed: $output"
    RESULTS[$name]=$(awk -v r="$tps" -v b="$bytes" 'BEGIN {printf "%.1f", r * b / 1e6}')
    say "$name: ${RESULTS[$name]} MB/s ($tps tps)"
}

prepare_postgres() {
    psql_db postgres -c "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" -c "CREATE DATABASE $PG_DB" >/dev/null
    psql_db "$PG_DB" >/dev/null <<SQL
CREATE TABLE source (id int PRIMARY KEY, data bytea NOT NULL);
CREATE TABLE sink (id bigserial PRIMARY KEY, data bytea NOT NULL);
ALTER TABLE source ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER TABLE sink ALTER COLUMN data SET STORAGE EXTERNAL;
INSERT INTO source VALUES (1, pg_read_binary_file('$WORK_DIR/small.bin')), (2, pg_read_binary_file('$WORK_DIR/large.bin'));
SQL
    for id in 1 2; do
        printf 'INSERT INTO sink (data) SELECT data FROM source WHERE id = %s;\n' "$id" >"$WORK_DIR/write-$id.sql"
        printf 'SELECT length(data), data FROM source WHERE id = %s;\n' "$id" >"$WORK_DIR/read-$id.sql"
    done
}

upload_script() {
    cat >"$WORK_DIR/upload-$1.lua" <<LUA
wrk.method = "POST"
local file = io.open("$WORK_DIR/$1.bin", "rb")
wrk.body = file:read("*a")
file:close()
wrk.headers["X-Parse-Application-Id"] = "$APP_ID"
wrk.headers["X-Parse-Session-Token"] = "$TOKEN"
LUA
    echo "$WORK_DIR/upload-$1.lua"
}

download_script() {
    echo 'wrk.method = "GET"' >"$WORK_DIR/download.lua"
    echo "$WORK_DIR/download.lua"
}


# Samples VmRSS (kB) of the gateway and files every 50 ms into $WORK_DIR/rss until killed.
start_sampler() {
    local gateway files
    gateway=$(pid_of gateway) || die "no gateway pid in $STACK_DIR/run"
    files=$(pid_of files) || die "no files pid in $STACK_DIR/run"
    (
        while true; do
            printf '%s %s\n' "$(awk '/^VmRSS:/ {print $2}' "/proc/$gateway/status")" \
                "$(awk '/^VmRSS:/ {print $2}' "/proc/$files/status")"
            sleep 0.05
        done
    ) >"$WORK_DIR/rss" 2>/dev/null &
    SAMPLER_PID=$!
}

stop_sampler() {
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=
}

measure_memory() {
    local index urls=() before pids=()
    head -c $((20 * 1024 * 1024)) /dev/urandom >"$WORK_DIR/huge.bin"
    before=$(printf '%s %s' "$(awk '/^VmRSS:/ {print $2}' "/proc/$(pid_of gateway)/status")" \
        "$(awk '/^VmRSS:/ {print $2}' "/proc/$(pid_of files)/status")")
    start_sampler
    for ((index = 0; index < PARALLEL; index++)); do
        upload "$WORK_DIR/huge.bin" "${MARKER}_huge$index.bin" >"$WORK_DIR/url-$index" &
        pids+=($!)
    done
    wait "${pids[@]}"
    pids=()
    for ((index = 0; index < PARALLEL; index++)); do
        urls+=("$(cat "$WORK_DIR/url-$index")")
        [[ -n ${urls[$index]} ]] || die "a 20 MB upload failed"
    done
    for ((index = 0; index < PARALLEL; index++)); do
        curl -sf -o "$WORK_DIR/down-$index" "${urls[$index]}" &
        pids+=($!)
    done
    wait "${pids[@]}"
    stop_sampler
    for ((index = 0; index < PARALLEL; index++)); do
        cmp -s "$WORK_DIR/huge.bin" "$WORK_DIR/down-$index" || die "download $index differs from what was uploaded"
    done
    MEMORY=$(awk -v before="$before" 'BEGIN {split(before, b, " ")}
        {if ($1 > g) g = $1; if ($2 > f) f = $2}
        END {printf "gateway %.0f MB (%.0f MB before), files %.0f MB (%.0f MB before)", g / 1024, b[1] / 1024, f / 1024, b[2] / 1024}' \
        "$WORK_DIR/rss")
    say "peak RSS during $PARALLEL parallel 20 MB uploads then downloads: $MEMORY"
}

main() {
    need_wrk
    [[ -x $PG_BIN/pgbench ]] || die "pgbench not found in $PG_BIN (set PARSE_PG_BIN)"
    ensure_stack
    TOKEN=$(session_token)
    [[ -n $TOKEN ]] || die "cannot sign up a user for the uploads"

    head -c $((64 * 1024)) /dev/urandom >"$WORK_DIR/small.bin"
    head -c $((5 * 1024 * 1024)) /dev/urandom >"$WORK_DIR/large.bin"
    local small_url large_url
    small_url=$(upload "$WORK_DIR/small.bin" "${MARKER}_small.bin")
    large_url=$(upload "$WORK_DIR/large.bin" "${MARKER}_large.bin")
    [[ -n $small_url && -n $large_url ]] || die "the sample uploads failed"

    prepare_postgres
    measure_pgbench pg-write-64k "$WORK_DIR/write-1.sql" 500 $((64 * 1024))
    measure_pgbench pg-read-64k "$WORK_DIR/read-1.sql" 500 $((64 * 1024))
    measure_pgbench pg-write-5m "$WORK_DIR/write-2.sql" 25 $((5 * 1024 * 1024))
    measure_pgbench pg-read-5m "$WORK_DIR/read-2.sql" 25 $((5 * 1024 * 1024))

    measure_wrk upload-64k "$BASE/files/${MARKER}_u.bin" "$(upload_script small)" $((64 * 1024))
    measure_wrk upload-5m "$BASE/files/${MARKER}_u.bin" "$(upload_script large)" $((5 * 1024 * 1024))
    measure_wrk download-64k "$small_url" "$(download_script)" $((64 * 1024))
    measure_wrk download-5m "$large_url" "$(download_script)" $((5 * 1024 * 1024))

    measure_memory

    printf '\nfiles bench: wrk -t1 -c%s, %s s per run after %s s of warm-up; pgbench -c%s with fixed counts.\n' \
        "$CONNECTIONS" "$DURATION" "$WARMUP" "$CONNECTIONS"
    printf 'Load average before: %s\n\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-10s %14s %14s %14s %14s %10s %10s\n' size "pg write MB/s" "upload MB/s" "pg read MB/s" \
        "download MB/s" "up/pg" "down/pg"
    local size
    for size in 64k 5m; do
        printf '%-10s %14s %14s %14s %14s %10s %10s\n' "$size" "${RESULTS[pg-write-$size]}" "${RESULTS[upload-$size]}" \
            "${RESULTS[pg-read-$size]}" "${RESULTS[download-$size]}" \
            "$(awk -v a="${RESULTS[upload-$size]}" -v b="${RESULTS[pg-write-$size]}" 'BEGIN {printf "%.2fx", a / b}')" \
            "$(awk -v a="${RESULTS[download-$size]}" -v b="${RESULTS[pg-read-$size]}" 'BEGIN {printf "%.2fx", a / b}')"
    done
    printf '\nmemory: %s\n' "$MEMORY"
}

main "$@"
