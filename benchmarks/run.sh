#!/usr/bin/env bash
# Measures hwtool's native calls and start-up against references taken in the same run, and
# prints (and writes to benchmarks/results.md) a Markdown table with the ratios and targets:
#   * C reference (src/main/c/cpuid_loop.c, gcc -O2): CPUID, RDTSC, pread, syscall(getpid);
#   * JMH (target/benchmarks.jar): the same calls through FfmBinding and JnaBinding;
#   * perf (issue 5), C reference src/main/c/perf_loop.c against JMH (-prof gc): a counter read(2)
#     (PerfReadBench), rdpmc self-monitoring (PerfRdpmcBench, only where RdpmcTarget says the PMU
#     allows it; otherwise the reason is reported) and ring-buffer parsing (PerfParseBench) over the
#     bytes PerfRecordBuffers writes, which perf_loop parses too;
#   * start-up: issue 13's one-shot commands through ./hwtool against a hello-world started the
#     same way (java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp DIR Hello), and `hwtool batch`
#     of 200 lines against one of those lines run alone;
#   * the MSR read path, in a QEMU guest (this machine has no msr driver): MsrReadBenchIT boots
#     one guest that runs src/main/c/msr_read_loop.c, dev.hwtool.bench.MsrReadLoop (FFM, JNA,
#     in-process `hwtool rdmsr -a`) and the C loop again.
# Timings are reported, never asserted. About 10 minutes on a 2-core VM (the guest: 4-5).
#
# Environment overrides:
#   JAVA_HOME        JDK >= 22 to build and run with (default: the first found, as ./hwtool does)
#   JMH_OPTS         JMH options (default: -f 1 -wi 3 -w 1s -i 5 -r 1s)
#   JMH_INCLUDE      benchmark regex for the native-call benchmarks (default: the Cpuid, Call and Source benches;
#                    SimBranchBench, the simulator's throughput, always runs separately with -prof gc)
#   C_SCALE, C_RUNS  C reference iteration-count multiplier (1) and timed runs per pass (5)
#   STARTUP_ROUNDS, STARTUP_WARMUP   round-robin rounds (20) and warm-up rounds (3)
#   MSR_SCALE, MSR_RUNS, MSR_WARMUPS   the guest loops' iteration-count multiplier (1), timed runs (5)
#                    and the Java side's warm-up runs (10)
#   SKIP_BUILD=1     reuse the jars already built; SKIP_STARTUP=1 leaves start-up out;
#   SKIP_MSR=1       leaves the QEMU guest out; SKIP_CALLS=1 the native calls (cpuid_loop and their JMH);
#   SKIP_SIM=1       the simulator's throughput; SKIP_PERF=1 the perf benchmarks
#   RESULTS          where the report goes (default benchmarks/results.md; a partial run is better
#                    written elsewhere, e.g. RESULTS=benchmarks/target/run/results.md)
set -euo pipefail

bench=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(dirname "$bench")
out=$bench/target/run
mkdir -p "$out"

die() { printf 'run.sh: %s\n' "$*" >&2; exit 1; }
say() { printf '\n== %s\n' "$*" >&2; }

jdk_version() {
    local v
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null) || true
    printf '%s' "${v:-0}"
}

find_jdk() {
    local h
    for h in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
        if [ -n "$h" ] && [ -x "$h/bin/javac" ] && [ "$(jdk_version "$h")" -ge 22 ]; then
            printf '%s' "$h"
            return 0
        fi
    done
    return 1
}

jdk=$(find_jdk) || die "no JDK 22 or newer found (JAVA_HOME, /usr/lib/jvm/*)"
export JAVA_HOME=$jdk
java=$jdk/bin/java
for tool in gcc python3; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is needed (apt-get install $tool)"
done

# --- build ------------------------------------------------------------------------------------
# The JMH jar serves every part but start-up (which runs ./hwtool, built by the launcher).
needs_jmh=0
for part in CALLS SIM PERF MSR; do
    v=SKIP_$part
    [ "${!v:-0}" = 1 ] || needs_jmh=1
done
if [ "${SKIP_BUILD:-0}" != 1 ] && [ "$needs_jmh" = 1 ]; then
    say "building benchmarks.jar (mvn -pl benchmarks -am package)"
    (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
        mvn -B -q -pl benchmarks -am package -DskipTests) || die "maven build failed"
fi
[ "$needs_jmh" = 0 ] || [ -f "$bench/target/benchmarks.jar" ] || die "benchmarks/target/benchmarks.jar is missing (run without SKIP_BUILD)"

