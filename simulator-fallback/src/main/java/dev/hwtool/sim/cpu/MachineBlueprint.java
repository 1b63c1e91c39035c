package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.GuardedCpuid;
import dev.hwtool.arch.decode.SmtTopology;
import dev.hwtool.caps.CpuidReading;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What every {@link SimulatedMachine} built on one CPUID source and set of CPUs has in common:
 * for each CPU, which registers it implements, the catalog's masks for them and their boot
 * values (all fixed by that CPU's CPUID, its number and whether it is the bootstrap processor).
 * Immutable in effect (a CPU's part is derived once, when a machine first builds that CPU, and
 * never changes): the machines built from it copy the boot values and share nothing mutable, so
 * a process that builds many machines on one profile ({@code hwtool batch}: a fresh machine per
 * line) derives this once and each machine still starts at its boot values, unaffected by
 * what was done to another.
 */
public final class MachineBlueprint {

    private final CpuidReading cpuid;
    private final int bsp;
    /** Each CPU's layout, derived when a machine first builds that CPU; guarded by this. */
    private final Map<Integer, RegisterFile.Layout> layouts = new TreeMap<>();
    /** Each CPU's core: the CPUs, its own included and lowest first, whose x2APIC IDs agree above the SMT bits (SDM Vol. 3A 9.9). */
    private final Map<Integer, List<Integer>> cores = new TreeMap<>();

    private MachineBlueprint(CpuidReading cpuid, List<Integer> cpus) {
        this.cpuid = cpuid;
        // The bootstrap processor is the lowest-numbered CPU (Linux's CPU 0).
        this.bsp = Collections.min(cpus);
        Map<Integer, List<Integer>> byCoreId = new TreeMap<>();
        for (int cpu : new TreeSet<>(cpus)) {
            int coreId = SmtTopology.of(GuardedCpuid.over(cpuid.reader(cpu))).coreId();
            byCoreId.computeIfAbsent(coreId, k -> new ArrayList<>()).add(cpu);
        }
        for (List<Integer> core : byCoreId.values()) {
            for (int cpu : core) {
                cores.put(cpu, List.copyOf(core));
            }
        }
    }

    /**
     * @param cpuid the CPUID each CPU answers with
     * @param cpus  which of {@code cpuid}'s CPUs exist on the machines
     */
    public static MachineBlueprint of(dev.hwtool.api.CpuidSource cpuid, List<Integer> cpus) {
        return new MachineBlueprint(CpuidReading.of(cpuid), cpus);
    }

    /** The CPUs of the machines, lowest first. */
    public List<Integer> cpus() {
        return List.copyOf(cores.keySet());
    }

    /** Whether the machines have CPU {@code cpu}. */
    boolean has(int cpu) {
        return cores.containsKey(cpu);
    }

    /**
     * CPU {@code cpu}'s layout (one the machines have), derived on first use: it depends on
     * nothing but that CPU's CPUID, number and BSP flag, so when it is derived changes nothing.
     */
    synchronized RegisterFile.Layout layout(int cpu) {
        return layouts.computeIfAbsent(cpu, c -> new RegisterFile.Layout(c, c == bsp, cpuid.reader(c)));
    }

    /** The CPUs of {@code cpu}'s core, itself included, lowest first. */
    List<Integer> core(int cpu) {
        return cores.get(cpu);
    }
}
