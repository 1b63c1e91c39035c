#!/usr/bin/env python3
"""Turns one run's measurements into the Markdown table for the README.

Inputs (all from the same benchmarks/run.sh invocation):
  --c FILE ...    output of cpuid_loop (name, iterations, best, median, every run's ns/op);
                  several files (passes before and after JMH) are pooled
  --jmh FILE      JMH JSON (-rf json)
  --startup FILE  startup.py JSON
  --msr FILE      MsrReadBenchIT's file: msr_read_loop (C) and MsrReadLoop (Java) lines, same
                  format as cpuid_loop's, from one QEMU guest boot, plus '#' lines describing it
  --perf-c FILE ...  output of perf_loop (same format; '# name: not measured here: reason' lines
                  for what this machine cannot run), passes pooled
  --perf-jmh FILE JMH JSON of PerfReadBench, PerfParseBench (and PerfRdpmcBench), run with -prof gc
  --rdpmc-probe FILE  RdpmcTarget's verdict: 'available' or 'unavailable<TAB>reason'
Every input is optional but --out; a section whose inputs are missing is left out.
Ratios compare best with best (the least-disturbed sample of each side: C runs, JMH measurement
iterations) and, beside it, median with median. Verdicts use best/best for per-call costs and
medians for start-up (a user meets the median, not the best run).
"""
import argparse
import json
import math
import statistics
import sys

# (C reference name, JMH benchmark, label) in table order.
CALLS = [
    ("cpuidLeaf0", "CpuidBench.cpuidLeaf0", "CPUID leaf 0, stub"),
    ("cpuidLeaf1", "CpuidBench.cpuidLeaf1", "CPUID leaf 1, stub"),
    ("deviceLeaf0", "CpuidBench.deviceLeaf0", "CPUID leaf 0, pread /dev/cpu/0/cpuid"),
    ("deviceLeaf1", "CpuidBench.deviceLeaf1", "CPUID leaf 1, pread /dev/cpu/0/cpuid"),
    ("rdtsc", "CallBench.rdtsc", "RDTSC, stub"),
    ("preadTmpfile8", "CallBench.preadTmpfile8", "pread 8 B of a tmpfile"),
    ("syscallGetpid", "CallBench.syscallGetpid", "syscall(SYS_getpid)"),
    # The library's CPUID sources, against the C cost of the operation they wrap.
    ("deviceLeaf0", "SourceBench.deviceSourceLeaf0", "CPUID leaf 0, `DeviceCpuidSource.cpuid(0, 0, 0)`"),
    ("cpuidLeaf0", "SourceBench.instructionSourceLeaf0",
     "CPUID leaf 0, `InstructionCpuidSource.cpuid(0, 0, 0)` (pins, checks, restores)"),
]
BY_BENCH = {bench: (cname, label) for cname, bench, label in CALLS}
CPUID_STUB_TARGETS = ["CpuidBench.cpuidLeaf0", "CpuidBench.cpuidLeaf1"]
FFM_JNA_TARGETS = ["CallBench.rdtsc", "CallBench.preadTmpfile8", "CallBench.syscallGetpid"]

# The MSR read path, measured in a QEMU guest (MsrReadBenchIT): (Java operation, C reference, label).
MSR_ROWS = [
    ("ffmRead", "msrRead", "`DeviceMsrAccess.read(0, MSR)`, FFM"),
    ("jnaRead", "msrRead", "`DeviceMsrAccess.read(0, MSR)`, JNA"),
    ("ffmPread", "msrRead", "`NativeBinding.pread` 8 B of /dev/cpu/0/msr, FFM"),
    ("jnaPread", "msrRead", "`NativeBinding.pread` 8 B of /dev/cpu/0/msr, JNA"),
    ("ffmReadAll", "msrReadAll", "`DeviceMsrAccess.read(cpu, MSR)` on every CPU, nodes held open (FFM)"),
    ("ffmSessionAll", "msrReadAllOpen",
     "`rdmsr -a` without its command line: `LinuxPlatform.open`, `msr().read` on every CPU, `close`"),
    ("ffmSessionAll", "msrReadAllOnline",
     "`rdmsr -a` without its command line: `LinuxPlatform.open`, `msr().read` on every CPU, `close`"),
    ("rdmsrAll", "msrReadAll", "hwtool `rdmsr -a MSR` in process (`Main.run`), per read"),
    ("rdmsrAll", "msrReadAllOpen", "hwtool `rdmsr -a MSR` in process (`Main.run`), per read"),
    ("rdmsrAll", "msrReadAllOnline", "hwtool `rdmsr -a MSR` in process (`Main.run`), per read"),
    ("ffmTmpPread", "tmpPread", "calibration: `NativeBinding.pread` 8 B of a tmpfile, FFM"),
    ("jnaTmpPread", "tmpPread", "calibration: `NativeBinding.pread` 8 B of a tmpfile, JNA"),
]
C_MSR_LABELS = {
    "msrRead": "pread /dev/cpu/0/msr",
    "msrReadAll": "pread each CPU's node, held open",
    "msrReadAllOpen": "open, pread, close each CPU's node (msr-tools' `rdmsr -a`)",
    "msrReadAllOnline": "read /sys/devices/system/cpu/online, then open, pread, close each CPU's node",
    "tmpPread": "pread 8 B of a tmpfile",
}
MSR_LIMIT = 1.1            # MSR read within 1.1x of C
RDMSR_ALL_LIMIT = 1.5      # rdmsr -a within 1.5x of C reading every CPU's node
CPUID_STUB_LIMIT = 1.2     # CPUID stub via FFM within 1.2x of C
FFM_JNA_FACTOR = 5.0       # FFM at least 5x cheaper per call than JNA
STARTUP_LIMIT = 2.0        # one-shot commands within 2x of the JVM hello-world
BATCH_LIMIT = 3.0          # hwtool batch of 200 lines within 3x of one of its commands alone
BATCH_PREFIX = "batch of 200 × "
PERF_READ_LIMIT = 1.1      # a counter read through read() within 1.1x of C
PARSE_TARGET = 50e6        # ring parsing: at least 50 M records/s for plain samples
PARSE_VS_C = 2.0           # ring parsing within 2x of C over the same bytes (issue 13)

