#!/usr/bin/env bash
# LiveBenchmark of an older commit against this checkout's, in one session: both built in release (one build at a
# time), then run alternately, old then new, ROUNDS times, so a busy neighbour on a shared machine weighs on both
# alike. Every figure compared is a ratio to a baseline of the same run (send-only throughput, the bare hop to an
# idle queue), never a time on its own.
#
#     scripts/live-benchmark-against.sh COMMIT [ROUNDS] [HOURS]
#
# The older commit is checked out in a temporary worktree (kept in OLD_TREE if set, and reused when it is already
# there at COMMIT). Prints each run's output and a summary, one line a run: throughput as the baseline's share
# (send-only readings/s over pipeline readings/s: the pipeline is that many times slower than sending), p50 and
# p99 as multiples of the bare hop, and resident memory at 1 h and at the end.
set -euo pipefail

old=${1:?usage: scripts/live-benchmark-against.sh COMMIT [ROUNDS] [HOURS]}
rounds=${2:-3}
hours=${3:-24}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d /tmp/ohk-live-against.XXXXXX)
tree=${OLD_TREE:-$work/old}
cleanup() {
    if [ -z "${OLD_TREE:-}" ]; then git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

if [ ! -d "$tree" ] || [ "$(git -C "$tree" rev-parse HEAD)" != "$(git -C "$root" rev-parse "$old^{commit}")" ]; then
    git -C "$root" worktree add --detach "$tree" "$old" >/dev/null
fi
echo "== building LiveBenchmark at $(git -C "$tree" log --oneline -1 | cut -c1-72)"
(cd "$tree" && swift build -c release --product LiveBenchmark 2>&1 | tail -1)
echo "== building LiveBenchmark at $(git -C "$root" log --oneline -1 | cut -c1-72)"
(cd "$root" && swift build -c release --product LiveBenchmark 2>&1 | tail -1)

summary=$work/summary
for round in $(seq 1 "$rounds"); do
    for which in old new; do
        if [ "$which" = old ]; then binary=$tree/.build/release/LiveBenchmark; else binary=$root/.build/release/LiveBenchmark; fi
        echo "== round $round, $which, load $(cut -d' ' -f1-3 /proc/loadavg)"
        output=$("$binary" "$hours")
        echo "$output"
        echo "$output" | awk -v run="$round $which" '
            /^throughput/ { pipeline = $3; baseline = $8 }
            /ratio to the bare hop/ { p50 = $7; p99 = $11 }
            /^memory/ { at1 = $10; atEnd = $15 }
            END { printf "%-9s throughput %.2fx slower than send-only   p50 %s   p99 %s of the bare hop   RSS %s / %s MB\n",
                         run, baseline / pipeline, p50, p99, at1, atEnd }' >>"$summary"
    done
done
echo "== summary (old: $old, new: $(git -C "$root" rev-parse --short HEAD); $hours h sessions)"
cat "$summary"
