#!/usr/bin/env bash
# What a `hwtool exporter` scrape costs on this machine, and how it grows with CPUs and MSRs:
#   * JMH (ExporterScrapeBench): collection + text exposition, per scrape, against the number of
#     CPUs (8..1024, registers answered from memory) and of selected MSRs (1, 4, 16); and a whole
#     scrape of the simulated Skylake with its verdicts judged again from /proc and /sys;
#   * end to end over HTTP: curl against running exporters (the simulated Skylake with 3 MSRs,
#     and this host's hardware backend), wall time per scrape and the exporter's CPU time per
#     scrape (utime+stime from /proc/PID/stat over the scrapes).
# Scratch figures: written to benchmarks/target/run/exporter-scrape.md (not to results.md).
# SKIP_BUILD=1 reuses the jars; SCRAPES (default 200) scrapes per exporter; JMH_OPTS as run.sh.
set -euo pipefail

bench=$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")
root=$(dirname "$bench")
out=$bench/target/run
mkdir -p "$out"
java=${JAVA_HOME:-$(ls -d /usr/lib/jvm/*25* | head -1)}/bin/java
scrapes=${SCRAPES:-200}

if [ -z "${SKIP_BUILD:-}" ]; then
    (cd "$root" && mvn -B -q -pl benchmarks -am -DskipTests -Daot.skip=true package)
fi

# shellcheck disable=SC2086
"$java" --enable-native-access=ALL-UNNAMED -jar "$bench/target/benchmarks.jar" ExporterScrapeBench \
    ${JMH_OPTS:--f 1 -wi 3 -w 1s -i 5 -r 1s} -rf json -rff "$out/exporter-scrape.json" > "$out/exporter-scrape-jmh.txt"

clk=$(getconf CLK_TCK)
http_row() { # name, args...
    local name=$1 port line pid t0 t1 c0 c1 err
    shift
    err=$out/exporter-$name.err
    "$java" --enable-native-access=ALL-UNNAMED -jar "$root/hwtool-cli/target/hwtool.jar" exporter \
        --listen 127.0.0.1:0 "$@" 2> "$err" &
    pid=$!
    for _ in $(seq 100); do
        line=$(grep -o 'http://[^ ]*/metrics' "$err" || true)
        [ -n "$line" ] && break
        sleep 0.2
    done
    [ -n "$line" ] || { echo "exporter $name did not start: $(cat "$err")" >&2; kill "$pid"; return 1; }
    for _ in $(seq 20); do curl -s -o /dev/null "$line"; done # warm-up
    c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    t0=$(date +%s%N)
    for _ in $(seq "$scrapes"); do curl -s -o /dev/null "$line"; done
    t1=$(date +%s%N)
    c1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    awk -v n="$name" -v s="$scrapes" -v dt=$((t1 - t0)) -v dc=$((c1 - c0)) -v hz="$clk" \
        'BEGIN { printf "| %s | %.2f ms | %.2f ms |\n", n, dt / s / 1e6, dc / hz / s * 1e3 }'
}

{
    echo "# hwtool exporter: scrape cost (scratch, $(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "Machine: $(nproc) CPUs, $(uname -r); $("$java" -version 2>&1 | head -1)."
    echo
    echo "## JMH: collection + text exposition per scrape (µs, average ± error)"
    echo
    python3 - "$out/exporter-scrape.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
print("| benchmark | CPUs | MSRs | series | µs/scrape |")
print("|---|---|---|---|---|")
for r in rows:
    p = r.get("params", {})
    cpus, msrs = p.get("cpus", "8 (sim)"), p.get("msrs", "3")
    series = int(cpus) * int(msrs) if "cpus" in p else 8 * 3
    m = r["primaryMetric"]
    print(f"| {r['benchmark'].rsplit('.', 1)[1]} | {cpus} | {msrs} | {series} | {m['score']:.1f} ± {m['scoreError']:.1f} |")
PY
    echo
    echo "## HTTP, end to end ($scrapes scrapes each, curl on the same machine)"
    echo
    echo "| exporter | wall per scrape | exporter CPU per scrape |"
    echo "|---|---|---|"
    http_row sim-skylake-3-msrs --backend sim --profile skylake --msr IA32_APERF --msr IA32_MPERF --msr IA32_MISC_ENABLE
    http_row host-hw --backend hw
} > "$out/exporter-scrape.md"
cat "$out/exporter-scrape.md"
