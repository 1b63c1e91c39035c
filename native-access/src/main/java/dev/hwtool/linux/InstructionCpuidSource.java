package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.MachineCode;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * CPUID answered by the instruction itself: the calling thread is pinned to the CPU asked for
 * (sched_setaffinity), checked to run there (sched_getcpu), executes the machine-code stub, and
 * gets its previous affinity mask back whatever happens.
 *
 * <p>Every file read (sysfs) happens before the thread is pinned or after it is released, so a
 * virtual thread has no blocking point at which it could leave its pinned carrier in between.
 *
 * <p>{@link #onCpu} pins once for many reads of one CPU: a decoder reads ten leaves or more, and
 * each pin costs three system calls (get the mask, set it, set it back) besides sched_getcpu.
 * Inside such a section a read of that CPU is the stub alone; a read of another CPU pins to it
 * and back, checked against the mask the thread had before the section.
 *
 * <p>A process in a cpuset (taskset, a container, a Kubernetes pod with a static CPU policy) may
 * not run on every online CPU. {@link #defaultCpu()} is then the first CPU it may run on, and a
 * CPU outside its mask is answered by the {@code outsideMask} source when one is given (the
 * kernel's /dev/cpu/N/cpuid, which runs CPUID on that CPU for us: arch/x86/kernel/cpuid.c,
 * smp_call_function_single); {@link #pathOf} says which answered.
 */
public final class InstructionCpuidSource implements CpuidReading {

    private final NativeBinding binding;
    private final Path sysfsRoot;
    /** Answers CPUs outside this process's affinity mask, or null to refuse them. */
    private final CpuidReading outsideMask;
    /** The pinned section each thread is in, if any ({@link #onCpu}). */
    private final ThreadLocal<Section> sections = new ThreadLocal<>();

    public InstructionCpuidSource(NativeBinding binding) {
        this(binding, CpuList.SYSFS);
    }

    /** @param sysfsRoot where sysfs is mounted; its devices/system/cpu/online lists the CPUs */
    public InstructionCpuidSource(NativeBinding binding, Path sysfsRoot) {
        this(binding, sysfsRoot, null);
    }

    /**
     * @param outsideMask reads a CPU this process may not run on (the device source), or null to
     *                    refuse such a CPU with the reason
     */
    public InstructionCpuidSource(NativeBinding binding, Path sysfsRoot, dev.hwtool.api.CpuidSource outsideMask) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.sysfsRoot = Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        this.outsideMask = outsideMask == null ? null : CpuidReading.of(outsideMask);
    }

    @Override
    public String name() {
        return "instruction";
    }

    @Override
    public String description() {
        return "CPUID instruction on a thread pinned to each CPU (" + binding.name() + " binding)";
    }

    /** The online CPUs. */
    @Override
    public List<Integer> cpus() {
        return CpuList.online(sysfsRoot);
    }

    /** The first online CPU this process may run on: where a command reads when no CPU is named. */
    @Override
    public int defaultCpu() {
        List<Integer> online = cpus();
        BitSet allowed = call(binding::schedGetaffinity);
        return online.stream().filter(allowed::get).findFirst().orElse(online.getFirst());
    }

    /**
     * The online CPUs this process may run on, and those outside its mask that the other source
     * can read (its node is readable).
     */
    @Override
    public List<Integer> reachableCpus() {
        BitSet allowed = call(binding::schedGetaffinity);
        return cpus().stream().filter(c -> allowed.get(c) || readableElsewhere(c)).toList();
    }

    private boolean readableElsewhere(int cpu) {
        if (outsideMask == null) {
            return false;
        }
        try {
            outsideMask.cpuid(cpu, 0, 0);
            return true;
        } catch (HwException e) {
            return false;
        }
    }

    /** {@code instruction}, or the other source's name for a CPU outside this process's mask. */
    @Override
    public String pathOf(int cpu) {
        if (outsideMask != null && !call(binding::schedGetaffinity).get(cpu) && cpus().contains(cpu)) {
            return outsideMask.name();
        }
        return name();
    }

    @Override
    public CpuidRegs regs(int cpu, int leaf, int subleaf) {
        Section section = sections.get();
        if (section != null && section.cpu == cpu) {
            return binding.cpuid(leaf, subleaf);
        }
        return pinned(cpu, section, allowed -> binding.cpuid(leaf, subleaf),
                other -> other.regs(cpu, leaf, subleaf));
    }

    /**
     * Pins the thread to {@code cpu} once, runs {@code reads}, and gives the thread its previous
     * mask back whatever happens. A virtual thread reads as {@link #reader} does, pinned per read:
     * were it to block inside {@code reads} it could resume on another carrier, not pinned.
     */
    @Override
    public <T> T onCpu(int cpu, Function<CpuidReader, T> reads) {
        Objects.requireNonNull(reads, "reads");
        Section outer = sections.get();
        if (Thread.currentThread().isVirtual() || (outer != null && outer.cpu == cpu)) {
            return reads.apply(reader(cpu));
        }
        return pinned(cpu, outer, allowed -> {
            sections.set(new Section(cpu, allowed));
            try {
                return reads.apply(reader(cpu));
            } finally {
                if (outer == null) {
                    sections.remove();
                } else {
                    sections.set(outer);
                }
            }
        }, other -> other.onCpu(cpu, reads));
    }

    /**
     * Runs {@code body} on this thread held on {@code cpu} (checked with sched_getcpu), then gives
     * the thread the mask it had back, whatever happens. {@code body} gets the CPUs the thread may
     * run on: inside a section (outer) the mask is that section's one CPU, and what the thread may
     * run on is the mask it had before the section. A CPU outside that mask is read by
     * {@code elsewhere} through the {@code outsideMask} source, when there is one.
     */
    private <T> T pinned(int cpu, Section outer, Function<BitSet, T> body, Function<CpuidReading, T> elsewhere) {
        checkRunsHere();
        BitSet previous = call(binding::schedGetaffinity);
        BitSet allowed = outer != null ? outer.allowed : previous;
        if (cpu < 0 || !allowed.get(cpu)) {
            return outside(cpu, allowed, elsewhere);
        }
        pin(cpu, allowed);
        RuntimeException primary = null;
        try {
            verifyOn(cpu);
            return body.apply(allowed);
        } catch (RuntimeException e) {
            primary = e;
            throw e;
        } finally {
            restore(previous, primary);
        }
    }

    /** A pinned section of this thread: the CPU it is held on and the mask it had before. */
    private record Section(int cpu, BitSet allowed) {
    }

    private void checkRunsHere() {
        if (!MachineCode.runsHere()) {
            throw new HwException(Cause.UNSUPPORTED,
                    "the CPUID instruction needs an x86-64 CPU; this JVM runs on " + System.getProperty("os.arch"),
                    "read CPUID from a dump file or use the simulator");
        }
        if (cpuidFaulting()) {
            throw new HwException(Cause.UNSUPPORTED, "CPUID faulting is on for this process (arch_prctl ARCH_GET_CPUID"
                    + " answers 0): the CPUID instruction would raise SIGSEGV in user space",
                    "read CPUID through /dev/cpu/N/cpuid (--source device)");
        }
    }

    /** x86-64 __NR_arch_prctl (arch/x86/entry/syscalls/syscall_64.tbl). */
    private static final long SYS_ARCH_PRCTL = 158;
    /** ARCH_GET_CPUID (arch/x86/include/uapi/asm/prctl.h): 1 when CPUID runs, 0 when it faults. */
    private static final long ARCH_GET_CPUID = 0x1011;
    /** Asked once: only arch_prctl(ARCH_SET_CPUID) in this process changes it, and hwtool never calls that. */
    private volatile Boolean faulting;

    /**
     * Whether the kernel has CPUID faulting on for this process (arch/x86/kernel/process.c,
     * set_cpuid_mode; a CPU with MSR_PLATFORM_INFO[32], the cpuid_fault flag). The instruction
     * then raises #GP, delivered as SIGSEGV, which would end the JVM. Kernels before 4.12 have
     * no ARCH_GET_CPUID (EINVAL): CPUID always runs there.
     */
    private boolean cpuidFaulting() {
        Boolean f = faulting;
        if (f == null) {
            try {
                f = binding.syscall(SYS_ARCH_PRCTL, ARCH_GET_CPUID) == 0;
            } catch (ErrnoException e) {
                f = false;
            }
            faulting = f;
        }
        return f;
    }

    /**
     * A CPU this thread may not run on: read through the other source when there is one and the
     * CPU is online, else refused with the reason (offline, or fenced off with the other source's
     * reason too).
     */
    private <T> T outside(int cpu, BitSet allowed, Function<CpuidReading, T> elsewhere) {
        if (outsideMask == null || cpu < 0 || !CpuList.online(sysfsRoot).contains(cpu)) {
            throw outsideMask(cpu, allowed, null);
        }
        try {
            return elsewhere.apply(outsideMask);
        } catch (HwException e) {
            throw outsideMask(cpu, allowed, e);
        }
    }

    /** Holds this thread on {@code cpu}, one of the CPUs it may run on; the caller then checks it ({@link #verifyOn}). */
    private void pin(int cpu, BitSet allowed) {
        BitSet only = new BitSet();
        only.set(cpu);
        call(() -> {
            binding.schedSetaffinity(only);
            return null;
        });
    }

    /** The pinned thread runs on {@code cpu}; inside the caller's try, so a failure still restores the mask. */
    private void verifyOn(int cpu) {
        int running = call(binding::schedGetcpu);
        if (running != cpu) {
            throw new HwException(Cause.OS_ERROR, "thread pinned to CPU " + cpu + " still runs on CPU " + running);
        }
    }

    private void restore(BitSet previous, RuntimeException primary) {
        try {
            binding.schedSetaffinity(previous);
        } catch (ErrnoException e) {
            HwException failed = new HwException(Cause.OS_ERROR,
                    "could not restore this thread's CPU affinity to " + CpuList.format(previous.stream().boxed().toList())
                            + ": " + e.getMessage(), null, e);
            if (primary != null) {
                primary.addSuppressed(failed);
            } else {
                throw failed;
            }
        }
    }

    /**
     * The CPU is not in this thread's mask: offline or absent, or fenced off by taskset/cpuset
     * ({@code other}: why the other source could not read it either, or null).
     */
    private HwException outsideMask(int cpu, BitSet allowed, HwException other) {
        List<Integer> online = CpuList.online(sysfsRoot);
        if (!online.contains(cpu)) {
            return NoSuchCpu.of(cpu, sysfsRoot, "", null);
        }
        String mask = CpuList.format(allowed.stream().boxed().toList());
        String why = "CPU " + cpu + " is online but outside this process's CPU affinity (allowed: " + mask
                + "), so the CPUID instruction cannot run there";
        if (other == null) {
            return new HwException(Cause.UNSUPPORTED, why,
                    "run without the taskset/cpuset restriction, or read CPU " + cpu
                            + " through /dev/cpu/" + cpu + "/cpuid (the device source)");
        }
        return new HwException(other.cause(), why + ", and " + other.getMessage(),
                "run without the taskset/cpuset restriction" + other.remedy().map(r -> ", or " + r).orElse(""), other);
    }

    /** A scheduler call failing is an OS error; the ErrnoException's message names call and errno. */
    private static <T> T call(Supplier<T> call) {
        try {
            return call.get();
        } catch (ErrnoException e) {
            throw new HwException(Cause.OS_ERROR, e.getMessage(), null, e);
        }
    }
}
