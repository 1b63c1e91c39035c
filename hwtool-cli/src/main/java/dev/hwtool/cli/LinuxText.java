package dev.hwtool.cli;

import dev.hwtool.caps.Capability;
import dev.hwtool.caps.Fact;
import dev.hwtool.caps.LinuxFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The "Linux (this machine)" section of the caps text report: one line per thing a person checks. */
final class LinuxText {

    private LinuxText() {
    }

    /** Key/value rows, in reading order. */
    static List<String[]> rows(LinuxFacts f) {
        List<String[]> rows = new ArrayList<>();
        rows.add(row("kernel", f.kernelRelease().describe() + " (" + f.machine().describe() + ")"));
        rows.add(row("online CPUs", f.onlineCpus().optional().map(CapsText::ranges).orElse(f.onlineCpus().describe())));
        rows.add(row("/dev/cpu/N/cpuid", nodes(f, LinuxFacts.CpuDevices::cpuid) + "; driver " + driver(f.cpuidDriver())));
        rows.add(row("/dev/cpu/N/msr", nodes(f, LinuxFacts.CpuDevices::msr) + "; driver " + driver(f.msrDriver())));
        LinuxFacts.Credentials c = f.credentials();
        String caps = List.of(Capability.CAP_SYS_RAWIO, Capability.CAP_SYS_ADMIN, Capability.CAP_PERFMON).stream()
                .map(cap -> cap.name() + (c.has(cap) ? " yes" : " no"))
                .collect(Collectors.joining(", "));
        rows.add(row("credentials", "euid " + c.euid().describe() + "; " + caps
                + (c.namespacedOnly() ? "; in a user namespace (capabilities do not reach the device drivers)" : "")
                + (c.seccompFiltered() ? "; " + c.seccompDescription() : "")));
        rows.add(row("lockdown", f.lockdownLabel() + factWhere(f.lockdown())));
        rows.add(row("msr.allow_writes", f.msrAllowWrites().optional().map(LinuxFacts.AllowWrites::label)
                .orElse(f.msrAllowWrites().describe()) + factWhere(f.msrAllowWrites())));
        rows.add(row("perf_event_paranoid", f.perfEventParanoid().describe()));
        rows.add(row("PMUs", f.pmus().isEmpty() ? "none"
                : f.pmus().stream().map(p -> p.name() + " (type " + p.type().describe() + ")").collect(Collectors.joining(", "))));
        for (LinuxFacts.Pmu p : f.corePmus()) {
            rows.add(row("  " + p.name(), "caps/branches " + p.branches().describe() + ", pmu_name " + p.pmuName().describe()
                    + ", max_precise " + p.maxPrecise().describe() + ", rdpmc " + p.rdpmc().describe()));
        }
        rows.add(row("intel_bts / intel_pt", yesNo(f.pmu("intel_bts").isPresent()) + " / " + yesNo(f.pmu("intel_pt").isPresent())
                + (f.kpti() ? "  (KPTI is on: the kernel does not register intel_bts)" : "")));
        rows.add(row("meltdown", f.meltdown().describe()));
        rows.add(row("container", f.container().detected()
                ? f.container().kind() + " (" + String.join("; ", f.container().evidence()) + ")"
                : "none detected" + (f.container().evidence().isEmpty() ? ""
                        : " (" + String.join("; ", f.container().evidence()) + ")")));
        return rows;
    }

    private static String nodes(LinuxFacts f, Function<LinuxFacts.CpuDevices, LinuxFacts.DeviceNode> which) {
        long total = f.cpus().size();
        List<LinuxFacts.DeviceNode> present = f.cpus().stream().map(which).filter(LinuxFacts.DeviceNode::present).toList();
        if (present.isEmpty()) {
            return total == 0 ? "no /dev/cpu" : "absent";
        }
        LinuxFacts.DeviceNode first = present.getFirst();
        long readable = present.stream().filter(LinuxFacts.DeviceNode::readable).count();
        long writable = present.stream().filter(LinuxFacts.DeviceNode::writable).count();
        return "present on " + present.size() + " of " + total + " CPUs, " + first.modeAndOwner()
                + ", readable by this process on " + readable + ", writable on " + writable;
    }

    private static String driver(LinuxFacts.Driver d) {
        return d.state().name().toLowerCase(Locale.ROOT).replace('_', ' ')
                + (d.evidence() == null || d.evidence().isEmpty() ? "" : " (" + d.evidence() + ")");
    }

    private static String factWhere(Fact<?> fact) {
        return switch (fact) {
            case Fact.Known<?> k -> "";
            case Fact.Absent<?> a -> " (" + a.path() + " absent)";
            case Fact.Unreadable<?> u -> " (" + u.path() + ": " + u.error() + ")";
            case Fact.Malformed<?> m -> " (" + m.path() + " holds '" + m.text() + "')";
        };
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }

    private static String[] row(String k, String v) {
        return new String[]{k, v};
    }
}
