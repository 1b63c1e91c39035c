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
    private final MachineBlueprint blueprint;
    private final List<Integer> numbers;
    /** The CPUs built so far (whole cores), by number; guarded by this. */
    private final Map<Integer, LogicalProcessor> cpus = new TreeMap<>();

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
     * <p>A core's CPUs are built when one of them is first asked for ({@link #cpu}, {@link #cpus}),
     * all together, and siblings only of each other: a CPU nobody has asked for has retired
     * nothing and holds its boot values, and nothing of it reaches the other cores (the clock
     * adds its cycles, 0 until it runs; the memory sees its stores, none until it runs), so when
     * it is built changes nothing any CPU reads. A one-line {@code rdmsr} of CPU 0 builds CPU 0's core only.
     *
     * @param name the profile's name, for messages
     */
    public SimulatedMachine(String name, MachineBlueprint blueprint, SimClock clock) {
        this.name = name;
        this.clock = clock;
        this.blueprint = blueprint;
        this.numbers = blueprint.cpus();
    }

    /** The profile's name. */
    public String name() {
        return name;
    }

    public List<Integer> cpuNumbers() {
        return numbers;
    }

    /** Every CPU, lowest first. */
    public synchronized List<LogicalProcessor> cpus() {
        List<LogicalProcessor> all = new ArrayList<>(numbers.size());
        for (int n : numbers) {
            all.add(cpu(n));
        }
        return all;
    }

    /** CPU {@code n}; NO_SUCH_CPU for one the machine lacks. */
    public synchronized LogicalProcessor cpu(int n) {
        LogicalProcessor c = cpus.get(n);
        if (c != null) {
            return c;
        }
        if (!blueprint.has(n)) {
            throw new HwException(Cause.NO_SUCH_CPU, "simulated CPU " + n + " does not exist (profile "
                    + name + " has CPUs " + numbers + ")");
        }
        // Cores: logical processors whose x2APIC IDs agree above the SMT bits (SDM Vol. 3A 9.9).
        List<LogicalProcessor> core = new ArrayList<>();
        for (int m : blueprint.core(n)) {
            LogicalProcessor built = new LogicalProcessor(m, blueprint.layout(m), clock, memory,
                    "simulated CPU " + m + " (profile " + name + ")");
            cpus.put(m, built);
            core.add(built);
        }
        for (LogicalProcessor s : core) {
            s.siblings(core.stream().filter(o -> o != s).toList());
        }
        return cpus.get(n);
    }

    public SimMemory memory() {
        return memory;
    }

    public SimClock clock() {
        return clock;
    }
}
