package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;
import dev.hwtool.linux.CpuidPathCheck;
import dev.hwtool.arch.decode.AmdPerf;
import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Features;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Verdict;
import dev.hwtool.io.TerminalText;
import picocli.CommandLine.Help.Ansi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The text form of {@code hwtool caps}: verdicts first, then grouped, aligned sections. */
final class CapsText {

    private static final int KEY = 22;
    /** Text width the report wraps at; long reasons stay readable in an 80-column terminal. */
    private static final int WIDTH = 100;
    private final Ansi ansi;
    private final StringBuilder b = new StringBuilder();

    CapsText(Ansi ansi) {
        this.ansi = ansi;
    }

    static String facilityKey(Facility f) {
        return f.name().toLowerCase(Locale.ROOT);
    }

    static String facilityLabel(Facility f) {
        return f.label();
    }

    String render(CapsReport r) {
        CpuCapabilities c = r.caps();
        Identity id = c.identity();
        String what = r.simulated() ? r.sourceDetail().replaceFirst("^simulated CPU", "SIMULATED CPU")
                : r.source().equals("dump") ? r.sourceDetail() : "this machine, CPUID from the " + r.source();
        // Vendor, brand and hypervisor strings are CPUID register bytes (from a dump, any bytes):
        // quoted for the terminal, and kept out of picocli's markup.
        line(Styled.of(ansi, "bold", "hwtool caps") + " - CPU " + r.cpu() + ": "
                + TerminalText.quote(id.brand().isEmpty() ? id.vendor() : id.brand()));
        line("  (" + what + ")");
        cpuChoice(r);
        if (r.simulated()) {
            line("  " + Styled.of(ansi, "yellow,bold", "Simulated values: this is not the machine you are running on."));
        }
        blank();

        heading("Verdicts (" + r.verdictsDescribe() + ")");
        if (r.verdictsUnavailable() != null) {
            line("  none: " + r.verdictsUnavailable());
        }
        for (Verdict v : r.verdicts()) {
            String mark = v.usable() ? Styled.of(ansi, "green,bold", " yes ") : Styled.of(ansi, "red,bold", " no  ");
            List<String> reason = wrap(v.message(), WIDTH - 26);
            line(" " + mark + " " + pad(facilityLabel(v.facility()), 18) + " " + reason.getFirst());
            reason.stream().skip(1).forEach(l -> line(" ".repeat(26) + l));
            if (v.remedy().isPresent()) {
                List<String> fix = wrap(v.remedy().get(), WIDTH - 31);
                line(" ".repeat(26) + Styled.of(ansi, "cyan", "fix:") + " " + fix.getFirst());
                fix.stream().skip(1).forEach(l -> line(" ".repeat(31) + l));
            }
        }
        blank();

        cpuidPaths(r);

        heading("Processor");
        kv("vendor", TerminalText.quote(id.vendor()));
        kv("brand", id.brand().isEmpty() ? "(not reported)" : TerminalText.quote(id.brand()));
        kv("family/model/stepping", String.format("%d / %d / %d   (0x%X / 0x%X / 0x%X, signature 0x%08X)",
                id.family(), id.model(), id.stepping(), id.family(), id.model(), id.stepping(), id.signature()));
        String cores = c.microarchitecture().coreNames();
        String uarch = c.microarchitecture().name()
                + (cores.isEmpty() || cores.equals(c.microarchitecture().name()) ? "" : " (" + cores + ")");
        kv("microarchitecture", uarch);
        kv("hybrid", c.hybrid() ? "yes, this CPU is " + c.coreType() + coreTypeSummary(r.coreTypes()) : "no");
        kv("hypervisor", c.hypervisor().present()
                ? "yes" + (c.hypervisor().name().isEmpty() ? "" : ", " + TerminalText.quote(c.hypervisor().name())) : "no");
        blank();

        heading("Debug-store and perfmon features (CPUID)");
        Features f = c.features();
        flags(new String[]{"MSR", "DS", "DTES64", "DS-CPL", "PDCM"},
                new boolean[]{f.msr(), f.ds(), f.dtes64(), f.dsCpl(), f.pdcm()});
        flags(new String[]{"arch LBR", "Intel PT", "TSC", "RDTSCP", "bus-lock"},
                new boolean[]{f.archLbr(), f.pt(), f.tsc(), f.rdtscp(), f.busLockDetect()});
        blank();

        heading("Architectural perfmon (leaf 0AH)");
        ArchPerfmon p = c.archPerfmon();
        if (!p.present()) {
            kv("version", "0: no architectural performance monitoring reported");
        } else {
            kv("version", Integer.toString(p.version()));
            kv("general-purpose", p.gpCounters() + " counters, " + p.gpWidth() + " bits");
            kv("fixed-function", p.fixedCounters() + " counters, " + p.fixedWidth() + " bits");
            List<String> yes = new ArrayList<>();
            List<String> no = new ArrayList<>();
            p.events().forEach((name, ok) -> (ok ? yes : no).add(name));
            kv("events available", yes.isEmpty() ? "none" : String.join(", ", yes));
            if (!no.isEmpty()) {
                kv("events missing", String.join(", ", no));
            }
        }
        blank();

        heading("Last branch records");
        ArchLbr a = c.archLbr();
        if (a.supported()) {
            kv("architectural LBR", "depths " + a.depths().stream().map(String::valueOf).collect(Collectors.joining(", ")));
            List<String> caps = new ArrayList<>();
            if (a.cplFilter()) caps.add("CPL filter");
            if (a.branchFilter()) caps.add("branch filter");
            if (a.callStack()) caps.add("call-stack");
            if (a.mispredict()) caps.add("mispredict bit");
            if (a.timed()) caps.add("timed LBRs");
            if (a.branchType()) caps.add("branch type");
            if (a.deepCReset()) caps.add("cleared in deep C-states");
            kv("", String.join(", ", caps));
        } else {
            kv("architectural LBR", "no");
        }
        LegacyLbr l = c.legacyLbr();
        if (l.present()) {
            kv("legacy LBR", "depth " + l.depth() + ", format " + (l.format() < 0 ? "unknown" : l.format())
                    + String.format(", FROM 0x%X, TO 0x%X", l.fromMsr(), l.toMsr())
                    + (l.infoMsr() >= 0 ? String.format(", INFO 0x%X", l.infoMsr()) : "")
                    + (l.callStack() ? ", call-stack" : ""));
        } else {
            kv("legacy LBR", "none");
        }
        kv("", "source: " + l.source());
        blank();

        AmdPerf amd = c.amd();
        if (amd.present()) {
            // AMD APM Vol. 3 Appendix E; Linux cpufeatures.h/scattered.c names in parentheses
            heading("AMD performance monitoring (CPUID 8000_0001H, 8000_0008H, 8000_0022H)");
            kv("core counters", amd.coreCounters() + " x 48 bits" + (amd.perfMonV2() ? ", PerfMonV2"
                    : amd.perfCtrExtCore() ? ", PerfCtrExtCore" : ", legacy only"));
            kv("LBR v2", amd.lbrExtV2() ? "depth " + amd.lbrV2Depth() + (amd.lbrPmcFreeze() ? ", freeze on PMI" : "")
                    : "no");
            kv("BRS", amd.brs() ? "yes (" + AmdPerf.BRS_DEPTH + " entries on family 19h)" : "no");
            kv("IBS", amd.ibs() ? "yes, features 0x" + Integer.toHexString(amd.ibsFeatures()) : "no");
            blank();
        }

        heading("Linux (this machine)");
        for (String[] row : LinuxText.rows(r.linux())) {
            kv(row[0], row[1]);
        }
        return b.toString();
    }

