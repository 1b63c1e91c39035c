#!/usr/bin/env bash
# `hwtool lbr report` of a large LBR recording against `perf script -F brstack` over the same file,
# in one run (issue 23, "Speed": target at most half perf script's time):
#   * makes the recording once with the simulator (default a ~200 MB calltree recording of
#     32-entry stacks: LBR_PERIOD, LBR_WORKLOAD) unless FILE already exists;
#   * reads it once into the page cache, then times RUNS rounds (default 7), round-robin:
#     perf script -F brstack -i FILE > /dev/null, ./hwtool lbr report FILE, ./hwtool lbr report
#     --json FILE (both > /dev/null, start-up included, through the launcher and its AOT cache);
#   * prints a Markdown table of wall (median, min) and CPU (user + system, median) milliseconds
#     and the ratios of the medians to perf script's, and writes
#     it to benchmarks/target/run/lbr-report.md (scratch, not results.md). No time is asserted.
# Environment: FILE (default benchmarks/target/run/lbr-report.data), RUNS, PERF (default
# /usr/bin/perf), LBR_PERIOD (-c, default 50), LBR_WORKLOAD (the simulator's workload).
set -euo pipefail

bench=$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")
root=$(dirname "$bench")
out=$bench/target/run
mkdir -p "$out"
file=${FILE:-$out/lbr-report.data}
runs=${RUNS:-7}
perf=${PERF:-/usr/bin/perf}
period=${LBR_PERIOD:-50}
workload=${LBR_WORKLOAD:-calltree seed=1 depth=8 fanout=3 calls=5000000}

die() { printf 'lbr_report.sh: %s\n' "$*" >&2; exit 1; }
[ -x "$perf" ] || die "$perf is missing (apt-get install linux-perf)"

if [ ! -f "$file" ]; then
    printf 'lbr_report.sh: recording %s (-c %s -- %s) ...\n' "$file" "$period" "$workload" >&2
    # shellcheck disable=SC2086
    "$root/hwtool" lbr record --backend sim --profile skylake -c "$period" -o "$file" -- $workload >&2
fi
[ -s "$file" ] || die "no recording at $file"
size=$(stat -c %s "$file")

cat "$file" > /dev/null # into the page cache: every tool below reads it from memory
"$root/hwtool" lbr report "$file" -n 3 > "$out/lbr-report.txt"
"$perf" script -F brstack -i "$file" 2>/dev/null | head -c 0 || true

declare -A times cpus
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
run() { # name, command...
    local name=$1 cpu
    shift
    # wall and CPU (user + system) seconds: on a shared machine the CPU time is the steadier figure
    /usr/bin/time -f '%e %U %S' -o "$out/lbr-report.time" "$@" > /dev/null 2>&1 || die "$name failed: $*"
    read -r wall user sys < "$out/lbr-report.time"
    times[$name]+="$(awk -v w="$wall" 'BEGIN {printf "%d", w * 1000}') "
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1000}')
    cpus[$name]+="$cpu "
}
for _ in $(seq "$runs"); do
    run perf "$perf" script -F brstack -i "$file"
    run text "$root/hwtool" lbr report "$file"
    run json "$root/hwtool" lbr report --json "$file"
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
minimum() { tr ' ' '\n' <<<"$1" | grep . | sort -n | head -1; }
pm=$(median "${times[perf]}")
{
    printf '%s\n\n' "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, Linux $(uname -r); $("$perf" --version); $(date -u '+%Y-%m-%d %H:%M UTC')."
    printf 'File: %s, %d MB, %s samples (hwtool lbr report header). %s rounds, page cache warm.\n\n' \
        "$(basename "$file")" $((size / 1000000)) "$(sed -n 's/.* \([0-9][0-9]*\) samples.*/\1/p' "$out/lbr-report.txt" | head -1)" "$runs"
    pc=$(median "${cpus[perf]}")
    printf '| command | wall median ms | wall min ms | CPU median ms | wall ratio | CPU ratio |\n|---|---|---|---|---|---|\n'
    for n in perf text json; do
        case $n in
            perf) label="perf script -F brstack -i FILE > /dev/null" ;;
            text) label="./hwtool lbr report FILE > /dev/null" ;;
            json) label="./hwtool lbr report --json FILE > /dev/null" ;;
        esac
        m=$(median "${times[$n]}")
        c=$(median "${cpus[$n]}")
        printf '| `%s` | %s | %s | %s | %s× | %s× |\n' "$label" "$m" "$(minimum "${times[$n]}")" "$c" \
            "$(awk -v a="$m" -v b="$pm" 'BEGIN {printf "%.2f", a / b}')" \
            "$(awk -v a="$c" -v b="$pc" 'BEGIN {printf "%.2f", a / b}')"
    done
} | tee "$out/lbr-report.md"
