package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfBranchSample;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerfEventAttrTest {

    private static PerfEventAttr full() {
        return PerfEventAttr.builder().type(PerfType.RAW).config(0x1c4).sampleFreq(4000)
                .sampleType(PerfSample.IP | PerfSample.BRANCH_STACK).readFormat(PerfFormat.ID)
                .flag(PerfAttrFlag.DISABLED, PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.SAMPLE_ID_ALL,
                        PerfAttrFlag.SIGTRAP).preciseIp(2).wakeupWatermark(8192).bpType(3)
                .config1(0x11).config2(0x22).branchSampleType(PerfBranchSample.ANY | PerfBranchSample.HW_INDEX)
                .sampleRegsUser(0xff).sampleStackUser(8192).clockid(4).sampleRegsIntr(0xf0).auxWatermark(4096)
                .sampleMaxStack(127).auxSampleSize(65536).auxAction(PerfEventAttr.AUX_PAUSE).sigData(0xdead)
                .config3(0x33).build();
    }

    @Test
    void everyFieldLandsAtItsOffsetLittleEndian() {
        PerfEventAttr a = full();
        ByteBuffer b = ByteBuffer.wrap(a.encode()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(136, b.capacity());
        assertEquals(PerfType.RAW, b.getInt(0));
        assertEquals(136, b.getInt(4));
        assertEquals(0x1c4, b.getLong(8));
        assertEquals(4000, b.getLong(16));
        long flags = b.getLong(40);
        assertEquals(PerfAttrFlag.DISABLED.mask() | PerfAttrFlag.EXCLUDE_KERNEL.mask() | PerfAttrFlag.SAMPLE_ID_ALL.mask()
                | PerfAttrFlag.SIGTRAP.mask() | PerfAttrFlag.FREQ.mask() | PerfAttrFlag.WATERMARK.mask()
                | PerfAttrFlag.USE_CLOCKID.mask() | 2L << 15, flags);
        assertEquals(8192, b.getInt(48));
        assertEquals(3, b.getInt(52));
        assertEquals(0x11, b.getLong(56));
        assertEquals(0x22, b.getLong(64));
        assertEquals(PerfBranchSample.ANY | PerfBranchSample.HW_INDEX, b.getLong(72));
        assertEquals(0xff, b.getLong(80));
        assertEquals(8192, b.getInt(88));
        assertEquals(4, b.getInt(92));
        assertEquals(0xf0, b.getLong(96));
        assertEquals(4096, b.getInt(104));
        assertEquals(127, b.getShort(108));
        assertEquals(65536, b.getInt(112));
        assertEquals(PerfEventAttr.AUX_PAUSE, b.getInt(116));
        assertEquals(0xdead, b.getLong(120));
        assertEquals(0x33, b.getLong(128));
        assertEquals(2, a.preciseIp());
        assertEquals(a, PerfEventAttr.decode(a.encode()));
    }

    @Test
    void sizesBelowTheSetFieldsAreRefusedAndLargerOnesZeroPadded() {
        PerfEventAttr small = PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_TASK_CLOCK).build();
        assertEquals(64, small.minimumSize());
        assertEquals(64, small.encode(64).length);
        byte[] big = small.encode(200);
        assertEquals(200, ByteBuffer.wrap(big).order(ByteOrder.LITTLE_ENDIAN).getInt(4));
        for (int i = 136; i < 200; i++) {
            assertEquals(0, big[i]);
        }
        assertEquals(136, full().minimumSize());
        assertThrows(IllegalArgumentException.class, () -> full().encode(128));
        assertThrows(IllegalArgumentException.class, () -> small.encode(63));
        assertThrows(IllegalArgumentException.class, () -> small.encode(8193));
        assertThrows(IllegalArgumentException.class, () -> PerfEventAttr.builder().config4(1).build());
        assertEquals(144, PerfEventAttr.builder().size(144).config4(1).build().encode().length);
        // a field's version: branch_sample_type needs VER2 (80)
        assertEquals(80, PerfEventAttr.builder().branchSampleType(PerfBranchSample.ANY).build().minimumSize());
    }

    @Test
    void unionSettersSwitchTheirFlag() {
        PerfEventAttr f = PerfEventAttr.builder().sampleFreq(99).wakeupWatermark(1).build();
        assertTrue(f.has(PerfAttrFlag.FREQ) && f.has(PerfAttrFlag.WATERMARK));
        PerfEventAttr p = f.toBuilder().samplePeriod(10).wakeupEvents(1).build();
        assertTrue(!p.has(PerfAttrFlag.FREQ) && !p.has(PerfAttrFlag.WATERMARK));
        assertEquals(10, p.samplePeriod());
        assertThrows(IllegalArgumentException.class, () -> PerfEventAttr.builder().preciseIp(4));
        assertThrows(IllegalArgumentException.class, () -> PerfEventAttr.builder().sampleMaxStack(70000));
    }
}
