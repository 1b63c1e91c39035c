package dev.hwtool.sim;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.msr.MsrMachine;
import dev.hwtool.sim.cpu.SimulatedMachine;

import java.util.List;

/**
 * MSRs of a simulated machine through the register-level contract: each CPU's registers
 * ({@link dev.hwtool.sim.cpu.SimulatedCpu#rdmsr}). Failures carry the causes the hardware
 * backend gives for the same condition: NO_SUCH_CPU for a CPU the profile lacks (ENXIO from
 * the msr driver), and REGISTER_FAULT for every #GP (EIO from the msr driver,
 * arch/x86/kernel/msr.c).
 *
 * <p>The registers start in the state {@code BootState} describes. Deterministic: the same
 * accesses in the same order give the same values, with no wall clock involved.
 */
public final class SimulatedMsrAccess implements MsrAccess, MsrMachine {

    private final SimulatedMachine machine;
    private final String backend;

    /** The registers of {@code machine}, simulating {@code profile} ({@link Profile#backend()} names them in the journal). */
    public SimulatedMsrAccess(SimulatedMachine machine, Profile profile) {
        this.machine = machine;
        this.backend = profile.backend();
    }

    /** The catalog's view of one simulated CPU, including the IA32_PERF_CAPABILITIES it reports. */
    @Override
    public CpuContext context(int cpu) {
        return machine.cpu(cpu).context();
    }

    /** {@link Profile#backend()}: "sim:" and the built-in name or the dump file's absolute path, as the CLI's journal says. */
    @Override
    public String backend() {
        return backend;
    }

    @Override
    public List<Integer> cpus() {
        return machine.cpuNumbers();
    }

    @Override
    public long read(int cpu, int msr) {
        return machine.cpu(cpu).rdmsr(Integer.toUnsignedLong(msr));
    }

    @Override
    public void write(int cpu, int msr, long value) {
        machine.cpu(cpu).wrmsr(Integer.toUnsignedLong(msr), value);
    }

    /** Nothing to release; the registers live as long as the platform that owns them. */
    @Override
    public void close() {
    }
}
