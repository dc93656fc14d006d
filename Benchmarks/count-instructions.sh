#!/usr/bin/env bash
# Counts instructions (valgrind --tool=callgrind) and heap allocations (valgrind --tool=dhat)
# per item for each of issue 12's client shapes and their baselines, for the shapes of rows
# 1, 2 and 8, then for issue 13's (row 12) and their baseline, for issue 19's stored-task
# wait (row 13a) and its fresh-task baseline, and for issue 21's row 10a (rows 3–6 and 9
# spend their time sleeping, waiting for threads or on I/O, which instruction counts do not
# see). Counts are the same on
# every run, whatever else the machine is doing, so they show whether a change helped when
# the wall clock is too noisy to tell.
#
#   ./count-instructions.sh              every shape
#   ./count-instructions.sh map-chain    one shape (map-chain: at 10k, 100k and 1M links, and
#                                        whether its count per link is flat, row 7c)
#   ./count-instructions.sh stored-throwable-awaits fresh-throwable-awaits
#                                        some shapes (row 13a: 10,000 stored tasks awaited in
#                                        a loop, and a fresh task's wait), ~1 min
#   ./count-instructions.sh make-throwable-tasks await-all-made-tasks concurrent-perform
#                                        row 10a (issue 21), at 100k and 1M: making and dropping
#                                        `ThrowableTask { i &* 2 }`s, the same tasks awaited with
#                                        `awaitAll()` (the difference is awaitAll's own cost),
#                                        and `concurrentPerform` per closure, ~10 min
#   ./count-instructions.sh callback-task-await callback-throwable-task-await
#                                        a callback task's run (issue 27: what watching its
#                                        handler for a drop costs)
#
# Each shape runs in a process that measures it once, and in one that measures it twice (a
# map chain: three times), N items each time; the difference, divided by the items the second
# process measured more, is what one item costs, without the
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
    "map-chain 10000"
    "map-chain 100000"
    "map-chain 1000000"
    "global-hops 20000"
    "future-fan-out 5000"
    "future-fan-out-main 5000"
    "swift-fan-out 5000"
    "task-await 20000"
    "throwable-task-await 20000"
    "callback-task-await 20000"
    "callback-throwable-task-await 20000"
    "global-async-semaphore 5000"
    "swift-task-value 5000"
    "await-all-prebuilt-tasks 20000"
    "future-async-fan-out 5000"
    "await-all-results 20000"
    "completions 20000"
    "await-all-progress 20000"
    "stored-throwable-awaits 10000"
    "fresh-throwable-awaits 10000"
    "recursive-countdown 10000"
    "recursive-countdown 100000"
    "recursive-countdown 1000000"
    "reassigned-countdown 10000"
    "make-throwable-tasks 100000"
    "await-all-made-tasks 100000"
    "concurrent-perform 100000"
    "make-throwable-tasks 1000000"
    "await-all-made-tasks 1000000"
    "concurrent-perform 1000000"
)

instructions() { # shape count repetitions
    valgrind --tool=callgrind --callgrind-out-file="$binary.out.cg" "$binary" child shape "$1" "$2" "$3" >/dev/null 2>"$binary.out.log"
    sed -n 's/^==[0-9]*== Collected : //p' "$binary.out.log"
}

allocations() { # shape count repetitions
    valgrind --tool=dhat --dhat-out-file="$binary.out.dhat" "$binary" child shape "$1" "$2" "$3" >/dev/null 2>"$binary.out.log"
    sed -n 's/^==[0-9]*== Total: *[0-9,]* bytes in \([0-9,]*\) blocks/\1/p' "$binary.out.log" | tr -d ,
}

chain_counts=()
printf '| shape | items | instructions per item | allocations per item |\n| --- | --- | --- | --- |\n'
for entry in "${shapes[@]}"; do
    read -r shape count <<<"$entry"
    if [[ $# -gt 0 && " $* " != *" $shape "* ]]; then continue; fi
    # A chain's second build reuses the first one's freed bodies, and which of glibc's paths
    # that takes changes from one round to the next (at 100k links: 836, 648 and 817
    # instructions per link for rounds 2, 3 and 4), so chains count two rounds after the first.
    rounds=2
    if [[ "$shape" == map-chain ]]; then rounds=3; fi
    i1=$(instructions "$shape" "$count" 1)
    i2=$(instructions "$shape" "$count" "$rounds")
    a1=$(allocations "$shape" "$count" 1)
    a2=$(allocations "$shape" "$count" "$rounds")
    items=$((count * (rounds - 1)))
    per_item=$(awk -v a="$i1" -v b="$i2" -v n="$items" 'BEGIN { printf "%.1f", (b - a) / n }')
    if [[ "$shape" == map-chain ]]; then chain_counts+=("$per_item"); fi
    printf '| %s | %s | %.0f | %s |\n' "$shape" "$count" "$per_item" \
        "$(awk -v a="$a1" -v b="$a2" -v n="$items" 'BEGIN { printf "%.2f", (b - a) / n }')"
done

# Row 7c's linearity: a link of a chain costs as many instructions at 1M links as at 10k, give
# or take glibc's paths (see above); a cost that grew with the length, even as its logarithm
# (+50% from 10k to 1M), would be out of ±20%. (The wall clock does not show linearity: out of
# the cache, or with its bodies out of order in memory, the same run takes two to four times
# as long.)
if [[ ${#chain_counts[@]} -gt 1 ]]; then
    printf '%s\n' "${chain_counts[@]}" | awk '
        { count[NR] = $1; sum += $1 }
        END {
            mean = sum / NR
            for (i = 1; i <= NR; i++) { d = count[i] / mean - 1; if (d * d > worst * worst) worst = d }
            printf "\nmap-chain, instructions per link at 10k / 100k / 1M links: worst %+.2f%% from their mean; goal: linear, within ±20%%: %s\n",
                worst * 100, (worst < 0.20 && worst > -0.20) ? "met" : "NOT MET"
        }'
fi
