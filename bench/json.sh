#!/usr/bin/env bash
# Times the JSON coders on the messages of the hot paths (a rest.v1 command, its reply, a votes.apply.v1 round)
# in a release build: JSONValueEncoder/JSONValueDecoder, the messages' one coder, beside Foundation's
# JSONEncoder/JSONDecoder, in one run. BENCH_ITERATIONS, BENCH_ROUNDS, BENCH_ONLY: see bench/json.md.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
swift build -c release --product json-bench >&2
exec .build/release/json-bench
