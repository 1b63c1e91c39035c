package dev.hwtool.linux;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import dev.hwtool.arch.decode.CpuidPathDiff;
import dev.hwtool.arch.decode.CpuidPathDiff.Difference;
import dev.hwtool.caps.CpuidReading;

import java.util.List;
import java.util.Objects;

/**
 * One CPU's CPUID read both ways this machine offers, and held one against the other: the
 * instruction in user space on a thread pinned to the CPU, and the kernel's
 * {@code /dev/cpu/N/cpuid}. Programs see the first; the kernel decided what it uses (and what
 * {@code /proc/cpuinfo} shows) from its own reads at boot. Where a hypervisor answers the two
 * differently, which one a tool shows changes what it says about the machine.
 *
 * @param cpu         the CPU compared
 * @param outcome     whether both paths were read, and whether they agree
 * @param detail      why the paths were not compared ({@link Outcome#NOT_COMPARED}), else ""
 * @param differences the registers that differ (empty unless {@link Outcome#DIFFER})
 */
public record CpuidPathCheck(int cpu, Outcome outcome, String detail, List<Difference> differences) {

    public enum Outcome { AGREE, DIFFER, NOT_COMPARED }

    public CpuidPathCheck {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(detail, "detail");
        differences = List.copyOf(differences);
    }

    /**
     * Reads CPU {@code cpu} through {@code instruction} (which must not read any CPU through
     * another path: a CPU outside this process's mask is not compared) twice, and through
     * {@code device} once, for every leaf the instruction enumerates.
     */
    public static CpuidPathCheck of(CpuidReading instruction, CpuidReading device, int cpu) {
        List<CpuidLeaf> user;
        List<CpuidLeaf> again;
        try {
            user = instruction.onCpu(cpu, SubleafEnumerator::enumerate);
            again = instruction.onCpu(cpu, SubleafEnumerator::enumerate);
        } catch (HwException e) {
            return notCompared(cpu, "the instruction did not answer for CPU " + cpu + ": " + e.getMessage());
        }
        List<Difference> diffs;
        try {
            diffs = CpuidPathDiff.compare(user, again, device.reader(cpu));
        } catch (HwException e) {
            return notCompared(cpu, "the kernel's answer could not be read: " + e.getMessage());
        }
        return new CpuidPathCheck(cpu, diffs.isEmpty() ? Outcome.AGREE : Outcome.DIFFER, "", diffs);
    }

    static CpuidPathCheck notCompared(int cpu, String why) {
        return new CpuidPathCheck(cpu, Outcome.NOT_COMPARED, why, List.of());
    }

    /** One line a report can print: what was found, and what hwtool used. */
    public String summary() {
        return switch (outcome) {
            case AGREE -> "user-space CPUID and /dev/cpu/" + cpu + "/cpuid agree on every leaf of CPU " + cpu;
            case NOT_COMPARED -> "user-space CPUID not compared with the kernel's: " + detail;
            case DIFFER -> "user-space CPUID and /dev/cpu/" + cpu + "/cpuid disagree on CPU " + cpu + " in "
                    + differences.size() + " register" + (differences.size() == 1 ? "" : "s")
                    + "; hwtool shows the user-space answers (what programs see; --source device shows the"
                    + " kernel's). A hypervisor that answers user space and the kernel differently is the usual"
                    + " cause" + (differences.stream().anyMatch(d -> d.unstable() != 0)
                    ? "; some bits also change from one user-space read to the next, so they are computed per call"
                    : "");
        };
    }

    /** One line per difference: where, the two values, and what the bits are. */
    public List<String> lines() {
        return differences.stream().map(d -> d.where() + ": user space " + hex(d.user()) + ", kernel " + hex(d.kernel())
                + (d.names().isEmpty() ? "" : " (" + String.join(", ", d.names()) + ")")
                + (d.unstable() != 0 ? "; unstable in user space" : "")).toList();
    }

    private static String hex(int v) {
        return String.format("0x%08x", v);
    }
}
