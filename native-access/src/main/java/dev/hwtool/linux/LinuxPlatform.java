package dev.hwtool.linux;

import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.api.Capabilities;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.api.Cause;
import dev.hwtool.api.Counters;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.perf.PerfCounters;
import dev.hwtool.linux.perf.PerfEvents;
import dev.hwtool.linux.perf.PerfPmus;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;

import java.nio.file.Path;
import java.util.List;

import java.util.Locale;

/**
 * The real machine, through Linux: CPUID by the instruction (default) or /dev/cpu/N/cpuid, MSRs
 * through /dev/cpu/N/msr, on the FFM binding (default) or its JNA twin.
 */
public final class LinuxPlatform implements Platform, CapabilityReport.Reporting {

    private final NativeBinding binding;
    private InstructionCpuidSource instruction;
    private DeviceCpuidSource device;
    private DeviceMsrAccess msr;
    private PerfEvents perf;
    private boolean closed;
    /** What {@link #cpuid()} answers with: "instruction" (default) or "device". */
    private String cpuidSource = "instruction";

    private LinuxPlatform(NativeBinding binding) {
        this.binding = binding;
    }

    /** Opens the hardware backend on the FFM binding. */
    public static LinuxPlatform open() {
        return open("ffm");
    }

    /**
     * Opens the hardware backend on the named binding ({@code ffm} or {@code jna}).
     *
     * @throws HwException UNSUPPORTED when this is not Linux on x86-64
     * @throws IllegalArgumentException for an unknown binding name
     */
    public static LinuxPlatform open(String bindingName) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new HwException(Cause.UNSUPPORTED,
                    "the hardware backend needs Linux on x86-64; this is " + System.getProperty("os.name") + " on " + arch,
                    "use the simulator: --backend sim --profile NAME");
        }
        return new LinuxPlatform(Bindings.open(bindingName));
    }

    public NativeBinding binding() {
        return binding;
    }

    @Override
    public Kind kind() {
        return Kind.HARDWARE;
    }

    @Override
    public String description() {
        return "Linux hardware backend (" + binding.name() + " binding)";
    }

    /** Opens the hardware backend as {@code options} say (binding, CPUID source). */
    public static LinuxPlatform open(Options options) {
        LinuxPlatform p = open(options.binding());
        if (!options.cpuidSource().equals("instruction") && !options.cpuidSource().equals("device")) {
            p.close();
            throw new IllegalArgumentException("unknown CPUID source '" + options.cpuidSource() + "' (instruction, device)");
        }
        p.cpuidSource = options.cpuidSource();
        return p;
    }

    /** CPUID through the instruction on a thread pinned to the requested CPU, or the device if opened so. */
    @Override
    public synchronized CpuidReading cpuid() {
        ensureOpen();
        if (cpuidSource.equals("device")) {
            return deviceCpuid();
        }
        return cpuid("instruction");
    }

    /** CPUID through {@code /dev/cpu/N/cpuid}. */
    public synchronized CpuidReading deviceCpuid() {
        ensureOpen();
        if (device == null) {
            device = new DeviceCpuidSource(binding);
        }
        return device;
    }

    /** The named CPUID source: {@code instruction} or {@code device}. */
    public synchronized CpuidReading cpuid(String source) {
        ensureOpen();
        return switch (source) {
            case "instruction" -> {
                if (instruction == null) {
                    // CPUs outside this process's affinity mask are read through the kernel's driver
                    instruction = new InstructionCpuidSource(binding, CpuList.SYSFS, deviceCpuid());
                }
                yield instruction;
            }
            case "device" -> deviceCpuid();
            default -> throw new IllegalArgumentException("unknown CPUID source '" + source + "' (instruction, device)");
        };
    }

    /** MSRs through {@code /dev/cpu/N/msr}; nodes are opened on first use and closed by {@link #close()}. */
    @Override
    public synchronized MsrAccess msr() {
        ensureOpen();
        if (msr == null) {
            msr = new DeviceMsrAccess(binding);
        }
        return msr;
    }

    /**
     * perf_event_open on this platform's binding. Events opened through it that are still open
     * when the platform closes are closed then (with their mappings).
     */
    public synchronized PerfEvents perf() {
        ensureOpen();
        if (perf == null) {
            perf = new PerfEvents(binding);
        }
        return perf;
    }

    /** perf_event_open recording of commands ({@link dev.hwtool.linux.perf.PerfRecorder}). */
    @Override
    public dev.hwtool.api.Recorder recorder() {
        ensureOpen();
        return new dev.hwtool.linux.perf.PerfRecorder(perf());
    }

    /** perf counting events of this process ({@link dev.hwtool.linux.perf.PerfCounters}); closed with the platform. */
    @Override
    public Counters counters(Counters.Scope scope, List<String> events) {
        PerfEvents p = perf();
        return PerfCounters.open(p, new PerfPmus(Path.of("/sys"), p.errors()), scope, events);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this platform is closed (" + description() + ")");
        }
    }

    /**
     * The verdicts {@code hwtool caps} gives for this machine, with what they rest on: the first
     * CPU of {@link #cpuid()} decoded, the kernel's facts, and the perf facilities tried on this
     * process ({@link LinuxCapabilities}).
     */
    @Override
    public Capabilities capabilities() {
        return capabilityReport().capabilities();
    }

    /** The verdicts with what they rest on, as {@code hwtool caps} reports them. */
    @Override
    public CapabilityReport capabilityReport() {
        return LinuxCapabilities.tried(this, cpuid());
    }

    /** As {@link #capabilityReport()}, with CPUID from the named source ({@code instruction} or {@code device}). */
    public CapabilityReport capabilityReport(String cpuidSource) {
        return LinuxCapabilities.tried(this, cpuid(cpuidSource));
    }

    /**
     * CPU {@code cpu}'s CPUID through the instruction in user space held against the kernel's
     * {@code /dev/cpu/N/cpuid}: where a hypervisor answers the two differently, the check names
     * the leaves and bits. A CPU this process may not run on is not compared (the instruction
     * cannot run there).
     */
    public CpuidPathCheck cpuidPaths(int cpu) {
        ensureOpen();
        return CpuidPathCheck.of(new InstructionCpuidSource(binding), deviceCpuid(), cpu);
    }

    @Override
    public synchronized void close() {
        closed = true;
        try {
            if (perf != null) {
                perf.close();
            }
        } finally {
            closeDevices();
        }
    }

    private void closeDevices() {
        try {
            if (msr != null) {
                msr.close();
            }
        } finally {
            try {
                if (device != null) {
                    device.close();
                }
            } finally {
                binding.close();
            }
        }
    }
}
