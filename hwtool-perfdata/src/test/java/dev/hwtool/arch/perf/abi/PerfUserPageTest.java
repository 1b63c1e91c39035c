package dev.hwtool.arch.perf.abi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The user page laid out per struct perf_event_mmap_page (include/uapi/linux/perf_event.h, struct perf_event_mmap_page) in plain memory:
 * decoding, the RDPMC guard, sign extension and the time formula of the header comment. The
 * rdpmc function here is a recorder: the guard must never call it when the page forbids it.
 */
class PerfUserPageTest {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static MemorySegment page(int index, long offset, long caps, int width) {
        MemorySegment p = Arena.ofAuto().allocate(4096, 8);
        p.set(U32, PerfMmapPageField.LOCK.offset(), 4);
        p.set(U32, PerfMmapPageField.INDEX.offset(), index);
        p.set(U64, PerfMmapPageField.OFFSET.offset(), offset);
        p.set(U64, PerfMmapPageField.TIME_ENABLED.offset(), 1000);
        p.set(U64, PerfMmapPageField.TIME_RUNNING.offset(), 1000);
        p.set(U64, PerfMmapPageField.CAPABILITIES.offset(), caps);
        p.set(U16, PerfMmapPageField.PMC_WIDTH.offset(), (short) width);
        p.set(U32, PerfMmapPageField.SIZE.offset(), 96);
        p.set(U64, PerfMmapPageField.DATA_OFFSET.offset(), 4096);
        return p;
    }

    private final List<Integer> rdpmcCalls = new ArrayList<>();

    private long rdpmc(int ecx) {
        rdpmcCalls.add(ecx);
        return 0xFFFF_FFFF_FFF0L; // 48-bit -16
    }

    @Test
    void theGuardKeepsRdpmcUncalledWhenTheKernelDoesNotAllowIt() {
        // What this machine's software events show: cap_bit0_is_deprecated only, index 0.
        PerfUserPage none = new PerfUserPage(page(0, 5, PerfUserPage.CAP_BIT0_IS_DEPRECATED, 0));
        assertFalse(none.snapshot().rdpmcAllowed());
        assertEquals(Optional.empty(), none.selfRead(this::rdpmc, () -> 0));
        // cap_user_rdpmc but no counter (index 0): still no RDPMC
        PerfUserPage noIndex = new PerfUserPage(page(0, 5,
                PerfUserPage.CAP_BIT0_IS_DEPRECATED | PerfUserPage.CAP_USER_RDPMC, 48));
        assertEquals(Optional.empty(), noIndex.selfRead(this::rdpmc, () -> 0));
        // a counter but no permission
        PerfUserPage noCap = new PerfUserPage(page(3, 5, PerfUserPage.CAP_BIT0_IS_DEPRECATED, 48));
        assertEquals(Optional.empty(), noCap.selfRead(this::rdpmc, () -> 0));
        // the pre-3.12 ABI: cap_bit0 set, cap_bit0_is_deprecated clear, bits 2.. meaningless
        PerfUserPage old = new PerfUserPage(page(3, 5, PerfUserPage.CAP_BIT0 | PerfUserPage.CAP_USER_RDPMC, 48));
        assertEquals(Optional.empty(), old.selfRead(this::rdpmc, () -> 0));
        assertTrue(rdpmcCalls.isEmpty(), "rdpmc called although forbidden: " + rdpmcCalls);
    }

    @Test
    void anAllowedReadUsesIndexMinusOneAndSignExtendsToPmcWidth() {
        PerfUserPage p = new PerfUserPage(page(0x4000_0002, 1000,
                PerfUserPage.CAP_BIT0_IS_DEPRECATED | PerfUserPage.CAP_USER_RDPMC, 48));
        PerfUserPage.SelfReading r = p.selfRead(this::rdpmc, () -> 0).orElseThrow();
        assertEquals(List.of(0x4000_0001), rdpmcCalls); // fixed counter 1: ecx = (1<<30)|1
        assertEquals(1000 - 16, r.value());
        assertEquals(1000, r.timeEnabled());
    }

    @Test
    void signExtensionFollowsTheHeaderComment() {
        assertEquals(-1, PerfUserPage.signExtend(0xFFFF_FFFF_FFFFL, 48));
        assertEquals(0x7FFF_FFFF_FFFFL, PerfUserPage.signExtend(0x7FFF_FFFF_FFFFL, 48));
        assertEquals(5, PerfUserPage.signExtend(0xFFFF_0000_0000_0005L, 32));
        assertEquals(-2, PerfUserPage.signExtend(-2, 64));
    }

    @Test
    void multiplexedTimesAdvanceByTheTscDelta() {
        MemorySegment seg = page(1, 0, PerfUserPage.CAP_BIT0_IS_DEPRECATED | PerfUserPage.CAP_USER_RDPMC
                | PerfUserPage.CAP_USER_TIME, 48);
        seg.set(U64, PerfMmapPageField.TIME_RUNNING.offset(), 400);
        seg.set(U16, PerfMmapPageField.TIME_SHIFT.offset(), (short) 10);
        seg.set(U32, PerfMmapPageField.TIME_MULT.offset(), 512); // 0.5 ns per cycle
        seg.set(U64, PerfMmapPageField.TIME_OFFSET.offset(), -100);
        PerfUserPage p = new PerfUserPage(seg);
        PerfUserPage.SelfReading r = p.selfRead(ecx -> 7, () -> 3000).orElseThrow();
        long delta = -100 + 3000 / 2; // quot*mult + (rem*mult >> shift) with shift 10, mult 512
        assertEquals(1000 + delta, r.timeEnabled());
        assertEquals(400 + delta, r.timeRunning());
        assertEquals(7, r.value());
    }

    @Test
    void theSnapshotDecodesEveryField() {
        MemorySegment seg = page(9, -3, PerfUserPage.CAP_BIT0_IS_DEPRECATED | PerfUserPage.CAP_USER_TIME_SHORT, 40);
        seg.set(U64, PerfMmapPageField.TIME_CYCLES.offset(), 0x1234);
        seg.set(U64, PerfMmapPageField.TIME_MASK.offset(), 0xFFFF);
        seg.set(U64, PerfMmapPageField.TIME_ZERO.offset(), 77);
        PerfUserPage.Snapshot s = new PerfUserPage(seg).snapshot();
        assertEquals(4, s.lock());
        assertEquals(9, s.index());
        assertEquals(-3, s.offset());
        assertEquals(40, s.pmcWidth());
        assertEquals(0x1234, s.timeCycles());
        assertEquals(0xFFFF, s.timeMask());
        assertEquals(77, s.timeZero());
        assertTrue(s.capUserTimeShort());
        assertFalse(s.capUserRdpmc());
        assertEquals(8, s.rdpmcCounter());
    }

    @Test
    void aReaderRetriesWhileTheLockChanges() throws Exception {
        MemorySegment seg = page(1, 10, PerfUserPage.CAP_BIT0_IS_DEPRECATED | PerfUserPage.CAP_USER_RDPMC, 48);
        PerfUserPage p = new PerfUserPage(seg);
        // The "kernel" bumps the seqcount during the first rdpmc: the reader must go round again.
        int[] calls = {0};
        long v = p.selfRead(ecx -> {
            if (calls[0]++ == 0) {
                seg.set(U32, PerfMmapPageField.LOCK.offset(), 6);
                seg.set(U64, PerfMmapPageField.OFFSET.offset(), 20);
            }
            return 1;
        }, () -> 0).orElseThrow().value();
        assertEquals(2, calls[0]);
        assertEquals(21, v);
    }
}
