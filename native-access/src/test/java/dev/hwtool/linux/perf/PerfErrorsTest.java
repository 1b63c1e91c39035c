package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.bind.Errno;
import dev.hwtool.linux.sys.LinuxProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The errno → cause mapping, with the kernel's state read from fixture trees laid out like /proc and /sys. */
class PerfErrorsTest {

    @TempDir
    Path root;

    private void file(String path, String text) throws IOException {
        Path p = root.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    /** An unprivileged user (uid 1000, no capabilities) at the given paranoid level. */
    private PerfErrors user(int paranoid, String meltdown, boolean corePmu) throws IOException {
        return user(paranoid, meltdown, corePmu, "Seccomp:\t0\nSeccomp_filters:\t0\n");
    }

    /** {@link #user(int, String, boolean)} with these Seccomp lines in /proc/self/status. */
    private PerfErrors user(int paranoid, String meltdown, boolean corePmu, String seccomp) throws IOException {
        file("/proc/self/status", "Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n" + seccomp);
        file("/proc/self/uid_map", "         0          0 4294967295\n");
        file("/proc/sys/kernel/perf_event_paranoid", paranoid + "\n");
        file("/proc/sys/kernel/perf_event_mlock_kb", "516\n");
        file("/sys/devices/system/cpu/vulnerabilities/meltdown", meltdown + "\n");
        file("/sys/bus/event_source/devices/software/type", "1\n");
        file("/sys/bus/event_source/devices/msr/type", "9\n");
        if (corePmu) {
            file("/sys/bus/event_source/devices/cpu/type", "4\n");
            file("/sys/bus/event_source/devices/cpu/caps/branches", "32\n");
        }
        return new PerfErrors(() -> LinuxProbe.probe(root));
    }

    private static PerfEventAttr taskClock(boolean excludeKernel) {
        return PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_TASK_CLOCK)
                .set(PerfAttrFlag.EXCLUDE_KERNEL, excludeKernel).build();
    }

    @Test
    void kernelCountingAtParanoid2NamesTheLevelTheSysctlAndCapPerfmon() throws IOException {
        HwException x = user(2, "Not affected", false).open(Errno.EACCES, taskClock(false), 0, -1, null);
        assertEquals(Cause.PERMISSION_DENIED, x.cause());
        assertTrue(x.getMessage().contains("perf_event_paranoid is 2") && x.getMessage().contains("exclude_kernel is 0"),
                x.getMessage());
        String remedy = x.remedy().orElseThrow();
        assertTrue(remedy.contains("kernel.perf_event_paranoid=1") && remedy.contains("CAP_PERFMON")
                && remedy.contains("exclude_kernel"), remedy);
    }

    /**
     * Docker's default seccomp profile (moby profiles/seccomp/default.json: perf_event_open only
     * with CAP_SYS_ADMIN or CAP_PERFMON, every other call EPERM) refuses a user-mode count of this
     * process, which paranoid 2 allows: the filter is the cause, not the sysctl, and lowering
     * the sysctl (the paranoid remedy) would change nothing.
     */
    @Test
    void epermUnderASeccompFilterNamesSeccompNotTheParanoidLevel() throws IOException {
        HwException x = user(2, "Not affected", false, "Seccomp:\t2\nSeccomp_filters:\t1\n")
                .open(Errno.EPERM, taskClock(true), 0, -1, null);
        assertEquals(Cause.PERMISSION_DENIED, x.cause());
        assertTrue(x.getMessage().contains("seccomp filter mode (1 filter)") && x.getMessage().contains("Seccomp: 2")
                && x.getMessage().contains("perf_event_paranoid 2 alone would allow it"), x.getMessage());
        assertEquals(PerfErrors.SECCOMP_REMEDY, x.remedy().orElseThrow());
        assertTrue(x.remedy().orElseThrow().contains("--cap-add=PERFMON"), x.remedy().orElseThrow());

        // kernel mode at paranoid 2: the filter refused it first, and the level would refuse it next
        HwException both = user(2, "Not affected", false, "Seccomp:\t2\nSeccomp_filters:\t1\n")
                .open(Errno.EPERM, taskClock(false), 0, -1, null);
        assertTrue(both.getMessage().contains("seccomp filter mode (1 filter)")
                && both.getMessage().contains("perf_event_paranoid 2 would refuse it next"), both.getMessage());
        // without a filter the same EPERM is not blamed on seccomp
        HwException plain = user(2, "Not affected", false).open(Errno.EPERM, taskClock(true), 0, -1, null);
        assertTrue(!plain.getMessage().contains("seccomp"), plain.getMessage());
        // the paranoid checks answer EACCES: under a filter that errno still names the level
        HwException kernel = user(2, "Not affected", false, "Seccomp:\t2\nSeccomp_filters:\t3\n")
                .open(Errno.EACCES, taskClock(false), 0, -1, null);
        assertTrue(kernel.getMessage().contains("perf_event_paranoid is 2") && !kernel.getMessage().contains("seccomp"),
                kernel.getMessage());
    }