# Counter reads (ns per read): (JMH benchmark, C reference, label).
PERF_READ_ROWS = [
    ("PerfReadBench.read", "perfRead", "`PerfEvent.read()` (decoded into `PerfCounts`)"),
    ("PerfReadBench.value", "perfRead", "`PerfEvent.value()`"),
    ("PerfReadBench.bindingRead", "perfRead", "`NativeBinding.read` of 8 B, the binding alone"),
    ("PerfRdpmcBench.selfRead", "rdpmc", "`PerfSelfMonitor.read()`: rdpmc, HARDWARE instructions"),
]
PERF_READ_TARGETS = ["PerfReadBench.read", "PerfReadBench.value"]
# Parsing (records/s): (JMH benchmark, C reference or None, label, bytes per record, target).
PARSE_ROWS = [
    ("PerfParseBench.plainCursor", "parsePlain", "cpu-clock samples, IP, TID, TIME, CPU, PERIOD (`PerfRecordCursor`)",
     48, PARSE_TARGET),
    ("PerfParseBench.plainForEach", "parsePlain", "the same through `PerfRecordParser.forEach`", 48, PARSE_TARGET),
    ("PerfParseBench.branch16Cursor", "parseBranch16", "+ BRANCH_STACK with HW_INDEX, 16 entries", 448, None),
    ("PerfParseBench.branch32Cursor", "parseBranch32", "+ BRANCH_STACK with HW_INDEX, 32 entries", 832, None),
    ("PerfParseBench.plainBareJvm", "parsePlain", "reference: bare JVM, plain layout at fixed offsets", 48, None),
]


class Stat:
    """Best and median of a set of ns/op (or ms) samples, plus JMH's own score if any."""

    def __init__(self, samples, score=None, error=None):
        self.samples = sorted(samples)
        self.best = self.samples[0]
        self.median = statistics.median(self.samples)
        self.score = score
        self.error = error


def read_c(paths):
    pooled = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                name, _iters, _best, _median, runs = line.rstrip("\n").split("\t")
                pooled.setdefault(name, []).extend(float(x) for x in runs.split(","))
    return {name: Stat(s) for name, s in pooled.items()}


def read_perf_c(paths):
    """perf_loop's lines (passes pooled) and its 'not measured here' reasons by name."""
    pooled, missing = {}, {}
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("#"):
                    name, _, why = line[1:].strip().partition(": not measured here: ")
                    if why:
                        missing[name] = why
                    continue
                if not line.strip():
                    continue
                name, _iters, _best, _median, runs = line.split("\t")
                pooled.setdefault(name, []).extend(float(x) for x in runs.split(","))
    return {name: Stat(s) for name, s in pooled.items()}, missing


def read_perf_jmh(path):
    """(benchmark, binding) -> (Stat of ns/op, bytes allocated per op). Throughput runs are turned
    into ns per op, so that best is the least, as everywhere else."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data:
        short = ".".join(b["benchmark"].split(".")[-2:])
        binding = b.get("params", {}).get("binding", "")
        pm = b["primaryMetric"]
        raw = [x for fork in pm["rawData"] for x in fork]
        if b["mode"] == "thrpt":
            raw = [1e9 / x for x in raw if x > 0]
        alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        out[(short, binding)] = (Stat(raw), alloc)
    return out


def read_msr(path):
    """The guest's C and Java lines (C passes pooled by name) and its '#' lines, in order."""
    pooled, comments = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            name, _iters, _best, _median, runs = line.split("\t")
            pooled.setdefault(name, []).extend(float(x) for x in runs.split(","))
    return {name: Stat(v) for name, v in pooled.items()}, comments


