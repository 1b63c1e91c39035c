package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.CpuContext;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * MSRs of a simulated machine: one {@link RegisterFile} per CPU of the profile, all sharing one
 * {@link SimClock}. Failures carry the causes the hardware backend gives for the same
 * condition: NO_SUCH_CPU for a CPU the profile lacks (ENXIO from the msr driver), and
 * REGISTER_FAULT for every #GP (EIO from the msr driver, arch/x86/kernel/msr.c).
 *
 * <p>The registers start in the state {@link BootState} describes; the bootstrap processor is
 * the profile's lowest-numbered CPU (CPU 0). Deterministic: the same accesses in the same order
 * give the same values, with no wall clock involved.
 */
public final class SimulatedMsrAccess implements MsrAccess {

    private final String profileName;
    private final SimClock clock;
    private final Map<Integer, RegisterFile> files = new TreeMap<>();

    /** The register files of {@code profile}'s CPUs, driven by {@code clock}. */
    public SimulatedMsrAccess(Profile profile, SimClock clock) {
        this(profile, new SimulatedCpuidSource(profile), clock);
    }

    SimulatedMsrAccess(Profile profile, CpuidSource cpuid, SimClock clock) {
        this.profileName = profile.name();
        this.clock = clock;
        List<Integer> cpus = cpuid.cpus();
        int bsp = cpus.getFirst();
        for (int cpu : cpus) {
            files.put(cpu, new RegisterFile(cpu, cpu == bsp, cpuid.reader(cpu), clock,
                    "simulated CPU " + cpu + " (profile " + profileName + ")"));
        }
    }

    /** The clock this machine's time-stamp counters run on; the execution simulator advances it. */
    public SimClock clock() {
        return clock;
    }

    /** The catalog's view of one simulated CPU, including the IA32_PERF_CAPABILITIES it reports. */
    public CpuContext context(int cpu) {
        return file(cpu).context();
    }

    @Override
    public List<Integer> cpus() {
        return List.copyOf(files.keySet());
    }

    @Override
    public long read(int cpu, int msr) {
        return file(cpu).read(Integer.toUnsignedLong(msr));
    }

    @Override
    public void write(int cpu, int msr, long value) {
        file(cpu).write(Integer.toUnsignedLong(msr), value);
    }

    /** Nothing to release; the registers live as long as the platform that owns them. */
    @Override
    public void close() {
    }

    private RegisterFile file(int cpu) {
        RegisterFile f = files.get(cpu);
        if (f == null) {
            throw new HwException(Cause.NO_SUCH_CPU, "simulated CPU " + cpu + " does not exist (profile "
                    + profileName + " has CPUs " + files.keySet() + ")");
        }
        return f;
    }
}