    @Test
    void cpuWideEventsAtParanoid1() throws IOException {
        HwException x = user(1, "Not affected", false).open(Errno.EACCES, taskClock(true), -1, 0, null);
        assertTrue(x.getMessage().contains("CPU-wide") && x.getMessage().contains("perf_event_paranoid is 1"),
                x.getMessage());
    }

    @Test
    void kernelBranchSamplingCountsAsKernelProfiling() throws IOException {
        PerfEventAttr lbr = PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_CPU_CYCLES)
                .samplePeriod(10000).sampleType(PerfSample.IP | PerfSample.BRANCH_STACK)
                .branchSampleType(PerfBranchSample.ANY | PerfBranchSample.KERNEL).flag(PerfAttrFlag.EXCLUDE_KERNEL).build();
        HwException x = user(2, "Not affected", true).open(Errno.EACCES, lbr, 0, -1, null);
        assertTrue(x.getMessage().contains("branch_sample_type has KERNEL"), x.getMessage());
    }

    @Test
    void debianLevel3RefusesEverything() throws IOException {
        HwException x = user(3, "Not affected", false).open(Errno.EACCES, taskClock(true), 0, -1, null);
        assertTrue(x.getMessage().contains("level 3"), x.getMessage());
        assertTrue(x.remedy().orElseThrow().contains("kernel.perf_event_paranoid=2"));
    }

    @Test
    void noLbrAndBtsRules() throws IOException {
        PerfErrors e = user(2, "Not affected", true);
        PerfEventAttr lbr = PerfEventAttr.builder().type(PerfType.HARDWARE).samplePeriod(10000)
                .sampleType(PerfSample.BRANCH_STACK).branchSampleType(PerfBranchSample.CALL_STACK | PerfBranchSample.USER)
                .flag(PerfAttrFlag.EXCLUDE_KERNEL).build();
        HwException x = e.open(Errno.EOPNOTSUPP, lbr, 0, -1, null);
        assertEquals(Cause.UNSUPPORTED, x.cause());
        assertTrue(x.getMessage().contains("branch-stack sampling") && x.getMessage().contains("depth 32"), x.getMessage());
        PerfEventAttr bts = PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_BRANCH_INSTRUCTIONS)
                .samplePeriod(1).build();
        x = e.open(Errno.EOPNOTSUPP, bts, 0, -1, null);
        assertTrue(x.getMessage().contains("only allowed for user mode"), x.getMessage());
        assertEquals("set exclude_kernel", x.remedy().orElseThrow());
        x = e.open(Errno.EBUSY, bts.toBuilder().flag(PerfAttrFlag.EXCLUDE_KERNEL).build(), 0, -1, null);
        assertTrue(x.getMessage().contains("LBR") && x.getMessage().contains("BTS"), x.getMessage());
    }

    @Test
    void intelBtsAbsentUnderKptiSaysWhy() throws IOException {
        HwException x = user(2, "Mitigation: PTI", true).missingPmu("intel_bts");
        assertEquals(Cause.UNSUPPORTED, x.cause());
        assertTrue(x.getMessage().contains("KPTI") && x.getMessage().contains("Mitigation: PTI"), x.getMessage());
        assertTrue(x.remedy().orElseThrow().contains("sample_period=1"));
    }

    @Test
    void intelBtsAbsentWithoutAnyPmu() throws IOException {
        HwException noPmu = user(2, "Not affected", false).missingPmu("intel_bts");
        assertTrue(noPmu.getMessage().contains("no hardware PMU"), noPmu.getMessage());
    }

    @Test
    void mmapOverTheMlockLimit() throws IOException {
        HwException x = user(2, "Not affected", false).mmap(Errno.EPERM, "ring of 1+512 pages", 513 * 4096L, null);
        assertEquals(Cause.PERMISSION_DENIED, x.cause());
        assertTrue(x.getMessage().contains("516 KiB"), x.getMessage());
    }

    @Test
    void hardwareEventsWithoutACorePmu() throws IOException {
        HwException x = user(2, "Not affected", false).open(Errno.ENOENT, PerfEventAttr.builder().type(PerfType.HARDWARE)
                .config(PerfCount.HW_INSTRUCTIONS).build(), 0, -1, null);
        assertTrue(x.getMessage().contains("no hardware PMU") && x.getMessage().contains("msr software"), x.getMessage());
        HwException dyn = user(2, "Not affected", false).open(Errno.ENOENT, PerfEventAttr.builder().type(42).build(), 0, -1,
                null);
        assertTrue(dyn.getMessage().contains("no PMU has type 42"), dyn.getMessage());
    }
}
