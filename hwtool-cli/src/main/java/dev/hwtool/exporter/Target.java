package dev.hwtool.exporter;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.api.Verdict;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The machine an exporter describes, as the collector needs it: its CPU identity, the capability
 * verdicts (asked again at each collection: a sysctl or a loaded driver changes them), its
 * logical CPUs and, lazily, its MSRs (only read, never written).
 *
 * @param cpu       CPU 0's CPUID decoded
 * @param context   the CPU the catalog judges register existence against
 * @param simulated whether the machine is the simulator
 * @param cpus      the logical CPUs whose registers are read
 * @param verdicts  the verdicts, one per facility, as {@code hwtool caps} orders them
 * @param msr       the register access; its failure (no driver, no capability) is counted per scrape
 * @param parallel  whether per-CPU reads may run concurrently (the msr driver: yes, each read is
 *                  an IPI to that CPU; the simulator's register file: no, it is one object)
 * @param packages  each CPU's physical package ({@link Packages#of}); a CPU missing here is its
 *                  own package, so package-scope registers are then read on every CPU
 */
public record Target(CpuCapabilities cpu, CpuContext context, boolean simulated, List<Integer> cpus,
                     Supplier<List<Verdict>> verdicts, Supplier<MsrAccess> msr, boolean parallel,
                     Map<Integer, Integer> packages) {

    /** A target whose packages are not known: every CPU counts as its own. */
    public Target(CpuCapabilities cpu, CpuContext context, boolean simulated, List<Integer> cpus,
                  Supplier<List<Verdict>> verdicts, Supplier<MsrAccess> msr, boolean parallel) {
        this(cpu, context, simulated, cpus, verdicts, msr, parallel, Map.of());
    }

    public Target {
        packages = Map.copyOf(packages);
        Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(context, "context");
        cpus = List.copyOf(cpus);
        Objects.requireNonNull(verdicts, "verdicts");
        Objects.requireNonNull(msr, "msr");
    }

    /** CPU → package for every CPU, in {@link #cpus} order. */
    public Map<Integer, Integer> packageOfCpu() {
        Map<Integer, Integer> out = new LinkedHashMap<>();
        for (int c : cpus) {
            out.put(c, packages.getOrDefault(c, c));
        }
        return out;
    }
}
