package dev.hwtool.linux;

import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.decode.HybridDecoder;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Probe;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.perf.PerfEvents;
import dev.hwtool.linux.perf.PerfProbe;
import dev.hwtool.caps.CpuidReading;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * The verdicts on this machine, composed once for every caller ({@link LinuxPlatform#capabilities()},
 * {@code hwtool caps}, the exporter): a CPU's CPUID decoded, the kernel's facts
 * ({@link LinuxProbe}), and, when asked, the perf facilities tried on this process
 * ({@link PerfProbe}), judged by {@link Verdicts}.
 */
public final class LinuxCapabilities {

    /** The machine the verdicts describe, as {@link dev.hwtool.api.Capabilities#describes()} says it. */
    public static final String THIS_MACHINE = "this machine";

    private LinuxCapabilities() {
    }

    /**
     * This machine judged from the facts and from trying the perf facilities: {@code src}'s first
     * CPU decoded, the kernel facts, the five perf probes on {@code platform}'s binding.
     *
     * <p>The three are independent and run at once: the CPUID decoding on a thread of its own
     * (which it pins to the CPU it reads), the facts on another, the probes on the calling
     * thread (pid 0: this process, as the commands open them). A probe that fails explains itself
     * from the same facts (read once; the kernel's reasons do not change between two calls
     * milliseconds apart) instead of reading /proc and /sys again for every failure.
     */
    static CapabilityReport tried(LinuxPlatform platform, CpuidReading src) {
        FutureTask<CpuCapabilities> cpu = new FutureTask<>(() -> decodeFirst(src));
        FutureTask<LinuxFacts> facts = new FutureTask<>(LinuxProbe::probe);
        Thread.ofPlatform().name("hwtool-caps-cpuid").daemon().start(cpu);
        Thread.ofPlatform().name("hwtool-caps-facts").daemon().start(facts);
        Map<Facility, Probe> probes;
        try (PerfEvents perf = new PerfEvents(platform.binding(), () -> join(facts))) {
            probes = new PerfProbe(perf).all();
        }
        CpuCapabilities decoded = join(cpu);
        LinuxFacts linux = join(facts);
        return CapabilityReport.of(Platform.Kind.HARDWARE, THIS_MACHINE, decoded, coreTypes(src, decoded),
                Verdicts.assess(decoded, linux, probes), Optional.of(linux), probes);
    }

    /** The task's result; its exception as thrown (an HwException keeps its cause and remedy). */
    private static <T> T join(FutureTask<T> task) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * This machine judged from the facts alone, nothing opened: {@code src}'s first CPU decoded
     * and the kernel facts. Cheaper than {@link LinuxPlatform#capabilities()}, and what a
     * report shows for this machine beside a CPU it does not run on (a dump, a simulated CPU).
     */
    public static CapabilityReport fromFacts(CpuidReading src) {
        // as in tried(): the CPUID decoding (pinned, on its own thread) and the facts at once
        FutureTask<CpuCapabilities> decoding = new FutureTask<>(() -> decodeFirst(src));
        Thread.ofPlatform().name("hwtool-caps-cpuid").daemon().start(decoding);
        LinuxFacts linux = LinuxProbe.probe();
        CpuCapabilities cpu = join(decoding);
        return CapabilityReport.of(Platform.Kind.HARDWARE, THIS_MACHINE, cpu, coreTypes(src, cpu),
                Verdicts.assess(cpu, linux), Optional.of(linux), Map.of());
    }

    /**
     * Another CPU (simulated, or from a dump) judged under this host's kernel, drivers and
     * privileges, from the facts alone (read now): what this host would report if it had that CPU.
     */
    public static List<Verdict> judgedHere(CpuCapabilities cpu) {
        return Verdicts.assess(cpu, LinuxProbe.probe());
    }

    private static CpuCapabilities decodeFirst(CpuidReading src) {
        return src.onCpu(src.defaultCpu(), CpuDecoder::decode);
    }

    private static Map<Integer, String> coreTypes(CpuidReading src, CpuCapabilities first) {
        // a CPU out of this process's reach has no core type to show, rather than failing the report
        return HybridDecoder.coreTypes(first, src.reachableCpus(), src::reader);
    }
}
