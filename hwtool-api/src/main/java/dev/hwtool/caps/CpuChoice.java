package dev.hwtool.caps;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Which logical CPU a report reads, why that one, through which path, and which CPUs it could not
 * reach: in a cpuset (taskset, a container's or a pod's CPU set) CPU 0 may be out of this
 * process's reach, and a report that silently read another CPU, or failed whole, would mislead.
 *
 * @param cpu        the CPU read
 * @param path       the CPUID path that answers for it ({@link CpuidSource#pathOf})
 * @param why        why this CPU: "asked for", "the first CPU", or the first this process may run on
 * @param outOfReach the CPUs of the source it cannot read from here, each with the reason
 */
public record CpuChoice(int cpu, String path, String why, Map<Integer, String> outOfReach) {

    public CpuChoice {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(why, "why");
        outOfReach = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(outOfReach));
    }

    /** CPU {@code requested} of {@code src}, or its {@link CpuidSource#defaultCpu()} when null. */
    public static CpuChoice of(CpuidSource src, Integer requested) {
        List<Integer> cpus = src.cpus();
        int dflt = requested == null ? src.defaultCpu() : -1;
        int c = requested != null ? requested : dflt;
        String why;
        if (requested != null) {
            why = "asked for";
        } else if (cpus.isEmpty() || c == cpus.getFirst()) {
            why = "the first CPU";
        } else {
            why = "the first CPU this process may run on (CPU " + join(cpus.stream().filter(n -> n < c).toList())
                    + " outside its CPU affinity)";
        }
        List<Integer> reachable = src.reachableCpus();
        Map<Integer, String> out = new LinkedHashMap<>();
        for (int n : cpus) {
            if (!reachable.contains(n)) {
                out.put(n, reason(src, n));
            }
        }
        return new CpuChoice(c, src.pathOf(c), why, out);
    }

    private static String reason(CpuidSource src, int cpu) {
        try {
            src.cpuid(cpu, 0, 0);
            return "readable now";
        } catch (HwException e) {
            return e.getMessage();
        }
    }

    /** Whether {@code why} is more than "the first CPU" or "asked for": worth a line in a report. */
    public boolean notable() {
        return !why.equals("the first CPU") && !why.equals("asked for") || !outOfReach.isEmpty();
    }

    private static String join(List<Integer> cpus) {
        return cpus.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
