package dev.hwtool.sim.cpu;

import dev.hwtool.api.CpuidSource;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every {@link SimulatedMachine} built on one CPUID source and set of CPUs has in common:
 * for each CPU, which registers it implements, the catalog's masks for them and their boot
 * values (all fixed by that CPU's CPUID, its number and whether it is the bootstrap processor).
 * Immutable: the machines built from it copy the boot values and share nothing mutable, so a
 * process that builds many machines on one profile ({@code hwtool batch}: a fresh machine per
 * line) derives this once and each machine still starts at its boot values, unaffected by
 * what was done to another.
 */
public final class MachineBlueprint {

    private final CpuidSource cpuid;
    private final Map<Integer, RegisterFile.Layout> layouts = new TreeMap<>();

    private MachineBlueprint(CpuidSource cpuid, List<Integer> cpus) {
        this.cpuid = cpuid;
        // The bootstrap processor is the lowest-numbered CPU (Linux's CPU 0).
        int bsp = Collections.min(cpus);
        for (int cpu : cpus) {
            layouts.put(cpu, new RegisterFile.Layout(cpu, cpu == bsp, cpuid.reader(cpu)));
        }
    }

    /**
     * @param cpuid the CPUID each CPU answers with
     * @param cpus  which of {@code cpuid}'s CPUs exist on the machines
     */
    public static MachineBlueprint of(CpuidSource cpuid, List<Integer> cpus) {
        return new MachineBlueprint(cpuid, cpus);
    }

    /** The CPUID source the blueprint was derived from. */
    public CpuidSource cpuid() {
        return cpuid;
    }

    /** The CPUs of the machines, lowest first. */
    public List<Integer> cpus() {
        return List.copyOf(layouts.keySet());
    }

    Map<Integer, RegisterFile.Layout> layouts() {
        return Collections.unmodifiableMap(layouts);
    }
}
