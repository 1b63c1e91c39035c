package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.sys.LinuxProbe;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool doctor}: every precondition of hwtool's hardware backend on this machine, one
 * check each with ok/warn/fail and the fix, then the per-facility verdicts, then one live,
 * read-only RDMSR to confirm. Exit 0 when no check fails (warnings allowed); otherwise the exit
 * code of the first failing check's cause.
 *
 * <p>doctor is about the host, so the simulator is refused: a simulated CPU has no
 * preconditions to check. The CLI's tests point the probe at a fixture /proc and /sys tree through
 * {@link #PROBE_ROOT}, a package-private seam a user cannot reach (no option, no property): the
 * facts then come from that tree, and the live read, which could only touch this machine, is not
 * run. A library user probes a tree of their own with {@code LinuxProbe.probe(Path)}.
 */
@Command(name = "doctor", sortOptions = false,
        description = {"Check every precondition of MSR, perf and CPUID access on this machine and say how to fix",
                "what is missing: msr driver, device nodes and permissions, CAP_SYS_RAWIO, user namespace, lockdown,",
                "msr.allow_writes, perf_event_paranoid, PMUs, rdpmc, container; then a live read of",
                "IA32_TIME_STAMP_COUNTER on the first CPU.",
                "Exit 0 when nothing fails (warnings allowed), else the exit code of the first failing check."})
final class DoctorCommand implements Callable<Integer> {

    /** Test seam: the root this thread's doctor probes instead of "/", when set. */
    static final ThreadLocal<Path> PROBE_ROOT = new ThreadLocal<>();

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "JSON instead of text (fields documented in README.md).")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (backend.simulated()) {
            throw new UsageException("doctor checks this machine's hardware access; a simulated CPU has no"
                    + " preconditions (drop --backend sim/--profile, or unset HWTOOL_BACKEND)");
        }
        Path root = PROBE_ROOT.get();
        LinuxFacts linux = root == null ? LinuxProbe.probe() : LinuxProbe.probe(root);
        CpuCapabilities cpu = null;
        String cpuError = null;
        DoctorCheck paths = null;
        LiveRead live;
        try (LinuxPlatform hw = LinuxPlatform.open(backend.binding)) {
            try {
                CpuidReading src = hw.cpuid();
                CpuChoice choice = CpuChoice.of(src, null);
                cpu = src.onCpu(choice.cpu(), CpuDecoder::decode);
                if (root == null) {
                    paths = Doctor.cpuidPaths(choice, hw.cpuidPaths(choice.cpu()));
                }
            } catch (HwException e) {
                cpuError = e.getMessage();
            }
            live = root != null ? new LiveRead.NotRun("the facts come from " + root + ", not this machine")
                    : LiveProbe.readTsc(hw, firstCpu(linux));
        } catch (HwException e) {
            cpuError = e.getMessage();
            live = new LiveRead.NotRun("no hardware backend: " + e.getMessage());
        }
        List<DoctorCheck> checks = new java.util.ArrayList<>(Doctor.checks(linux, cpu, cpuError, live));
        if (paths != null) {
            // beside the /dev/cpu/N/cpuid check it rests on
            int at = checks.stream().map(DoctorCheck::name).toList().indexOf("cpuid_devices");
            checks.add(at < 0 ? checks.size() : at + 1, paths);
        }
        List<Verdict> verdicts = cpu == null ? List.of() : Verdicts.assess(cpu, linux);
        DoctorReport report = new DoctorReport(root == null ? "this machine" : root.toString(), checks, verdicts,
                cpu == null ? "cannot read this machine's CPUID: " + cpuError : null);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(report.json()));
        } else {
            out.print(report.text(spec.commandLine().getColorScheme().ansi()));
        }
        out.flush();
        return report.exitCode();
    }

    /** CPU 0 when online (where rdmsr without -p reads), else the first online CPU. */
    private static int firstCpu(LinuxFacts linux) {
        List<Integer> online = linux.onlineCpus().orElse(List.of());
        return online.isEmpty() || online.contains(0) ? 0 : online.getFirst();
    }
}
