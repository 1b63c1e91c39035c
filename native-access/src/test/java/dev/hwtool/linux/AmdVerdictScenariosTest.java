package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Verdict;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.caps.Verdicts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AMD hosts get AMD's answers: LBR v2 (Zen 4, arch/x86/events/amd/lbr.c) and BRS (Zen 3, brs.c)
 * through perf's branch stack, IBS (ibs.c) for precise sampling, BTS refused as Intel-only.
 */
class AmdVerdictScenariosTest {

    private static final String VM_HOST_PMU = "only the VM host can give this guest a virtual PMU"
            + " (QEMU/KVM: -cpu host,pmu=on); nothing can be done inside the guest";

    @TempDir
    Path dir;

    private static Verdict verdict(CpuCapabilities cpu, Path root, Facility f) {
        return Verdicts.assess(cpu, LinuxProbe.probe(root)).get(f.ordinal());
    }

    private static void expect(Verdict v, boolean usable, String phrase, String remedy) {
        assertEquals(usable, v.usable(), () -> v.toString());
        assertTrue(v.message().contains(phrase), () -> "reason lacks \"" + phrase + "\": " + v.message());
        assertEquals(remedy, v.remedy().orElse(""), () -> v.toString());
    }

    /** A Linux AMD host's PMUs: cpu with caps/branches when {@code branches} > 0, ibs_fetch and ibs_op. */
    private FixtureTree amdPmus(int branches) {
        FixtureTree t = FixtureTree.bareVm(dir).pmu("cpu", 4).file("/sys/bus/event_source/devices/cpu/rdpmc", "1\n")
                .pmu("ibs_fetch", 11).pmu("ibs_op", 12).pmu("amd_df", 13);
        return branches > 0 ? t.file("/sys/bus/event_source/devices/cpu/caps/branches", branches + "\n") : t;
    }

    @Test
    void zen4RecordsBranchesThroughLbrV2() {
        Path root = amdPmus(16).root;
        expect(verdict(CpuFixtures.zen4Host(), root, Facility.LBR_PERF), true,
                "perf branch-stack sampling works through AMD's LBR v2 (arch/x86/events/amd/lbr.c): cpu"
                        + " caps/branches=16 (LBR v2, CPUID Fn8000_0022_EAX[1] LbrExtV2, depth 16 (EBX[9:4]))", "");
    }

    @Test
    void zen4WithoutCapsBranchesNeedsANewerKernel() {
        Path root = amdPmus(0).root;
        expect(verdict(CpuFixtures.zen4Host(), root, Facility.LBR_PERF), false,
                "the cpu PMU has no LBR (caps/branches absent) although the CPU has LBR v2", Verdicts.KERNEL_AMD_LBR_V2);
    }

    @Test
    void zen3BrsWorksForPerfsBranchBrsEventNotForHwtoolsRecorder() {
        Path root = amdPmus(16).root;
        Verdict v = verdict(CpuFixtures.zen3Host(), root, Facility.LBR_PERF);
        expect(v, false, "the cpu PMU drives Zen 3's branch sampling (BRS, arch/x86/events/amd/brs.c): cpu"
                + " caps/branches=16 (BRS, CPUID Fn8000_0008_EBX[31], 16 entries on family 19h), but only for the"
                + " branch-brs event", "record with perf: " + Verdicts.BRS_RECORD + " -- CMD, then perf report --branch-stack");
        assertEquals(Optional.of(Cause.UNSUPPORTED), v.cause());
    }

    @Test
    void zen3WithoutBrsSupportNamesTheKernelOption() {
        Path root = amdPmus(0).root;
        expect(verdict(CpuFixtures.zen3Host(), root, Facility.LBR_PERF), false,
                "although the CPU has BRS, CPUID Fn8000_0008_EBX[31], 16 entries on family 19h: this kernel does not"
                        + " drive BRS", Verdicts.KERNEL_AMD_BRS);
    }

    @Test
    void zen2HasNoBranchStackAndNothingToFix() {
        Verdict v = verdict(CpuFixtures.zen2Host(), amdPmus(0).root, Facility.LBR_PERF);
        expect(v, false, "this AMD CPU has no branch stack Linux drives", "");
        assertEquals(Optional.of(Cause.UNSUPPORTED), v.cause());
    }

