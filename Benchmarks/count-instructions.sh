#!/usr/bin/env bash
# Counts instructions (valgrind --tool=callgrind) and heap allocations (valgrind --tool=dhat)
# per item for each of issue 12's client shapes and their baselines, for the shapes of rows
# 1, 2 and 8, then for issue 13's (row 12) and their baseline (rows 3–6 and 9 spend their time sleeping, waiting for threads or on I/O,
# which instruction counts do not see). Counts are the same on every run, whatever else the
# machine is doing, so they show whether a change helped when the wall clock is too noisy to
# tell.
#
#   ./count-instructions.sh              every shape
#   ./count-instructions.sh map-chain    one shape
#
# Each shape runs in a process that measures it once, and in one that measures it twice, N
# items each time; the difference, divided by N, is what one item costs, without the
# process's start-up or the set-up before the timing (the closures, say). valgrind cannot read the debug sections
# the toolchain writes, so it runs a copy of taskig-bench without them (the symbol table
# stays, so callgrind_annotate still names functions).
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product taskig-bench >/dev/null
binary=$(mktemp)
trap 'rm -f "$binary" "$binary".out.*' EXIT
objcopy --strip-debug .build/release/taskig-bench "$binary"

# shape, N
shapes=(
    "await-all-throwable 20000"
    "concurrent-perform 20000"
    "map-chain 20000"
    "global-hops 20000"
    "future-fan-out 5000"
    "future-fan-out-main 5000"
    "swift-fan-out 5000"
    "task-await 20000"
    "throwable-task-await 20000"
    "global-async-semaphore 5000"
    "swift-task-value 5000"
    "await-all-prebuilt-tasks 20000"
    "future-async-fan-out 5000"
    "await-all-results 20000"
    "completions 20000"
    "await-all-progress 20000"
)

instructions() { # shape count repetitions
    valgrind --tool=callgrind --callgrind-out-file="$binary.out.cg" "$binary" child shape "$1" "$2" "$3" >/dev/null 2>"$binary.out.log"
    sed -n 's/^==[0-9]*== Collected : //p' "$binary.out.log"
}

allocations() { # shape count repetitions
    valgrind --tool=dhat --dhat-out-file="$binary.out.dhat" "$binary" child shape "$1" "$2" "$3" >/dev/null 2>"$binary.out.log"
    sed -n 's/^==[0-9]*== Total: *[0-9,]* bytes in \([0-9,]*\) blocks/\1/p' "$binary.out.log" | tr -d ,
}

printf '| shape | instructions per item | allocations per item |\n| --- | --- | --- |\n'
for entry in "${shapes[@]}"; do
    read -r shape count <<<"$entry"
    if [[ $# -gt 0 && "$1" != "$shape" ]]; then continue; fi
    i1=$(instructions "$shape" "$count" 1)
    i2=$(instructions "$shape" "$count" 2)
    a1=$(allocations "$shape" "$count" 1)
    a2=$(allocations "$shape" "$count" 2)
    printf '| %s | %s | %s |\n' "$shape" \
        "$(awk -v a="$i1" -v b="$i2" -v n="$count" 'BEGIN { printf "%.0f", (b - a) / n }')" \
        "$(awk -v a="$a1" -v b="$a2" -v n="$count" 'BEGIN { printf "%.2f", (b - a) / n }')"
done