def read_jmh(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data:
        short = ".".join(b["benchmark"].split(".")[-2:])
        binding = b.get("params", {}).get("binding", "")
        pm = b["primaryMetric"]
        raw = [x for fork in pm["rawData"] for x in fork]
        err = pm.get("scoreError")
        err = float(err) if err not in (None, "NaN") and not math.isnan(float(err)) else None
        out[(short, binding)] = Stat(raw, pm["score"], err)
    settings = None
    if data:
        b = data[0]
        settings = (f"{b['forks']} fork, {b['warmupIterations']}x{b['warmupTime']} warm-up, "
                    f"{b['measurementIterations']}x{b['measurementTime']} measurement, "
                    f"JDK {b['jdkVersion']} ({b['vmName']})")
    return out, settings


def ns(x):
    if x is None:
        return "–"
    if abs(x) >= 100:
        return f"{x:,.0f}".replace(",", " ").replace("-", "−")
    return f"{x:.1f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def rx(r):
    if r is None:
        return "–"
    return f"{r:,.0f}×".replace(",", " ") if r >= 100 else f"{r:.2f}×"


def verdict(ok):
    return "–" if ok is None else ("**met**" if ok else "**not met**")


def machine_facts(env):
    """What the run's recorded machine line (run.sh's env_line) says: (is a VM, has an msr driver).
    Either is None when the line does not say."""
    env = env or ""
    vm = True if "hypervisor bit set" in env else (False if env.startswith("Machine:") else None)
    msr = True if "msr driver loaded" in env else (False if "no msr driver" in env else None)
    return vm, msr


def msr_section(w, msr, notes, host_c, host_jmh, has_msr_driver=None):
    w("## MSR read path (QEMU guest, TCG)")
    w("")
    why = {False: "This machine has no msr driver, so these figures come from a QEMU guest that ",
           True: "These figures come from a QEMU guest (the same in every run, whatever the host's msr driver) that ",
           None: "These figures come from a QEMU guest that "}[has_msr_driver]
    w(why +
      "`MsrReadBenchIT` (hwtool-cli, run by `benchmarks/run.sh`) boots in the same run: the C loop "
      "`src/main/c/msr_read_loop.c` (`gcc -O2`), then the Java loop `dev.hwtool.bench.MsrReadLoop`, then "
      "the C loop again, all in one boot; both pin their thread to CPU 0 and read IA32_APIC_BASE (0x1B). "
      "The all-CPU rows are per read (time per pass over the CPUs, divided by their number).")
    w("")
    for n in notes:
        if n.startswith(("MSR read path:", "java:", "msr ", "hwtool rdmsr")):
            w(f"* {n}")
    w("")
    w("| operation | Java best / median | C reference | C best / median | Java / C best (median) |")
    w("|---|---|---|---|---|")
    for bench, cname, label in MSR_ROWS:
        j, r = msr.get(bench), msr.get(cname)
        if j is None and r is None:
            continue

        def bm(x):
            return "–" if x is None else f"{ns(x.best)} / {ns(x.median)}"

        w(f"| {label} | {bm(j)} | {C_MSR_LABELS.get(cname, cname)} | {bm(r)} | "
          f"{rx(ratio(j and j.best, r and r.best))} ({rx(ratio(j and j.median, r and r.median))}) |")
    w("")
    rd, sess, held = msr.get("rdmsrAll"), msr.get("ffmSessionAll"), msr.get("ffmReadAll")
    cpus = next((int(n.split(",")[1].split()[0]) for n in notes if n.startswith("msr ")), None)
    if rd and sess and cpus:
        w(f"Where an in-process `rdmsr -a` goes (medians, {cpus} CPUs): {rd.median * cpus / 1e6:,.1f} ms per "
          f"invocation, of which the platform, the opens and the reads take {sess.median * cpus / 1e6:,.2f} ms; "
          f"the rest, {(rd.median - sess.median) * cpus / 1e6:,.1f} ms, is the command line: msr-tools' getopt parsing (`Main.run` routes `rdmsr` there without "
          f"building picocli's model), the register argument, the backend options' platform and the "
          f"output, as a difference of medians.")
        w("")
    if held and msr.get("msrReadAll") and msr.get("msrRead"):
        w("Reading CPU 1 from a thread on CPU 0 is an IPI (`rdmsr_safe_on_cpu`, "
          "`smp_call_function_single`), which under TCG costs tens of µs and varies widely; it dominates "
          "the all-CPU rows for C and Java alike.")
        w("")
    host_ratio = None
    hc, hf = host_c.get("preadTmpfile8"), host_jmh.get(("CallBench.preadTmpfile8", "ffm"))
    if hc and hf:
        host_ratio = ratio(hf.best, hc.best)
    gf, gc = msr.get("ffmTmpPread"), msr.get("tmpPread")
    guest_ratio = ratio(gf and gf.best, gc and gc.best)
    w("**Read the ratios, not the nanoseconds.** TCG emulates every guest instruction: the system call "
      "path, the msr driver and RDMSR as well as the C loop and the JIT-compiled Java, so every figure "
      "here is many times its bare-metal value. The kernel's share of a read is the same for C and Java, "
      "so a ratio carries over to real hardware, but only roughly: TCG does not slow user code and the "
      "kernel by the same factor." + (
          f" The calibration rows measure how far: the same pread of an 8-byte tmpfile is "
          f"{rx(host_ratio)} of C through FFM on the host (JMH table above) and {rx(guest_ratio)} in the guest."
          if host_ratio is not None and guest_ratio is not None else ""))
    w("")
    w("Why not JMH here: under TCG a JVM takes seconds of emulated time to start, and JMH forks one per "
      "benchmark and runs fixed-time iterations, which would stretch this to many minutes per boot. "
      "`MsrReadLoop` is a plain timed loop in one JVM: per operation, warm-up runs (their timings are kept in "
      "`benchmarks/target/run/msr-read.tsv`) and then timed runs of the same size as the C loop's; "
      "`-Xbatch` so that C2 compiles (seconds under TCG) finish inside the warm-up instead of running "
      "beside a timed run on the guest's other CPU. Best and median are over the timed runs; the C "
      "reference pools its two passes.")
    w("")


SIM_ROWS = [
    ("SimBranchBench.lbrOnly", "LBR only (Skylake, 32-entry LBR with LBR_INFO)", 100e6),
    ("SimBranchBench.lbrBtsCountersPmi",
     "LBR + BTS (64 KiB DS buffer) + 4 counters + PMIs (built-in DS interrupt routine)", 30e6),
    ("SimBranchBench.bareJvmRing", "reference: bare JVM, from/to into a 32-entry ring", None),
]


def read_sim(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data:
        short = ".".join(b["benchmark"].split(".")[-2:])
        pm = b["primaryMetric"]
        alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        rows[short] = (pm["score"], pm.get("scoreError"), alloc)
    return rows


def sim_targets(path):
    """The simulator's rows of the targets table (the same figures as its own section)."""
    rows = read_sim(path)
    out = []
    for bench, label, target in SIM_ROWS:
        r = rows.get(bench)
        if r is None or target is None:
            continue
        # Issue 13 asks 0 bytes per branch as well; JMH's -prof gc figure is shown to 2 decimals,
        # below which only JMH's own per-iteration bookkeeping remains (a constant few KB/s).
        alloc_ok = r[2] is not None and round(r[2], 2) == 0
        out.append((f"simulator ≥ {target / 1e6:.0f} M branches/s and 0 B per branch, one thread — {label}",
                    f"{r[0] / 1e6:.1f} M/s, " + ("–" if r[2] is None else f"{r[2]:.2f} B"), "–",
                    verdict(r[0] >= target and alloc_ok)))
    return out


def sim_section(w, path):
    rows = read_sim(path)
    w("## Simulator: branches per second, one thread")
    w("")
    w("`SimBranchBench` (JMH, `-prof gc`) retires a seeded mix of branch types, CPLs and mispredicts "
      "on one simulated CPU; the reference is the least any LBR model does per branch (two stores and an "
      "index bump), in the same run.")
    w("")
    w("| workload | M branches/s | target | allocation per branch | time vs reference |")
    w("|---|---|---|---|---|")
    ref = rows.get("SimBranchBench.bareJvmRing")
    for bench, label, target in SIM_ROWS:
        r = rows.get(bench)
        if not r:
            continue
        score, err, alloc = r
        tgt = "–" if target is None else f"≥ {target / 1e6:.0f} M/s {verdict(score >= target)}"
        al = "–" if alloc is None else f"{alloc:.2f} B"
        rel = "–" if not ref or bench == "SimBranchBench.bareJvmRing" else rx(ratio(ref[0], score))
        w(f"| {label} | {score / 1e6:.1f} | {tgt} | {al} | {rel} |")
    w("")
    w("Allocation is per retired branch, averaged, as JMH's `-prof gc` reports it: neither path allocates, "
      "PMIs included (the interrupt routine hands its listener the CPU's reusable LBR snapshot and BTS view, "
      "and logs the PMI in a reused slot); what JMH still shows in the third decimal is its own bookkeeping, "
      "a constant few KB/s, which a slower benchmark spreads over fewer operations.")
    w("")


def perf_section(w, pc, missing, pj, probe):
    w("## perf: counter reads and ring parsing (issue 5)")
    w("")
    w("JMH (`-prof gc`) against `src/main/c/perf_loop.c` (`gcc -O2`, a pass before and one after JMH, pooled). "
      "Counter reads: the benchmark thread's own task-clock event (software, user space only, read_format 0), "
      "opened once; C reads the same event with read(2). rdpmc: the thread's HARDWARE instructions event, "
      "the user-page seqlock and RDPMC, in C as in the header comment of include/uapi/linux/perf_event.h.")
    w("")
    w("| operation | C best / median | FFM best / median | FFM / C | JNA best / median | JNA / C | allocated per read (FFM, JNA) |")
    w("|---|---|---|---|---|---|---|")
    for bench, cname, label in PERF_READ_ROWS:
        r = pc.get(cname)
        f, j = pj.get((bench, "ffm")), pj.get((bench, "jna"))
        if cname == "rdpmc" and f is None and j is None:
            why_j = probe or "PerfRdpmcBench was not run"
            why_c = missing.get("rdpmc", "measured" if r else "perf_loop did not run it")
            w(f"| {label} | not measured here: {why_c} | not measured here: {why_j} | – | – | – | – |")
            continue

        def bm(x):
            return "–" if x is None else f"{ns(x[0].best)} / {ns(x[0].median)}"

        cb = "–" if r is None else f"{ns(r.best)} / {ns(r.median)}"
        if r is None and cname in missing:
            cb = f"not measured here: {missing[cname]}"
        al = ", ".join("–" if x is None or x[1] is None else f"{x[1]:.0f} B" for x in (f, j))
        w(f"| {label} | {cb} | {bm(f)} | {rx(ratio(f and f[0].best, r and r.best))} | {bm(j)} | "
          f"{rx(ratio(j and j[0].best, r and r.best))} | {al} |")
    w("")
    w("Ring-buffer parsing: whole buffers of one record type (384-448 KiB, seeded, written by "
      "`dev.hwtool.bench.PerfRecordBuffers`), in native memory as a ring's pages are; the C loop parses "
      "the same bytes from the files that class writes. Both decode every field from sample_type with each "
      "length checked against the record's size, and consume what a report reads: ip, tid, time, cpu, "
      "period and every branch entry's from, to and flags. Each JMH fork parses one kind of record, as a "
      "consumer of one ring does (the count check runs after the measurement): a JVM that parses several "
      "formats through the same code compiles a larger loop for all of them, and a slower one. A branch "
      "entry's from, to and flags are read through var handles of the whole 24-byte struct "
      "perf_branch_entry, so the three reads share one bounds check and the entry loop one range check "
      "to hoist; a sample's ip, tid, time, cpu and period are read in their accessors, which keeps "
      "`next()` small enough for C2 to inline the branch count in a consumer's loop.")
    w("")
    w("| records | bytes each | hwtool M records/s, best (median) | C M records/s, best (median) | time vs C | "
      "allocated per record | target |")
    w("|---|---|---|---|---|---|---|")

    def mps(x):
        return 1e3 / x

    for bench, cname, label, size, target in PARSE_ROWS:
        x = pj.get((bench, ""))
        if x is None:
            continue
        st, alloc = x
        r = pc.get(cname)
        cm = "–" if r is None else f"{mps(r.best):.1f} ({mps(r.median):.1f})"
        tgt = "–" if target is None else f"≥ {target / 1e6:.0f} M/s {verdict(mps(st.best) * 1e6 >= target)}"
        al = "–" if alloc is None else f"{alloc:.3f} B"
        w(f"| {label} | {size} | {mps(st.best):.1f} ({mps(st.median):.1f}) | {cm} | "
          f"{rx(ratio(st.best, r and r.best))} | {al} | {tgt} |")
    w("")


def perf_targets(pc, pj):
    out = []
    for bench in PERF_READ_TARGETS:
        cname, label = next((c, l) for b, c, l in PERF_READ_ROWS if b == bench)
        f, r = pj.get((bench, "ffm")), pc.get(cname)
        if f is None or r is None:
            continue
        rb, rm = ratio(f[0].best, r.best), ratio(f[0].median, r.median)
        out.append((f"counter read through read() within {PERF_READ_LIMIT:g}× of C — {label}, FFM",
                    f"FFM {ns(f[0].best)} ns vs C {ns(r.best)} ns", f"{rx(rb)} (median {rx(rm)})",
                    verdict(rb <= PERF_READ_LIMIT)))
    x = pj.get(("PerfParseBench.plainCursor", ""))
    if x is not None:
        best = 1e3 / x[0].best
        out.append((f"ring parsing ≥ {PARSE_TARGET / 1e6:.0f} M records/s — cpu-clock samples, `PerfRecordCursor`",
                    f"{best:.1f} M/s (median {1e3 / x[0].median:.1f})", "–", verdict(best * 1e6 >= PARSE_TARGET)))
    # Issue 13: every parse over the same bytes as the C loop within 2x of its time, at 0 B per record.
    for bench, cname, label, _size, _target in PARSE_ROWS:
        x, r = pj.get((bench, "")), pc.get(cname)
        if x is None or r is None or bench.endswith("BareJvm"):
            continue
        st, alloc = x
        rb, rm = ratio(st.best, r.best), ratio(st.median, r.median)
        zero = alloc is None or alloc < 0.5
        out.append((f"ring parsing within {PARSE_VS_C:g}× of C, 0 B per record — {label}",
                    f"{1e3 / st.best:.1f} M/s vs C {1e3 / r.best:.1f} M/s"
                    + ("" if alloc is None else f", {alloc:.3f} B per record"),
                    f"{rx(rb)} (median {rx(rm)})", verdict(rb <= PARSE_VS_C and zero)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--c", nargs="+", default=[])
    p.add_argument("--jmh")
    p.add_argument("--perf-c", nargs="+", default=[])
    p.add_argument("--perf-jmh")
    p.add_argument("--rdpmc-probe")
    p.add_argument("--startup")
    p.add_argument("--msr")
    p.add_argument("--sim", help="JMH JSON of SimBranchBench, run with -prof gc")
    p.add_argument("--root", help="repository root, shown as relative paths in commands")
    p.add_argument("--env", help="one-line description of the machine and tools")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    c = read_c(a.c)
    jmh, jmh_settings = read_jmh(a.jmh) if a.jmh else ({}, None)
    pc, pc_missing = read_perf_c(a.perf_c) if a.perf_c else ({}, {})
    pj = read_perf_jmh(a.perf_jmh) if a.perf_jmh else {}
    probe = None
    if a.rdpmc_probe:
        with open(a.rdpmc_probe) as f:
            verdict_line = f.read().strip()
        if verdict_line.startswith("unavailable"):
            probe = verdict_line.partition("\t")[2]
    msr, msr_notes = (None, [])
    if a.msr:
        msr, msr_notes = read_msr(a.msr)
    startup = None
    if a.startup:
        with open(a.startup) as f:
            startup = json.load(f)

    def get(bench, binding):
        return jmh.get((bench, binding))

    md = []
    w = md.append
    w("# hwtool performance")
    w("")
    w("Produced by `benchmarks/run.sh`; every figure and every reference below comes from the same run.")
    if a.env:
        w("")
        w(a.env)
    if jmh_settings:
        w("")
        w(f"JMH 1.37: {jmh_settings}, average time. C reference: `gcc -O2`, "
          f"{len(c.get('cpuidLeaf0', Stat([0])).samples)} timed runs per operation (a pass before and a pass after JMH).")
    if not jmh_settings and a.perf_jmh:
        with open(a.perf_jmh) as f:
            d = json.load(f)
        if d:
            b = d[0]
            w("")
            w(f"JMH 1.37: {b['forks']} fork, {b['warmupIterations']}x{b['warmupTime']} warm-up, "
              f"{b['measurementIterations']}x{b['measurementTime']} measurement, JDK {b['jdkVersion']} ({b['vmName']}).")
    w("")
    is_vm, has_msr_driver = machine_facts(a.env)
    if jmh and is_vm:
        w("**This machine is a VM.** CPUID is intercepted by the hypervisor: every CPUID instruction is a "
          "VM exit costing several microseconds, and `/dev/cpu/0/cpuid` runs the same instruction in the "
          "kernel (by IPI when the caller is on another CPU). That exit dominates the CPUID rows for C and "
          "Java alike, so their ratios say little about call overhead; the RDTSC row (no exit) does. "
          "On bare metal CPUID takes on the order of a hundred cycles, and the same benchmarks would "
          "expose the stub's call overhead far more.")
        w("")

    # --- targets --------------------------------------------------------------------------
    targets = []
    for bench in CPUID_STUB_TARGETS if jmh else []:
        cname, label = BY_BENCH[bench]
        f, r = get(bench, "ffm"), c.get(cname)
        rb = ratio(f and f.best, r and r.best)
        rm = ratio(f and f.median, r and r.median)
        targets.append((f"CPUID stub via FFM within {CPUID_STUB_LIMIT}× of C — {label.split(',')[0]}",
                        f"FFM {ns(f and f.best)} ns vs C {ns(r and r.best)} ns",
                        f"{rx(rb)} (median {rx(rm)})",
                        verdict(None if rb is None else rb <= CPUID_STUB_LIMIT)))
    for bench in FFM_JNA_TARGETS if jmh else []:
        cname, label = BY_BENCH[bench]
        f, j = get(bench, "ffm"), get(bench, "jna")
        rb = ratio(j and j.best, f and f.best)
        rm = ratio(j and j.median, f and f.median)
        targets.append((f"FFM ≥ {FFM_JNA_FACTOR:g}× cheaper per call than JNA — {label}",
                        f"JNA {ns(j and j.best)} ns vs FFM {ns(f and f.best)} ns",
                        f"{rx(rb)} (median {rx(rm)})",
                        verdict(None if rb is None else rb >= FFM_JNA_FACTOR)))
    if msr:
        # Issue 13: one read within 1.1x of C; `rdmsr -a` within 1.5x of C reading every CPU's node,
        # against the C loop that finds the online CPUs first as rdmsr -a must (and, for comparison,
        # against the one that is handed the list).
        for bench, cname, what, limit in [
                ("ffmRead", "msrRead", "`DeviceMsrAccess.read(0, MSR)`, FFM", MSR_LIMIT),
                ("ffmSessionAll", "msrReadAllOnline", "`rdmsr -a` without its command line, per read, "
                 "vs C reading the online list and every node", RDMSR_ALL_LIMIT),
                ("ffmSessionAll", "msrReadAllOpen", "`rdmsr -a` without its command line, per read, "
                 "vs C handed the CPU list", RDMSR_ALL_LIMIT),
                ("rdmsrAll", "msrReadAllOnline", "`rdmsr -a` per read, in process (`Main.run`)", RDMSR_ALL_LIMIT)]:
            j, r = msr.get(bench), msr.get(cname)
            rb = ratio(j and j.best, r and r.best)
            rm = ratio(j and j.median, r and r.median)
            targets.append((f"MSR read within {limit:g}× of C (QEMU guest) — {what}",
                            f"Java {ns(j and j.best)} ns vs C {ns(r and r.best)} ns",
                            f"{rx(rb)} (median {rx(rm)})",
                            verdict(None if rb is None else rb <= limit)))
    if startup:
        by = {cmd["label"]: cmd for cmd in startup["commands"]}
        hello = by.get("hello")
        for label, cmd in by.items():
            if not label.startswith("hwtool ") or hello is None:
                continue
            r = ratio(cmd["median_ms"], hello["median_ms"])
            failed = any(rc != 0 for rc in cmd["exit_codes"])
            targets.append((f"`{label}` within {STARTUP_LIMIT:g}× of a hello-world started the same way",
                            f"{cmd['median_ms']:.0f} ms vs {hello['median_ms']:.0f} ms (medians)",
                            rx(r),
                            verdict(None if r is None else r <= STARTUP_LIMIT)
                            + (" (the command exited non-zero)" if failed else "")))
        for label, cmd in by.items():
            if not label.startswith(BATCH_PREFIX):
                continue
            single = by.get("hwtool " + label[len(BATCH_PREFIX):])
            r = ratio(cmd["median_ms"], single and single["median_ms"])
            targets.append((f"`hwtool batch` of 200 lines within {BATCH_LIMIT:g}× of one line run alone "
                            f"(`{label[len(BATCH_PREFIX):]}`)",
                            f"{cmd['median_ms']:.0f} ms vs {single['median_ms']:.0f} ms (medians)" if single else "–",
                            rx(r), verdict(None if r is None else r <= BATCH_LIMIT)))
    targets += perf_targets(pc, pj)
    if a.sim:
        targets += sim_targets(a.sim)
    w("## Targets")
    w("")
    w("| target | measured (best, except start-up) | ratio | verdict |")
    w("|---|---|---|---|")
    for t in targets:
        w("| " + " | ".join(t) + " |")
    w("")
    if jmh:
        w("The FFM/JNA target is met or not per call: RDTSC through the mmap'd stub has almost no work "
          "inside, so its ratio is the bindings' own per-call cost; pread and getpid add a syscall "
          "(hundreds of ns of kernel time, the same for both), which shrinks the ratio. The columns "
          "\"− C\" below subtract the C cost of the same call, leaving each binding's overhead "
          + ("(a negative one is noise: the VM exit varies by more than the overhead)." if is_vm
             else "(a negative one is noise)."))
        w("")

        # --- per-call table ---------------------------------------------------------------------
        w("## Native calls (ns per call)")
        w("")
        w("| operation | C best / median | FFM best / median | FFM JMH score ± error | FFM / C | "
          "JNA best / median | JNA / FFM | FFM − C | JNA − C |")
        w("|---|---|---|---|---|---|---|---|---|")
        for cname, bench, label in CALLS:
            r, f, j = c.get(cname), get(bench, "ffm"), get(bench, "jna")
            if r is None and f is None and j is None:
                continue

            def bm(s):
                return "–" if s is None else f"{ns(s.best)} / {ns(s.median)}"

            score = "–" if f is None else (f"{ns(f.score)} ± {ns(f.error)}" if f.error is not None else ns(f.score))
            w(f"| {label} | {bm(r)} | {bm(f)} | {score} | {rx(ratio(f and f.best, r and r.best))} | "
              f"{bm(j)} | {rx(ratio(j and j.best, f and f.best))} | "
              f"{ns(None if f is None or r is None else f.best - r.best)} | "
              f"{ns(None if j is None or r is None else j.best - r.best)} |")
        w("")
        w("Ratios compare best with best: the fastest C run against the fastest JMH measurement "
          "iteration. The Java calls go through `NativeBinding` (`FfmBinding`, `JnaBinding`) exactly as "
          "hwtool makes them, argument checks and errno handling included; the benchmark thread is not "
          "pinned.")
        w("")

    # --- MSR read path, in the guest ---------------------------------------------------------
    if msr:
        msr_section(w, msr, msr_notes, c, jmh, has_msr_driver)

    # --- simulator -----------------------------------------------------------------------------
    if a.sim:
        sim_section(w, a.sim)

    # --- perf counters and ring parsing ----------------------------------------------------------
    if pj or pc:
        perf_section(w, pc, pc_missing, pj, probe)

    # --- start-up ------------------------------------------------------------------------------
    if startup:
        w("## Start-up (wall time, ms)")
        w("")
        w(f"{startup['rounds']} rounds after {startup['warmup']} warm-up rounds; each round runs every "
          "command once in a shuffled order, so the drift of a shared machine hits all alike.")
        w("")
        w("| command | median | p10 – p90 | best | median / hello | exit codes |")
        w("|---|---|---|---|---|---|")
        by = {cmd["label"]: cmd for cmd in startup["commands"]}
        hello = by.get("hello")
        for label, cmd in by.items():
            r = ratio(cmd["median_ms"], hello["median_ms"]) if hello else None
            w(f"| {label} | {cmd['median_ms']:.0f} | {cmd['p10_ms']:.0f} – {cmd['p90_ms']:.0f} | "
              f"{cmd['min_ms']:.0f} | {rx(r)} | {', '.join(str(x) for x in sorted(set(cmd['exit_codes'])))} |")
        w("")
        w("Commands (run from the repository root):")
        w("")
        for label, cmd in by.items():
            shown = cmd["command"].replace(a.root.rstrip("/") + "/", "") if a.root else cmd["command"]
            w(f"* {label}: `{shown}`")
        w("")
        caps, direct, version = by.get("hwtool caps"), by.get("jar caps, no launcher"), by.get("jar --version, no launcher")
        if caps and direct and version and hello:
            w(f"How `hwtool caps` splits (differences of medians): JVM start-up as for hello "
              f"{hello['median_ms']:.0f} ms; the jar and its `--version` AOT cache (no picocli) "
              f"+{version['median_ms'] - hello['median_ms']:.0f} ms; `caps` itself (its family's larger AOT cache, "
              f"picocli's model, CPUID on every CPU, sysfs, perf probes, downcall linking) "
              f"+{direct['median_ms'] - version['median_ms']:.0f} ms; the launcher script "
              f"+{caps['median_ms'] - direct['median_ms']:.0f} ms.")
            w("")
        w("`hello` is `Hello.java` (one `println`) compiled by the same JDK and started as the launcher "
          "starts hwtool (`-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`, from a class directory): the "
          "reference of the start-up targets. `hello -jar, default flags` is the same class in a jar "
          "with default flags, `hello+aot` that jar with its own AOT cache (`-XX:AOTCacheOutput`, "
          "JEP 514). `hello+downcall+aot` (`HelloDowncall.java`) adds to hello the one FFM downcall shape "
          "hwtool links on x86-64 (unbound, seven longs, errno captured), called once for getpid(2), "
          "with its own AOT cache and the launcher's JVM flags: the floor of every command that runs "
          "CPUID or a system call through FFM (`cpuid`, `msr decode`, which decodes as this CPU's CPUID "
          "says, and `caps`), before picocli or any work of its own. `./hwtool` includes the launcher script: JDK lookup, the stale-jar check "
          "and the AOT key check (one `find` over the jar and its inputs for both); "
          "the \"no launcher\" rows run the JVM command the launcher ends in, with the same flags and "
          "AOT cache. The batch row runs `./hwtool batch FILE` over 200 copies of one command line.")
        w("")

    text = "\n".join(md)
    with open(a.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
