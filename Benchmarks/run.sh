#!/usr/bin/env bash
# Runs Taskig's benchmarks: first the ordo-one harness (distributions per benchmark), then
# taskig-bench (the goal table, printed as markdown on standard output).
#
#   ./run.sh            both, about 2.5 minutes on 2 cores once built (the first build
#                       takes about 2 minutes more)
#   ./run.sh --quick    fewer repetitions in taskig-bench
#
# Extra arguments go to taskig-bench (see `swift run -c release taskig-bench --help`).
set -euo pipefail
cd "$(dirname "$0")"
swift package benchmark --no-progress
swift run -c release taskig-bench "$@"
