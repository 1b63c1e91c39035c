package dev.hwtool.sim;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrMachine;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.SimulatedMachine;
import dev.hwtool.sim.cpu.internal.CpuInternals;

import java.util.List;

/**
 * MSRs of a simulated machine through the register-level contract: each CPU's registers
 * ({@link dev.hwtool.sim.cpu.LogicalProcessor#rdmsr}). Failures carry the causes the hardware
 * backend gives for the same condition: NO_SUCH_CPU for a CPU the profile lacks (ENXIO from
 * the msr driver), and REGISTER_FAULT for every #GP (EIO from the msr driver,
 * arch/x86/kernel/msr.c).
 *
 * <p>The registers start in the state {@code BootState} describes. Deterministic: the same
 * accesses in the same order give the same values, with no wall clock involved.
 *
 * <p>A careful write that names no journal goes to the platform's own ({@link
 * SimulatedPlatform#journalDirectory()}), never to the journal of this machine's registers. Once the
 * platform is closed, every call is refused ({@link dev.hwtool.api.HwException#closed}).
 *
 * <p>Not public: users have it as {@link SimulatedPlatform#msr()}, an {@link MsrAccess}; the
 * machine view it gives the careful write path ({@link MsrMachine}: the catalog's view of each
 * CPU, the platform's own journal) is in packages the api module exports to hwtool's modules only.
 */
final class SimulatedMsrAccess implements MsrAccess, MsrMachine {

    private static final CpuInternals.CpuView<LogicalProcessor> CPU = CpuInternals.view(LogicalProcessor.class);

    private final SimulatedMachine machine;
    private final String backend;
    private final SimulatedPlatform platform;

    /**
     * The registers of {@code machine}, simulating {@code profile} ({@link Profile#backend()} names
     * them in the journal), as long as {@code platform} is open.
     */
    SimulatedMsrAccess(SimulatedMachine machine, Profile profile, SimulatedPlatform platform) {
        this.machine = machine;
        this.backend = profile.backend();
        this.platform = platform;
    }

    /** The platform's own journal. */
    @Override
    public MsrJournal journal() {
        platform.requireOpen("MsrAccess");
        return new MsrJournal(platform.journalDirectory());
    }

    /** The simulated CPUs' CPUID and the simulated platform's own journal. */
    @Override
    public Origin origin() {
        platform.requireOpen("MsrAccess");
        return new Origin(backend, platform.cpuid(), platform.journalDirectory());
    }

    /** The catalog's view of one simulated CPU, including the IA32_PERF_CAPABILITIES it reports. */
    @Override
    public CpuContext context(int cpu) {
        platform.requireOpen("MsrAccess");
        return CPU.context(machine.cpu(cpu));
    }

    /** {@link Profile#backend()}: "sim:" and the built-in name or the dump file's absolute path, as the CLI's journal says. */
    @Override
    public String backend() {
        return backend;
    }

    @Override
    public List<Integer> cpus() {
        platform.requireOpen("MsrAccess");
        return machine.cpuNumbers();
    }

    @Override
    public long read(int cpu, int msr) {
        platform.requireOpen("MsrAccess");
        return machine.cpu(cpu).rdmsr(Integer.toUnsignedLong(msr));
    }

    @Override
    public void write(int cpu, int msr, long value) {
        platform.requireOpen("MsrAccess");
        machine.cpu(cpu).wrmsr(Integer.toUnsignedLong(msr), value);
    }

    /** Nothing to release; the registers live as long as the platform that owns them. */
    @Override
    public void close() {
    }
}
