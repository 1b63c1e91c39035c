package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulated machine: logical CPUs, each with its own registers, LBR, DS save area and
 * counters (seed 004: "There must be separate save areas, buffers, and state for each
 * processor"), sharing one memory and one clock. The bootstrap processor is the lowest-numbered
 * CPU. Deterministic: the same calls in the same order give the same state.
 */
public final class SimulatedMachine {

    private final String name;
    private final SimClock clock;
    private final SimMemory memory = new SimMemory();
    private final Map<Integer, SimulatedCpu> cpus = new TreeMap<>();

    /**
     * @param name  the profile's name, for messages
     * @param cpuid the CPUID each CPU answers with
     * @param cpus  which of {@code cpuid}'s CPUs exist on this machine
     */
    public SimulatedMachine(String name, CpuidSource cpuid, List<Integer> cpus, SimClock clock) {
        this(name, MachineBlueprint.of(cpuid, cpus), clock);
    }

    /**
     * A machine at the boot values of {@code blueprint}'s CPUs, with its own registers, memory
     * and units (nothing shared with other machines of the same blueprint but the blueprint).
     *
     * @param name the profile's name, for messages
     */
    public SimulatedMachine(String name, MachineBlueprint blueprint, SimClock clock) {
        this.name = name;
        this.clock = clock;
        for (Map.Entry<Integer, RegisterFile.Layout> e : blueprint.layouts().entrySet()) {
            int cpu = e.getKey();
            this.cpus.put(cpu, new SimulatedCpu(cpu, e.getValue(), clock, memory,
                    "simulated CPU " + cpu + " (profile " + name + ")"));
        }
        // Cores: logical processors whose x2APIC IDs agree above the SMT bits (SDM Vol. 3A 9.9).
        Map<Integer, List<SimulatedCpu>> cores = new TreeMap<>();
        for (SimulatedCpu c : this.cpus.values()) {
            cores.computeIfAbsent(c.topology().coreId(), k -> new ArrayList<>()).add(c);
        }
        for (List<SimulatedCpu> core : cores.values()) {
            for (SimulatedCpu c : core) {
                c.siblings(core.stream().filter(o -> o != c).toList());
            }
        }
    }

    /** The profile's name. */
    public String name() {
        return name;
    }

    public List<Integer> cpuNumbers() {
        return List.copyOf(cpus.keySet());
    }

    public List<SimulatedCpu> cpus() {
        return new ArrayList<>(cpus.values());
    }

    /** CPU {@code n}; NO_SUCH_CPU for one the machine lacks. */
    public SimulatedCpu cpu(int n) {
        SimulatedCpu c = cpus.get(n);
        if (c == null) {
            throw new HwException(Cause.NO_SUCH_CPU, "simulated CPU " + n + " does not exist (profile "
                    + name + " has CPUs " + cpus.keySet() + ")");
        }
        return c;
    }

    public SimMemory memory() {
        return memory;
    }

    public SimClock clock() {
        return clock;
    }
}