say "compiling the C references (gcc -O2)"
gcc -O2 -Wall -Wextra -o "$out/cpuid_loop" "$bench/src/main/c/cpuid_loop.c"
gcc -O2 -Wall -Wextra -o "$out/perf_loop" "$bench/src/main/c/perf_loop.c"
results=${RESULTS:-$bench/results.md}
jvm=("$java" --enable-native-access=ALL-UNNAMED)

perf_jmh_include='dev\.hwtool\.bench\.Perf(Read|Parse)Bench\..*'
if [ "${SKIP_PERF:-0}" != 1 ]; then
    # The bytes both parsers walk, and whether this machine lets user space RDPMC (the library's
    # own guards decide; the C loop checks again for itself).
    "${jvm[@]}" -cp "$bench/target/benchmarks.jar" dev.hwtool.bench.PerfRecordBuffers "$out/records"
    "${jvm[@]}" -cp "$bench/target/benchmarks.jar" dev.hwtool.bench.RdpmcTarget >"$out/rdpmc-probe.txt"
    if [ "$(cut -f1 "$out/rdpmc-probe.txt")" = available ]; then
        perf_jmh_include='dev\.hwtool\.bench\.Perf(Read|Parse|Rdpmc)Bench\..*'
    else
        printf 'run.sh: PerfRdpmcBench not run: %s\n' "$(cut -f2- "$out/rdpmc-probe.txt")" >&2
    fi
fi

tmpfile=$(mktemp "${TMPDIR:-/tmp}/hwtool-bench.XXXXXX")
trap 'rm -f "$tmpfile"' EXIT
printf '\1\2\3\4\5\6\7\10' >"$tmpfile"

c_pass() {
    if [ "${SKIP_CALLS:-0}" != 1 ]; then
        say "C reference, pass $1"
        "$out/cpuid_loop" "$tmpfile" "${C_SCALE:-1}" "${C_RUNS:-5}" | tee "$out/c-$1.tsv" >&2
    fi
    if [ "${SKIP_PERF:-0}" != 1 ]; then
        say "C reference (perf), pass $1"
        "$out/perf_loop" "$out/records" "${C_SCALE:-1}" "${C_RUNS:-5}" | tee "$out/perf-c-$1.tsv" >&2
    fi
}

# --- C, JMH, C: the reference is taken on both sides of JMH so that drift shows ------------------
c_pass 1

: "${JMH_OPTS:=-f 1 -wi 3 -w 1s -i 5 -r 1s}"
report_args=()
if [ "${SKIP_CALLS:-0}" != 1 ]; then
    say "JMH ($JMH_OPTS)"
    # shellcheck disable=SC2086  # JMH_OPTS is a list of options
    "${jvm[@]}" -jar "$bench/target/benchmarks.jar" \
        $JMH_OPTS -rf json -rff "$out/jmh.json" "${JMH_INCLUDE:-dev\.hwtool\.bench\.(Cpuid|Call|Source)Bench\..*}" >"$out/jmh.log" 2>&1 \
        || { tail -n 40 "$out/jmh.log" >&2; die "JMH failed (log: $out/jmh.log)"; }
    sed -n '/^Benchmark /,$p' "$out/jmh.log" >&2
    report_args+=(--jmh "$out/jmh.json")
fi
if [ "${SKIP_SIM:-0}" != 1 ]; then
    say "JMH, simulator throughput (SimBranchBench, -prof gc)"
    # shellcheck disable=SC2086
    "${jvm[@]}" -jar "$bench/target/benchmarks.jar" \
        $JMH_OPTS -prof gc -rf json -rff "$out/jmh-sim.json" 'dev\.hwtool\.bench\.SimBranchBench\..*' >"$out/jmh-sim.log" 2>&1 \
        || { tail -n 40 "$out/jmh-sim.log" >&2; die "JMH failed (log: $out/jmh-sim.log)"; }
    sed -n '/^Benchmark /,$p' "$out/jmh-sim.log" | grep -v 'gc\.' >&2
    report_args+=(--sim "$out/jmh-sim.json")
fi
if [ "${SKIP_PERF:-0}" != 1 ]; then
    say "JMH, perf counter reads and ring parsing (-prof gc)"
    # shellcheck disable=SC2086
    "${jvm[@]}" -jar "$bench/target/benchmarks.jar" \
        $JMH_OPTS -prof gc -rf json -rff "$out/jmh-perf.json" "$perf_jmh_include" >"$out/jmh-perf.log" 2>&1 \
        || { tail -n 40 "$out/jmh-perf.log" >&2; die "JMH failed (log: $out/jmh-perf.log)"; }
    sed -n '/^Benchmark /,$p' "$out/jmh-perf.log" | grep -v 'gc\.' >&2
