package dev.hwtool.cli;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.api.Verdict;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Node Feature Discovery labels for the local source's feature files: {@code name=value} lines
 * under the {@code hwtool.dev/} prefix, each a valid Kubernetes label (a name of at most 63
 * characters, alphanumeric at both ends, '-', '_' and '.' inside; a value likewise, or empty:
 * Kubernetes "Labels and Selectors", Syntax and character set).
 */
final class NfdLabels {

    static final String PREFIX = "hwtool.dev/";
    /** Name part and value of a label (k8s.io/apimachinery validation: qualifiedNameFmt, LabelValueFmt). */
    static final Pattern LABEL = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

    private NfdLabels() {
    }

    /** The labels, in a stable order: identity first, then one pair per facility. */
    static Map<String, String> of(CpuCapabilities cpu, List<Verdict> verdicts, boolean simulated) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("vendor", value(cpu.identity().vendor()));
        m.put("family", String.valueOf(cpu.identity().family()));
        m.put("model", String.valueOf(cpu.identity().model()));
        m.put("stepping", String.valueOf(cpu.identity().stepping()));
        m.put("microarchitecture", value(cpu.microarchitecture().name()));
        m.put("hybrid", String.valueOf(cpu.hybrid()));
        if (cpu.hypervisor().present()) {
            m.put("hypervisor", value(cpu.hypervisor().name()));
        }
        if (cpu.archPerfmon().present()) {
            m.put("perfmon-version", String.valueOf(cpu.archPerfmon().version()));
        }
        // AMD's LBR v2 stack (CPUID 8000_0022H:EBX[9:4]) serves perf record -b as LBR does; Zen 3's
        // BRS does not count: it serves only the branch-brs event (arch/x86/events/amd/brs.c).
        int lbrDepth = cpu.archLbr().supported()
                ? cpu.archLbr().depths().stream().mapToInt(Integer::intValue).max().orElse(0)
                : cpu.amd().lbrExtV2() ? cpu.amd().lbrV2Depth()
                : cpu.legacyLbr().depth();
        if (lbrDepth > 0) {
            m.put("lbr-depth", String.valueOf(lbrDepth));
        }
        if (simulated) {
            m.put("simulated", "true");
        }
        for (Verdict v : verdicts) {
            String f = v.facility().name().toLowerCase(Locale.ROOT).replace('_', '-');
            m.put(f, String.valueOf(v.usable()));
            v.cause().ifPresent(c -> m.put(f + "-cause", c.name().toLowerCase(Locale.ROOT)));
        }
        return m;
    }

    /** The feature file: a comment saying what wrote it, then one label per line. */
    static String render(Map<String, String> labels, String describe) {
        StringBuilder b = new StringBuilder("# hwtool caps --nfd: ").append(describe.replace('\n', ' ')).append('\n');
        labels.forEach((k, v) -> b.append(PREFIX).append(k).append('=').append(v).append('\n'));
        return b.toString();
    }

    /** Free text (a vendor or microarchitecture name) as a label value: lower case, runs of other characters as '-'. */
    static String value(String text) {
        String v = text.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._]+", "-").replaceAll("^[-._]+|[-._]+$", "");
        return v.length() <= 63 ? v : v.substring(0, 63).replaceAll("[-._]+$", "");
    }
}
