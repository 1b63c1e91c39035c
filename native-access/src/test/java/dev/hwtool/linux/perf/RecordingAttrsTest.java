package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.BranchFilter;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.linux.sys.LinuxProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The attrs each request opens, bit by bit, against what perf record -vv shows perf 6.1 opening. */
class RecordingAttrsTest {

    /** perf record on a command: what every recording event carries besides its own bits. */
    private static final Set<PerfAttrFlag> RECORD = EnumSet.of(PerfAttrFlag.DISABLED, PerfAttrFlag.INHERIT,
            PerfAttrFlag.ENABLE_ON_EXEC, PerfAttrFlag.MMAP, PerfAttrFlag.COMM, PerfAttrFlag.TASK,
            PerfAttrFlag.SAMPLE_ID_ALL, PerfAttrFlag.MMAP2, PerfAttrFlag.COMM_EXEC);

    @Test
    void lbrIsBranchesWithTheFilterPrivilegeHwIndexAndTypes() {
        for (BranchFilter f : BranchFilter.values()) {
            PerfEventAttr a = RecordingAttrs.lbr(new RecordRequest.Lbr(Privilege.USER, f, 4000));
            assertEquals(PerfType.HARDWARE, a.type());
            assertEquals(PerfCount.HW_BRANCH_INSTRUCTIONS, a.config(), "a sample every PERIOD branches");
            assertEquals(4000, a.samplePeriod());
            assertFalse(a.has(PerfAttrFlag.FREQ));
            assertEquals(PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.BRANCH_STACK, a.sampleType());
            assertEquals(f.branchSampleType() | PerfBranchSample.USER | PerfBranchSample.HW_INDEX
                    | PerfBranchSample.TYPE_SAVE, a.branchSampleType(), f.cliName());
            assertTrue(a.flagSet().containsAll(RECORD));
            assertTrue(a.has(PerfAttrFlag.EXCLUDE_KERNEL) && a.has(PerfAttrFlag.EXCLUDE_HV));
            assertFalse(a.has(PerfAttrFlag.EXCLUDE_USER));
        }
        PerfEventAttr all = RecordingAttrs.lbr(new RecordRequest.Lbr(Privilege.ALL, BranchFilter.CALL, 1));
        // branches with period 1 would be BTS (intel_pmu_has_bts_period): period 1 samples cycles
        assertEquals(PerfCount.HW_CPU_CYCLES, all.config());
        assertEquals(PerfBranchSample.USER | PerfBranchSample.KERNEL,
                all.branchSampleType() & PerfBranchSample.PLM_ALL);
        assertFalse(all.has(PerfAttrFlag.EXCLUDE_KERNEL) || all.has(PerfAttrFlag.EXCLUDE_USER));
        PerfEventAttr k = RecordingAttrs.lbr(new RecordRequest.Lbr(Privilege.KERNEL, BranchFilter.CALL, 1));
        assertEquals(PerfBranchSample.KERNEL, k.branchSampleType() & PerfBranchSample.PLM_ALL);
        assertTrue(k.has(PerfAttrFlag.EXCLUDE_USER) && !k.has(PerfAttrFlag.EXCLUDE_KERNEL));
        // PerfErrors classifies it the way the kernel will (perf_copy_attr → perf_allow_kernel).
        assertTrue(PerfErrors.wantsKernel(all));
        assertFalse(PerfErrors.wantsKernel(RecordingAttrs.lbr(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 1))));
    }

    @Test
    void btsWithoutIntelBtsIsTheBranchesEventUserOnly(@TempDir Path sys) {
        PerfPmus none = new PerfPmus(sys, new PerfErrors(LinuxProbe::probe));
        RecordingAttrs.Planned p = RecordingAttrs.plan(new RecordRequest.Bts(Privilege.USER), none);
        assertEquals("branches:u", p.name());
        assertTrue(p.auxPmu().isEmpty());
        assertTrue(p.fallback().isPresent());
        PerfEventAttr a = p.attr();
        assertTrue(PerfErrors.isBtsRequest(a), "the kernel's BTS test (intel_pmu_has_bts_period) holds: " + a);
        assertTrue(a.has(PerfAttrFlag.EXCLUDE_KERNEL));
        assertEquals(PerfSample.IP | PerfSample.ADDR | PerfSample.TID | PerfSample.TIME, a.sampleType());
        HwException e = assertThrows(HwException.class,
                () -> RecordingAttrs.plan(new RecordRequest.Bts(Privilege.ALL), none));
        assertEquals(Cause.UNSUPPORTED, e.cause());
    }

    @Test
    void btsPrefersTheIntelBtsPmuWithItsSysfsType(@TempDir Path sys) throws IOException {
        Path dir = Files.createDirectories(sys.resolve("bus/event_source/devices/intel_bts"));
        Files.writeString(dir.resolve("type"), "9\n");
        PerfPmus pmus = new PerfPmus(sys, new PerfErrors(LinuxProbe::probe));
        RecordingAttrs.Planned p = RecordingAttrs.plan(new RecordRequest.Bts(Privilege.ALL), pmus);
        assertEquals("intel_bts//", p.name());
        assertEquals(9, p.attr().type());
        assertEquals(1, p.attr().samplePeriod());
        assertEquals("intel_bts", p.auxPmu().orElseThrow());
        assertFalse(p.attr().has(PerfAttrFlag.EXCLUDE_KERNEL));
        assertEquals("intel_bts//u", RecordingAttrs.plan(new RecordRequest.Bts(Privilege.USER), pmus).name());
    }

    @Test
    void samplingAndCounters() {
        PerfEventAttr s = RecordingAttrs.sampling(new RecordRequest.Sampling(Privilege.USER, PerfType.SOFTWARE,
                PerfCount.SW_CPU_CLOCK, 100_000));
        assertEquals(PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU | PerfSample.PERIOD, s.sampleType());
        assertEquals(100_000, s.samplePeriod());
        assertTrue(s.flagSet().containsAll(RECORD));
        assertEquals("cpu-clock", RecordingAttrs.eventName(PerfType.SOFTWARE, PerfCount.SW_CPU_CLOCK));
        assertEquals("instructions", RecordingAttrs.eventName(PerfType.HARDWARE, PerfCount.HW_INSTRUCTIONS));

        PerfEventAttr c = RecordingAttrs.counters(Privilege.ALL);
        assertEquals(PerfType.HARDWARE, c.type());
        assertEquals(PerfCount.HW_INSTRUCTIONS, c.config());
        assertEquals(0, c.samplePeriod());
        assertEquals(EnumSet.of(PerfAttrFlag.DISABLED, PerfAttrFlag.INHERIT, PerfAttrFlag.ENABLE_ON_EXEC), c.flagSet());
        PerfEventAttr self = RecordingAttrs.selfMonitoring(Privilege.USER);
        assertFalse(self.has(PerfAttrFlag.INHERIT), "an inherited per-task event cannot be mmap'd");
        assertTrue(self.has(PerfAttrFlag.EXCLUDE_KERNEL));
    }

    /**
     * precise_ip rides in bits 15-16 of the flags word at offset 40 of perf_event_attr
     * (include/uapi/linux/perf_event.h: after 15 one-bit flags, "precise_ip : 2"). Byte layout:
     * this machine has no PMU that could take the attr, so the bytes are what is checked.
     */
    @Test
    void preciseSamplingSetsPreciseIpBitsAndPerfsName(@TempDir Path sys) {
        for (int p = 0; p <= 3; p++) {
            RecordRequest.Sampling req = new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE,
                    PerfCount.HW_CPU_CYCLES, 100_003, p);
            PerfEventAttr a = RecordingAttrs.sampling(req);
            assertEquals(p, a.preciseIp());
            byte[] bytes = a.encode();
            long flags = java.nio.ByteBuffer.wrap(bytes, 40, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            assertEquals(p, (int) ((flags >>> 15) & 3), "precise_ip bits of the encoded flags word");
            assertTrue(a.flagSet().containsAll(RECORD));
            String name = RecordingAttrs.plan(req, new PerfPmus(sys, new PerfErrors(LinuxProbe::probe))).name();
            assertEquals("cycles:u" + "p".repeat(p), name);
        }
        assertEquals("cycles:ppp", RecordingAttrs.plan(new RecordRequest.Sampling(Privilege.ALL, PerfType.HARDWARE,
                PerfCount.HW_CPU_CYCLES, 1000, 3), new PerfPmus(sys, new PerfErrors(LinuxProbe::probe))).name());
        assertThrows(IllegalArgumentException.class, () -> new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE,
                PerfCount.HW_CPU_CYCLES, 1000, 4));
        RecordRequest.Sampling probe = RecordingAttrs.pebsProbe();
        assertEquals(1, RecordingAttrs.sampling(probe).preciseIp(), "the PEBS probe is cycles:p");
        assertEquals(PerfCount.HW_CPU_CYCLES, probe.config());
    }
}