fi

c_pass 2

# --- MSR read path, in a QEMU guest ------------------------------------------------------------
msr_args=()
if [ "${SKIP_MSR:-0}" != 1 ]; then
    say "MSR read path in a QEMU guest (MsrReadBenchIT: C, Java, C in one boot; minutes under TCG)"
    gcc -O2 -Wall -Wextra -o "$out/msr_read_loop" "$bench/src/main/c/msr_read_loop.c"
    rm -f "$out/msr-read.tsv"
    # The IT is excluded from the normal verify; naming it (it.test) and the switch run it alone.
    (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
        mvn -B -q -pl hwtool-cli -am verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
        -Dit.test=MsrReadBenchIT -Dhwtool.bench.msr=true \
        -Dhwtool.bench.msr.c="$out/msr_read_loop" -Dhwtool.bench.msr.jar="$bench/target/benchmarks.jar" \
        -Dhwtool.bench.msr.out="$out/msr-read.tsv" -Dhwtool.bench.msr.scale="${MSR_SCALE:-1}" \
        -Dhwtool.bench.msr.runs="${MSR_RUNS:-5}" -Dhwtool.bench.msr.warmups="${MSR_WARMUPS:-10}") \
        >"$out/msr-bench.log" 2>&1 \
        || { tail -n 40 "$out/msr-bench.log" >&2; die "MsrReadBenchIT failed (log: $out/msr-bench.log)"; }
    if [ -f "$out/msr-read.tsv" ]; then
        grep -v '^# warm-up' "$out/msr-read.tsv" >&2
        msr_args=(--msr "$out/msr-read.tsv")
    else
        # Skipped: no qemu, kernel or busybox-static here. The reason is in the failsafe report.
        printf 'run.sh: MsrReadBenchIT measured nothing; the MSR rows are left out:\n' >&2
        cat "$root"/hwtool-cli/target/failsafe-reports/*MsrReadBenchIT.txt >&2 2>/dev/null || tail -n 20 "$out/msr-bench.log" >&2
    fi
fi

# --- start-up ---------------------------------------------------------------------------------
startup_args=()
if [ "${SKIP_STARTUP:-0}" != 1 ]; then
    say "start-up: building hello.jar and making sure ./hwtool is built"
    hello=$out/hello
    rm -rf "$hello" && mkdir -p "$hello/classes"
    "$jdk/bin/javac" -d "$hello/classes" "$bench/src/startup/Hello.java"
    "$jdk/bin/jar" --create --file "$hello/hello.jar" --main-class Hello -C "$hello/classes" .
    # The reference of the start-up targets: hello-world started as the launcher starts hwtool
    # (same JDK, -XX:TieredStopAtLevel=1 -XX:+UseSerialGC, class path, no AOT cache).
    cmds=(--cmd "hello::$(printf '%q -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp %q Hello' "$java" "$hello/classes")")
    cmds+=(--cmd "hello -jar, default flags::$(printf '%q -jar %q' "$java" "$hello/hello.jar")")
    if [ "$(jdk_version "$jdk")" -ge 25 ]; then
        # JEP 514 one-step training; the cache belongs to this jar only (JDK-8377932: a stale cache is used silently before 25.0.4; docs/facts.md §2.2).
        "$java" -XX:AOTCacheOutput="$hello/hello.aot" -Xlog:aot=off -Xlog:cds=off -jar "$hello/hello.jar" >/dev/null
        cmds+=(--cmd "hello+aot::$(printf '%q -XX:AOTCache=%q -Xlog:aot=off -Xlog:cds=off -jar %q' \
            "$java" "$hello/hello.aot" "$hello/hello.jar")")
        # The floor of a command that touches the machine: hello plus the one downcall shape
        # hwtool links (FfmBinding.Raw), with its own AOT cache and the launcher's JVM flags.
        "$jdk/bin/javac" -d "$hello/downcall" "$bench/src/startup/HelloDowncall.java"
        "$jdk/bin/jar" --create --file "$hello/downcall.jar" --main-class HelloDowncall -C "$hello/downcall" .
        ffm_flags="--enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"
        # shellcheck disable=SC2086  # the flags are words
        "$java" $ffm_flags -XX:AOTCacheOutput="$hello/downcall.aot" -Xlog:aot=off -Xlog:cds=off -jar "$hello/downcall.jar" >/dev/null
        cmds+=(--cmd "hello+downcall+aot::$(printf '%q %s -XX:AOTCache=%q -Xlog:aot=off -Xlog:cds=off -jar %q' \
            "$java" "$ffm_flags" "$hello/downcall.aot" "$hello/downcall.jar")")
    fi
    # The launcher builds hwtool.jar (and its AOT cache) when stale; do that now, untimed.
    if "$root/hwtool" --version >/dev/null 2>"$out/hwtool-build.log"; then
        # Issue 13's one-shot commands, as a user runs them (through ./hwtool).
        mapfile -t one_shot < <(grep -v '^#' "$bench/scripts/one-shot-commands")
        for c in "${one_shot[@]}"; do
            "$root/hwtool" $c >/dev/null 2>&1 || printf 'run.sh: note: ./hwtool %s exits %d here\n' "$c" "$?" >&2
            cmds+=(--cmd "hwtool $c::./hwtool $c")
        done
        # hwtool batch: 200 lines of one command in one JVM, against that command run once: the
        # msr-tools drop-in (no picocli) and a picocli command that reads this machine's CPUID.
        n=0
        for batch_cmd in "rdmsr --backend sim --profile skylake 0x1d9" "msr decode IA32_DEBUGCTL 0x1"; do
            n=$((n + 1))
            for _ in $(seq 200); do printf '%s\n' "$batch_cmd"; done >"$out/batch-200-$n.txt"
            cmds+=(--cmd "batch of 200 × $batch_cmd::./hwtool batch $(printf '%q' "$out/batch-200-$n.txt")")
        done
        # The launcher's JVM command without the script around it (JDK lookup, staleness check,
        # the AOT key check), to show how the time splits. Same flags as ./hwtool passes.
        # Each with the AOT cache of its family, as ./hwtool picks it (AotTrainCommand.FAMILIES).
        jar=$root/hwtool-cli/target/hwtool.jar
        direct=$(printf '%q --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData' "$java")
        key=$root/hwtool-cli/target/aot/key
        direct_caps=$direct direct_version=$direct
        if [ -f "$key" ]; then
            cache=$root/hwtool-cli/target/aot/$(cut -d' ' -f2 "$key")
            direct_caps+=$(printf ' -XX:AOTCache=%q -Xlog:aot=off -Xlog:cds=off' "${cache%.aot}-caps.aot")
            direct_version+=$(printf ' -XX:AOTCache=%q -Xlog:aot=off -Xlog:cds=off' "${cache%.aot}-version.aot")
        fi
        cmds+=(--cmd "jar caps, no launcher::$direct_caps -jar $(printf '%q' "$jar") caps"
               --cmd "jar --version, no launcher::$direct_version -jar $(printf '%q' "$jar") --version")
    else
        printf 'run.sh: ./hwtool does not build or run here; start-up rows for it are left out:\n' >&2
        tail -n 20 "$out/hwtool-build.log" >&2
    fi
    say "start-up, round-robin"
    python3 "$bench/scripts/startup.py" --cwd "$root" --rounds "${STARTUP_ROUNDS:-20}" \
        --warmup "${STARTUP_WARMUP:-3}" --out "$out/startup.json" "${cmds[@]}"
    startup_args=(--startup "$out/startup.json")
fi

# --- report -----------------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
hv=$(grep -qw hypervisor /proc/cpuinfo && printf ', hypervisor bit set' || true)
# report.py says what the machine is (a VM, with or without an msr driver) from this line only.
msrdrv=$([ -e /dev/cpu/0/msr ] && printf ', msr driver loaded' || printf ', no msr driver')
env_line="Machine: ${cpu:-unknown CPU}, $(nproc) CPUs${hv}${msrdrv}, Linux $(uname -r); $("$java" -version 2>&1 | head -n 1); $(gcc --version | head -n 1); $(date -u '+%Y-%m-%d %H:%M UTC')."
say "report"
if [ "${SKIP_CALLS:-0}" != 1 ]; then
    report_args+=(--c "$out/c-1.tsv" "$out/c-2.tsv")
fi
if [ "${SKIP_PERF:-0}" != 1 ]; then
    report_args+=(--perf-c "$out/perf-c-1.tsv" "$out/perf-c-2.tsv" --perf-jmh "$out/jmh-perf.json"
                  --rdpmc-probe "$out/rdpmc-probe.txt")
fi
python3 "$bench/scripts/report.py" "${report_args[@]}" \
    "${startup_args[@]}" "${msr_args[@]}" --root "$root" --env "$env_line" --out "$results"
printf '\n\n(written to %s)\n' "$results" >&2
# README.md's performance section is this run's machine line and targets table, copied by a script.
if [ "$results" = "$bench/results.md" ]; then
    python3 "$bench/scripts/readme.py" --results "$results" --readme "$root/README.md"
fi
