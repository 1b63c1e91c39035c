package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;
import dev.hwtool.linux.CpuidPathCheck;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Probe;
import dev.hwtool.api.Verdict;

import java.util.List;
import java.util.Map;

/**
 * Everything {@code hwtool caps} reports, before rendering as text or JSON.
 *
 * @param coreTypes          per-CPU hybrid core type (empty unless hybrid)
 * @param verdictsDescribe   which machine the Linux part and the verdicts describe
 * @param verdictsUnavailable why there are no verdicts (this machine's CPUID unreadable), or null
 * @param probes             the perf facilities tried for real (hardware backend only; empty otherwise)
 * @param cpuChoice          which CPU was read and why, and the CPUs out of reach
 * @param cpuidPaths         this machine's user-space CPUID held against the kernel's, or null when
 *                           the report's CPU is not this machine's (a dump, a simulated CPU)
 */
record CapsReport(String source, String sourceDetail, boolean simulated, int cpu, CpuCapabilities caps,
                  Map<Integer, String> coreTypes, LinuxFacts linux, List<Verdict> verdicts,
                  String verdictsDescribe, String verdictsUnavailable,
                  Map<Facility, Probe> probes, CpuChoice cpuChoice, CpuidPathCheck cpuidPaths) {

    CapsReport withCpuidPaths(CpuidPathCheck check) {
        return new CapsReport(source, sourceDetail, simulated, cpu, caps, coreTypes, linux, verdicts, verdictsDescribe,
                verdictsUnavailable, probes, cpuChoice, check);
    }
}
