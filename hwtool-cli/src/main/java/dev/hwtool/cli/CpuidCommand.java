package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRawFormat;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.linux.LinuxPlatform;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Raw CPUID in {@code cpuid -r} layout, so the output can be read back as a dump (by hwtool's
 * {@code --cpuid-dump}/{@code --profile}, or by {@code cpuid -f}).
 */
@Command(name = "cpuid", sortOptions = false,
        description = {"Print raw CPUID leaves in 'cpuid -r' layout: every leaf and subleaf the CPU reports.",
                "The output can be read back as a dump (hwtool caps --cpuid-dump FILE, cpuid -f FILE)."})
final class CpuidCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "-1", description = "Only one CPU (the first this process may run on, or the one given with -p), with a 'CPU:' header as 'cpuid -1 -r'.")
    boolean one;

    @Option(names = {"-p", "--cpu"}, paramLabel = "CPU", converter = Numbers.CpuNumber.class,
            description = "Only this logical CPU, " + Numbers.CpuNumber.RANGE + ".")
    Integer cpu;

    @Option(names = {"-l", "--leaf"}, paramLabel = "LEAF", converter = Numbers.UInt32.class,
            description = "Only this leaf, 0 to 0xffffffff (decimal or 0x hex).")
    Integer leaf;

    @Option(names = {"-s", "--subleaf"}, paramLabel = "SUBLEAF", converter = Numbers.UInt32.class,
            description = "With -l: only this subleaf, 0 to 0xffffffff (default 0).")
    Integer subleaf;

    @Option(names = "--source", paramLabel = "instruction|device", defaultValue = "instruction",
            description = "Hardware backend: the CPUID instruction on a pinned thread (default) or /dev/cpu/N/cpuid.")
    String source;

    @Option(names = "--json", description = "JSON instead of text.")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (subleaf != null && leaf == null) {
            // The cpuid tool's own rule and wording.
            throw new UsageException("-s/--subleaf requires that -l/--leaf also be specified");
        }
        if (!source.equals("instruction") && !source.equals("device")) {
            throw new UsageException("unknown --source '" + source + "' (instruction, device)");
        }
        try (Platform platform = backend.open()) {
            if (platform.kind() == Platform.Kind.SIMULATED && spec.commandLine().getParseResult().hasMatchedOption("--source")) {
                throw new UsageException("--source applies to the hardware backend, not the simulator");
            }
            CpuidReading src = platform instanceof LinuxPlatform lp ? lp.cpuid(source) : CpuidReading.of(platform.cpuid());
            List<Integer> cpus = selectCpus(src);
            List<CpuidSnapshot> snapshots = new ArrayList<>();
            Map<Integer, String> outOfReach = new LinkedHashMap<>();
            for (int c : cpus) {
                try {
                    snapshots.add(new CpuidSnapshot(c, leavesOf(src, c)));
                } catch (HwException e) {
                    // Every CPU was asked for: one this process cannot reach (a cpuset, and no
                    // readable /dev/cpu/N/cpuid) is named, not the whole command's failure.
                    // A CPU named with -p fails the command; so does reaching none.
                    if (cpu != null || !src.cpus().contains(c) || src.reachableCpus().contains(c)) {
                        throw e;
                    }
                    outOfReach.put(c, e.getMessage());
                }
            }
            if (snapshots.isEmpty()) {
                throw new HwException(Cause.UNSUPPORTED, "no CPU is within this process's reach: "
                        + String.join("; ", outOfReach.values()));
            }
            PrintWriter err = spec.commandLine().getErr();
            outOfReach.forEach((c, why) -> err.println("hwtool: note: CPU " + c + " not read: " + why));
            err.flush();
            PrintWriter out = spec.commandLine().getOut();
            boolean simulated = platform.kind() == Platform.Kind.SIMULATED;
            if (json) {
                out.println(Json.write(toJson(src, simulated, snapshots, outOfReach)));
            } else {
                if (simulated) {
                    // On stderr: stdout stays a pure 'cpuid -r' dump, which 'cpuid -f' reads back
                    // and which rejects any extra line.
                    err.println("hwtool: note: SIMULATED CPU, " + src.description() + "; not this machine");
                    err.flush();
                }
                out.print(one ? CpuidRawFormat.formatOne(snapshots.getFirst()) : CpuidRawFormat.format(snapshots));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    private List<Integer> selectCpus(CpuidReading src) {
        if (cpu != null) {
            if (!src.cpus().contains(cpu)) {
                // Let the source say why in its own words (offline, not in the dump, ...).
                src.cpuid(cpu, 0, 0);
            }
            return List.of(cpu);
        }
        return one ? List.of(src.defaultCpu()) : src.cpus();
    }

    private List<CpuidLeaf> leavesOf(CpuidReading src, int c) {
        if (leaf != null) {
            int sl = subleaf == null ? 0 : subleaf;
            return List.of(new CpuidLeaf(leaf, sl, src.regs(c, leaf, sl)));
        }
        return src.onCpu(c, SubleafEnumerator::enumerate);
    }

    private static Map<String, Object> toJson(CpuidReading src, boolean simulated, List<CpuidSnapshot> snapshots,
                                              Map<Integer, String> outOfReach) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("source", src.name());
        root.put("source_detail", src.description());
        root.put("simulated", simulated);
        List<Object> cpus = new ArrayList<>();
        for (CpuidSnapshot s : snapshots) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("cpu", s.cpu());
            c.put("path", src.pathOf(s.cpu()));
            List<Object> leaves = new ArrayList<>();
            for (CpuidLeaf l : s.leaves()) {
                CpuidRegs r = l.regs();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("leaf", Numbers.hex32(l.leaf()));
                m.put("subleaf", Numbers.hex32(l.subleaf()));
                m.put("eax", Numbers.hex32(r.eax()));
                m.put("ebx", Numbers.hex32(r.ebx()));
                m.put("ecx", Numbers.hex32(r.ecx()));
                m.put("edx", Numbers.hex32(r.edx()));
                leaves.add(m);
            }
            c.put("leaves", leaves);
            cpus.add(c);
        }
        root.put("cpus", cpus);
        List<Object> unread = new ArrayList<>();
        outOfReach.forEach((c, why) -> unread.add(Map.of("cpu", c, "reason", why)));
        root.put("out_of_reach", unread);
        return root;
    }
}
