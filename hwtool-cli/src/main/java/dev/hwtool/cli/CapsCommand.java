package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;

import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.decode.HybridDecoder;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.dump.DumpCpuidSource;
import dev.hwtool.linux.LinuxCapabilities;
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

    @Option(names = "--cpu", paramLabel = "N", converter = Numbers.CpuNumber.class,
            description = "The logical CPU to decode, " + Numbers.CpuNumber.RANGE + " (default: the first).")
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
        List<Verdict> verdicts = report.simulated() ? LinuxCapabilities.judgedHere(report.caps()) : report.verdicts();
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
        return report(dump, null, false, thisMachine(),
                "this machine, not the dump: a dump carries no kernel to judge");
    }

    private CapsReport fromPlatform() {
        try (Platform platform = backend.open()) {
            if (platform.kind() == Platform.Kind.SIMULATED) {
                if (spec.commandLine().getParseResult().hasMatchedOption("--source")) {
                    throw new UsageException("--source applies to the hardware backend, not the simulator");
                }
                // The report shows the simulated CPU's CPUID beside this machine's verdicts; the
                // simulator's own verdicts (capabilities()) would build the whole simulated
                // machine only to be left out, so its CPUID is decoded as a dump's is.
                return report(CpuidReading.of(platform.cpuid()), null, true, thisMachine(),
                        "this machine, not the simulated CPU: the simulator's own facilities come with its register file");
            }
            // The perf facilities are tried for real, with the attrs the record and stat commands
            // open, so that caps says what those commands will meet (the probe overrules the facts).
            LinuxPlatform linux = (LinuxPlatform) platform;
            CapabilityReport here = linux.capabilityReport(source);
            CapsReport r = report(linux.cpuid(source), here, false, new Judged(here, here.linux().orElseThrow(), null), "");
            return r.withCpuidPaths(linux.cpuidPaths(r.cpu()));
        }
    }

    /** The capabilities the verdicts come from, or why there are none (with the facts, which are always read). */
    private record Judged(CapabilityReport caps, LinuxFacts linux, String unavailable) {
    }

    /** This machine from the facts alone (nothing opened), for a report whose CPU is not this machine's. */
    private Judged thisMachine() {
        try (LinuxPlatform hw = LinuxPlatform.open(backend.binding)) {
            CapabilityReport caps = LinuxCapabilities.fromFacts(hw.cpuid());
            return new Judged(caps, caps.linux().orElseThrow(), null);
        } catch (HwException e) {
            return new Judged(null, LinuxProbe.probe(), "cannot read this machine's CPUID: " + e.getMessage());
        }
    }

    /**
     * @param shown the capabilities of {@code src}'s first CPU when the caller has them (their
     *              decoding is reused when {@code --cpu} names that CPU), or null
     */
    private CapsReport report(CpuidReading src, CapabilityReport shown, boolean simulated, Judged judged, String scope) {
        List<Integer> cpus = src.cpus();
        CpuChoice choice = CpuChoice.of(src, cpu);
        int c = choice.cpu();
        if (!cpus.contains(c)) {
            src.cpuid(c, 0, 0); // the source names the cause (offline, not in the dump, ...)
        }
        // the capabilities shown were decoded from the source's default CPU
        boolean first = shown != null && cpu == null;
        CpuCapabilities caps = first ? shown.decoded() : src.onCpu(c, CpuDecoder::decode);
        Map<Integer, String> coreTypes = first ? shown.coreTypes()
                : HybridDecoder.coreTypes(caps, src.reachableCpus(), src::reader);
        return new CapsReport(src.name(), src.description(), simulated, c, caps, coreTypes, judged.linux(),
                judged.caps() == null ? List.of() : judged.caps().verdicts(),
                scope.isEmpty() ? LinuxCapabilities.THIS_MACHINE : scope, judged.unavailable(),
                judged.caps() == null ? Map.of() : judged.caps().probes(), choice, null);
    }
}