    @Test
    void btsIsIntelOnlyAndPointsAtAmdsBranchRecords() {
        Verdict v = verdict(CpuFixtures.zen4Host(), amdPmus(16).root, Facility.BTS_PERF);
        expect(v, false, "BTS is an Intel facility; this CPU is AuthenticAMD: AMD has no debug store (no DS area", "");
        assertTrue(v.message().contains("LBR via perf"), v.message());
    }

    @Test
    void preciseSamplingGoesThroughIbs() {
        Path root = amdPmus(16).root;
        expect(verdict(CpuFixtures.zen4Host(), root, Facility.PEBS_PERF), true,
                "precise sampling through IBS (PEBS is Intel's): ibs_op (type 12) and ibs_fetch (type 11) registered",
                "");
    }

    @Test
    void unprivilegedIbsNeedsExcludeKernelWhichOlderIbsRefuses() {
        Path root = amdPmus(16).status(1000, "0000000000000000").root;
        expect(verdict(CpuFixtures.zen4Host(), root, Facility.PEBS_PERF), true,
                "user-space samples only at perf_event_paranoid=2, which need exclude_kernel: kernels whose IBS PMUs"
                        + " still carry PERF_PMU_CAP_NO_EXCLUDE refuse that (EINVAL)", "");
    }

    @Test
    void ibsFlagWithoutIbsPmuIsAKernelMatter() {
        Path root = amdPmus(16).delete("/sys/bus/event_source/devices/ibs_op")
                .delete("/sys/bus/event_source/devices/ibs_fetch").root;
        expect(verdict(CpuFixtures.zen4Host(), root, Facility.PEBS_PERF), false,
                "CPUID Fn8000_0001_ECX[10] (IBS) is set, but no ibs_op PMU", "");
    }

    @Test
    void countersNameAmdsCounterBank() {
        expect(verdict(CpuFixtures.zen4Host(), amdPmus(16).root, Facility.HW_COUNTERS), true,
                "AMD core counters: 6 x 48 bits (PerfMonV2, CPUID Fn8000_0022_EBX[3:0])", "");
        expect(verdict(CpuFixtures.zen2Host(), amdPmus(0).root, Facility.HW_COUNTERS), true,
                "AMD core counters: 6 x 48 bits (PerfCtrExtCore", "");
    }

    @Test
    void aGuestWithAVirtualPmuButNoLbrOrIbsSaysWhy() {
        Path root = amdPmus(0).delete("/sys/bus/event_source/devices/ibs_op")
                .delete("/sys/bus/event_source/devices/ibs_fetch").root;
        CpuCapabilities cpu = CpuFixtures.zen4GuestWithVpmu();
        expect(verdict(cpu, root, Facility.LBR_PERF), false,
                "this AMD CPU has no branch stack Linux drives", "");
        expect(verdict(cpu, root, Facility.PEBS_PERF), false,
                "CPUID Fn8000_0001_ECX[10] (IBS) is clear (hypervisor KVM does not expose IBS to this guest", "");
        expect(verdict(cpu, root, Facility.HW_COUNTERS), true, "PMU cpu (type 4)", "");
    }

    @Test
    void aGuestWithoutAVirtualPmuSaysSoFirst() {
        Path root = FixtureTree.bareVm(dir).root;
        CpuCapabilities cpu = CpuFixtures.amdEpycGuestDecoded();
        expect(verdict(cpu, root, Facility.LBR_PERF), false,
                "no cpu PMU under /sys/bus/event_source/devices", VM_HOST_PMU);
        expect(verdict(cpu, root, Facility.HW_COUNTERS), false, "hypervisor KVM gives this guest no virtual PMU",
                VM_HOST_PMU);
        Verdict pebs = verdict(cpu, root, Facility.PEBS_PERF);
        expect(pebs, false, "PEBS is an Intel facility; this CPU is AuthenticAMD: its precise sampling is IBS, and"
                + " CPUID Fn8000_0001_ECX[10] (IBS) is clear", "");
        assertFalse(pebs.usable());
    }
}