    private static String coreTypeSummary(Map<Integer, String> types) {
        if (types.isEmpty()) {
            return "";
        }
        Map<String, List<Integer>> byType = new java.util.TreeMap<>();
        types.forEach((cpu, t) -> byType.computeIfAbsent(t, k -> new ArrayList<>()).add(cpu));
        return "; " + byType.entrySet().stream()
                .map(e -> e.getKey() + ": CPUs " + ranges(e.getValue()))
                .collect(Collectors.joining(", "));
    }

    /** 0,1,2,3,8 → "0-3,8". */
    static String ranges(List<Integer> cpus) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < cpus.size(); i++) {
            int start = cpus.get(i);
            int end = start;
            while (i + 1 < cpus.size() && cpus.get(i + 1) == end + 1) {
                end = cpus.get(++i);
            }
            if (!s.isEmpty()) s.append(',');
            s.append(start == end ? Integer.toString(start) : start + "-" + end);
        }
        return s.toString();
    }

    /** Greedy word wrap; a word longer than the width (a path) stands on its own line. */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String word : text.split(" ")) {
            if (!cur.isEmpty() && cur.length() + 1 + word.length() > width) {
                lines.add(cur.toString());
                cur.setLength(0);
            }
            if (!cur.isEmpty()) {
                cur.append(' ');
            }
            cur.append(word);
        }
        lines.add(cur.toString());
        return lines;
    }

    private void flags(String[] names, boolean[] values) {
        StringBuilder s = new StringBuilder("  ");
        for (int i = 0; i < names.length; i++) {
            s.append(pad(names[i], 9)).append(values[i] ? Styled.of(ansi, "green", "yes") : Styled.of(ansi, "faint", "no "));
            s.append("   ");
        }
        line(s.toString().stripTrailing());
    }

    /** Which CPU and why, when that is not simply the first, and the CPUs out of reach (a cpuset). */
    private void cpuChoice(CapsReport r) {
        CpuChoice ch = r.cpuChoice();
        if (!ch.notable() && ch.path().equals(r.source())) {
            return;
        }
        wrap("CPU " + ch.cpu() + ": " + ch.why() + (ch.path().equals(r.source()) ? "" : ", read through the " + ch.path()
                + " (outside this process's CPU affinity)"), WIDTH - 4).forEach(l -> line("  " + l));
        ch.outOfReach().forEach((cpu, why) -> wrap("CPU " + cpu + " out of reach: " + why, WIDTH - 6)
                .forEach(l -> line("    " + l)));
    }

    /** This machine's user-space CPUID held against the kernel's, when the report shows this machine. */
    private void cpuidPaths(CapsReport r) {
        CpuidPathCheck check = r.cpuidPaths();
        if (check == null) {
            return;
        }
        heading("CPUID paths (this machine)");
        String mark = switch (check.outcome()) {
            case AGREE -> Styled.of(ansi, "green,bold", " same ");
            case DIFFER -> Styled.of(ansi, "yellow,bold", " DIFF ");
            case NOT_COMPARED -> "  --  ";
        };
        List<String> summary = wrap(check.summary(), WIDTH - 9);
        line(" " + mark + " " + summary.getFirst());
        summary.stream().skip(1).forEach(l -> line(" ".repeat(8) + l));
        for (String d : check.lines()) {
            wrap(d, WIDTH - 10).forEach(l -> line(" ".repeat(10) + l));
        }
        blank();
    }

    private void heading(String h) {
        line(Styled.of(ansi, "bold,underline", h));
    }

    private void kv(String k, String v) {
        List<String> lines = wrap(v, WIDTH - KEY - 3);
        line("  " + pad(k, KEY) + " " + lines.getFirst());
        lines.stream().skip(1).forEach(l -> line(" ".repeat(KEY + 3) + l));
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    private void line(String s) {
        b.append(s).append('\n');
    }

    private void blank() {
        b.append('\n');
    }
}
