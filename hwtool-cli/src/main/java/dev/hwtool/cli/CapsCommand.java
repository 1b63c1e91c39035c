package dev.hwtool.cli;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.decode.HybridDecoder;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Probe;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.dump.DumpCpuidSource;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.LinuxProbe;
import dev.hwtool.linux.perf.PerfProbe;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * "What can this machine do, and why not": the CPU's debug and perfmon capabilities decoded
 * from CPUID, what Linux offers, and a verdict with a fix for each facility.
 *
 * <p>The CPU part describes the CPUID source (this machine, a dump, or a simulated profile).
 * The Linux part and the verdicts always describe the machine hwtool runs on, and say so when
 * the CPU part does not: for a machine not seen, nothing is invented.
 */
@Command(name = "caps", sortOptions = false,
        description = {"Capability report: what this machine can do (CPUID, MSRs, LBR, BTS, counters, rdpmc), why not, and how to fix it."})
final class CapsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "JSON instead of text (fields documented in README.md).")
    boolean json;

    @Option(names = "--nfd", description = "Node Feature Discovery labels (hwtool.dev/NAME=VALUE lines) instead of the report.")
    boolean nfd;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "With --nfd: replace FILE atomically instead of printing (an NFD features.d file).")
    Path output;

    @Option(names = "--cpuid-dump", paramLabel = "FILE",
            description = "Decode a CPUID dump ('cpuid -r' or AIDA64/InstLatx64 layout) instead of this machine's CPU.")
    Path cpuidDump;

    @Option(names = "--cpu", paramLabel = "N", description = "The logical CPU to decode (default: the first).")
    Integer cpu;

    @Option(names = "--source", paramLabel = "instruction|device", defaultValue = "instruction",
            description = "Hardware backend: where CPUID comes from (default: the instruction).")
    String source;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (cpuidDump != null && backend.profile != null) {
            throw new UsageException("--cpuid-dump and --profile both name a CPU; give one");
        }
        if (!source.equals("instruction") && !source.equals("device")) {
            throw new UsageException("unknown --source '" + source + "' (instruction, device)");
        }
        if (nfd && (json || cpuidDump != null)) {
            throw new UsageException(json ? "--nfd and --json are two formats; give one"
                    : "--nfd labels a node; a CPUID dump has no node to label");
        }
        if (output != null && !nfd) {
            throw new UsageException("-o/--output applies to --nfd");
        }
        CapsReport report = cpuidDump != null ? fromDump() : fromPlatform();
        PrintWriter out = spec.commandLine().getOut();
        if (nfd) {
            return writeNfd(report, out);
        }
        if (json) {
            out.println(Json.write(CapsJson.of(report)));
        } else {
            out.print(new CapsText(spec.commandLine().getColorScheme().ansi()).render(report));
        }
        out.flush();
        return ExitCodes.OK;
    }

    /**
     * On the simulator the labels judge the simulated CPU under this host's kernel, drivers and
     * privileges, as {@code hwtool exporter} does: what this host would report with that CPU.
     */
    private int writeNfd(CapsReport report, PrintWriter out) {
        List<Verdict> verdicts = report.simulated() ? Verdicts.assess(report.caps(), report.linux()) : report.verdicts();
        String text = NfdLabels.render(NfdLabels.of(report.caps(), verdicts, report.simulated()),
                report.sourceDetail() + (report.simulated() ? ", judged under this host's kernel" : ""));
        if (output == null) {
            out.print(text);
            out.flush();
            return ExitCodes.OK;
        }
        // the output policy: atomic for a regular file (what NFD's features.d needs: it must never
        // read a half-written file), written through for a device or FIFO
        try (dev.hwtool.io.OutputFile f = dev.hwtool.io.OutputFile.open(output)) {
            f.write(java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            f.commit();
        }
        return ExitCodes.OK;
    }

    private CapsReport fromDump() {
        DumpCpuidSource dump = DumpCpuidSource.load(cpuidDump);
        ThisMachine here = thisMachine(null);
        return build(dump, false, here, "this machine, not the dump: a dump carries no kernel to judge", Map.of());
    }

    private CapsReport fromPlatform() {
        try (Platform platform = backend.open()) {
            boolean simulated = platform.kind() == Platform.Kind.SIMULATED;
            if (simulated) {
                if (spec.commandLine().getParseResult().hasMatchedOption("--source")) {
                    throw new UsageException("--source applies to the hardware backend, not the simulator");
                }
                ThisMachine here = thisMachine(null);
                return build(platform.cpuid(), true, here,
                        "this machine, not the simulated CPU: the simulator's own facilities come with its register file",
                        Map.of());
            }
            LinuxPlatform linux = (LinuxPlatform) platform;
            CpuidSource src = linux.cpuid(source);
            ThisMachine here = thisMachine(src);
            // The perf facilities are tried for real, with the attrs the record and stat commands
            // open, so that caps says what those commands will meet (the probe overrules the facts).
            Map<Facility, Probe> probes = new PerfProbe(linux.perf()).all();
            return build(src, false, here, "", probes);
        }
    }

    /**
     * This machine's CPU (for the verdicts) and Linux facts, whatever the report's CPU part shows.
     *
     * @param source    the CPUID source {@code cpu} was decoded from, so that the report can reuse
     *                  the decoding when it describes the same CPU of the same source
     * @param cpuNumber the logical CPU decoded
     */
    private record ThisMachine(CpuCapabilities cpu, String cpuError, LinuxFacts linux, CpuidSource source,
                               int cpuNumber) {
    }

    private ThisMachine thisMachine(CpuidSource live) {
        LinuxFacts linux = LinuxProbe.probe();
        if (live != null) {
            return decoded(live, linux);
        }
        try (LinuxPlatform hw = LinuxPlatform.open(backend.binding)) {
            return decoded(hw.cpuid(), linux);
        } catch (HwException e) {
            return new ThisMachine(null, e.getMessage(), linux, null, -1);
        }
    }

    private static ThisMachine decoded(CpuidSource src, LinuxFacts linux) {
        int first = src.cpus().getFirst();
        return new ThisMachine(CpuDecoder.decode(src.reader(first)), null, linux, src, first);
    }

    private CapsReport build(CpuidSource src, boolean simulated, ThisMachine here, String verdictScope,
                             Map<Facility, Probe> probes) {
        List<Integer> cpus = src.cpus();
        int c = cpu != null ? cpu : cpus.getFirst();
        if (!cpus.contains(c)) {
            src.cpuid(c, 0, 0); // the source names the cause (offline, not in the dump, ...)
        }
        // On the hardware backend the verdicts' CPU is usually the report's CPU: decode it once
        // (every CPUID there is a pinned call, and a VM exit under a hypervisor).
        CpuCapabilities caps = here.source() == src && here.cpuNumber() == c
                ? here.cpu() : CpuDecoder.decode(src.reader(c));
        Map<Integer, String> coreTypes = new LinkedHashMap<>();
        if (caps.hybrid()) {
            for (int n : cpus) {
                coreTypes.put(n, HybridDecoder.coreType(src.reader(n)));
            }
        }
        List<Verdict> verdicts = here.cpu() == null ? List.of() : Verdicts.assess(here.cpu(), here.linux(), probes);
        String scope = verdictScope.isEmpty() ? "this machine" : verdictScope;
        String unavailable = here.cpu() == null ? "cannot read this machine's CPUID: " + here.cpuError() : null;
        return new CapsReport(src.name(), src.description(), simulated, c, caps, coreTypes,
                here.linux(), verdicts, scope, unavailable, here.cpu() == null ? Map.of() : probes);
    }
}
