package dev.hwtool.arch.perf.abi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.OptionalLong;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;

/**
 * The self-monitoring part of a perf mapping's user page (struct perf_event_mmap_page, the
 * header comment of include/uapi/linux/perf_event.h), read from a {@link MemorySegment}: the live
 * page of a mapping, or a byte array laid out the same way. Reads follow the kernel's seqlock
 * protocol: read {@code lock}, the fields, then {@code lock} again, and retry while it changed.
 *
 * <p>RDPMC is executed only through the {@code rdpmc} function given to {@link #selfRead} and only
 * when the page says user space may (cap_user_rdpmc = 1) and the event sits on a counter
 * (index != 0): RDPMC with CR4.PCE clear raises #GP, which kills the JVM (SDM Vol. 2B, RDPMC; docs/facts.md §2.1).
 */
public final class PerfUserPage {

    /** capabilities bit 0: cap_bit0, always 0 since the ABI fix. */
    public static final long CAP_BIT0 = 1L << 0;
    /** bit 1: cap_bit0_is_deprecated, always 1: bits 2.. are trustworthy. */
    public static final long CAP_BIT0_IS_DEPRECATED = 1L << 1;
    public static final long CAP_USER_RDPMC = 1L << 2;
    public static final long CAP_USER_TIME = 1L << 3;
    public static final long CAP_USER_TIME_ZERO = 1L << 4;
    public static final long CAP_USER_TIME_SHORT = 1L << 5;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The seqcount is read with acquire semantics, as READ_ONCE + barrier() in the header's example. */
    private static final VarHandle LOCK = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    /** Seqlock retries before giving up: the kernel holds the lock for a few instructions only. */
    private static final int MAX_RETRIES = 1_000_000;

    private final MemorySegment page;

    /** @param page at least the first 96 bytes of a perf_event_mmap_page (4-byte aligned for the lock) */
    public PerfUserPage(MemorySegment page) {
        if (page.byteSize() < 96) {
            throw new IllegalArgumentException("a perf user page needs 96 bytes, got " + page.byteSize());
        }
        this.page = page;
    }

    /** One consistent reading of the self-monitoring fields. */
    public record Snapshot(int lock, int index, long offset, long timeEnabled, long timeRunning, long capabilities,
                           int pmcWidth, int timeShift, long timeMult, long timeOffset, long timeZero, long timeCycles,
                           long timeMask) {

        public boolean capUserRdpmc() {
            return (capabilities & CAP_BIT0_IS_DEPRECATED) != 0 && (capabilities & CAP_USER_RDPMC) != 0;
        }

        public boolean capUserTime() {
            return (capabilities & CAP_BIT0_IS_DEPRECATED) != 0 && (capabilities & CAP_USER_TIME) != 0;
        }

        public boolean capUserTimeZero() {
            return (capabilities & CAP_BIT0_IS_DEPRECATED) != 0 && (capabilities & CAP_USER_TIME_ZERO) != 0;
        }

        public boolean capUserTimeShort() {
            return (capabilities & CAP_BIT0_IS_DEPRECATED) != 0 && (capabilities & CAP_USER_TIME_SHORT) != 0;
        }

        /**
         * The guard for RDPMC: user space may execute it for this event only when the kernel says
         * so and the event is on a counter (x86 arch_perf_update_userpage, include/uapi/linux/perf_event.h, struct perf_event_mmap_page).
         */
        public boolean rdpmcAllowed() {
            return capUserRdpmc() && index != 0 && pmcWidth > 0 && pmcWidth <= 64;
        }

        /** The ECX operand of RDPMC: index - 1 (fixed counters carry bit 30, metrics bit 29). */
        public int rdpmcCounter() {
            return index - 1;
        }

        /** TSC to perf time: the header's quot/rem formula, with time_cycles/time_mask for cap_user_time_short. */
        public long tscToDelta(long cyc) {
            if (capUserTimeShort()) {
                cyc = timeCycles + ((cyc - timeCycles) & timeMask);
            }
            long quot = cyc >>> timeShift;
            long rem = cyc & ((1L << timeShift) - 1);
            return timeOffset + quot * timeMult + ((rem * timeMult) >>> timeShift);
        }
    }

    /** The result of a self-monitoring read: value and the enabled/running times (scaled to now when the page allows). */
    public record SelfReading(long value, long timeEnabled, long timeRunning) {
    }

    private int lockAcquire() {
        int v = (int) LOCK.getAcquire(page, 0L + PerfMmapPageField.LOCK.offset());
        return v;
    }

    /** A consistent snapshot (seqlock retry loop). */
    public Snapshot snapshot() {
        for (int i = 0; i < MAX_RETRIES; i++) {
            int seq = lockAcquire();
            Snapshot s = fields(seq);
            VarHandle.loadLoadFence();
            if (lockAcquire() == seq) {
                return s;
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("perf user page lock kept changing for " + MAX_RETRIES + " reads");
    }

    private Snapshot fields(int seq) {
        return new Snapshot(seq, page.get(U32, PerfMmapPageField.INDEX.offset()),
                page.get(U64, PerfMmapPageField.OFFSET.offset()),
                page.get(U64, PerfMmapPageField.TIME_ENABLED.offset()),
                page.get(U64, PerfMmapPageField.TIME_RUNNING.offset()),
                page.get(U64, PerfMmapPageField.CAPABILITIES.offset()),
                Short.toUnsignedInt(page.get(U16, PerfMmapPageField.PMC_WIDTH.offset())),
                Short.toUnsignedInt(page.get(U16, PerfMmapPageField.TIME_SHIFT.offset())),
                Integer.toUnsignedLong(page.get(U32, PerfMmapPageField.TIME_MULT.offset())),
                page.get(U64, PerfMmapPageField.TIME_OFFSET.offset()),
                page.get(U64, PerfMmapPageField.TIME_ZERO.offset()),
                page.get(U64, PerfMmapPageField.TIME_CYCLES.offset()),
                page.get(U64, PerfMmapPageField.TIME_MASK.offset()));
    }

    /**
     * The self-monitoring read of the header comment: count = offset + sign_extend(rdpmc(index - 1),
     * pmc_width), inside the seqlock loop; times advanced by the TSC delta when cap_user_time and the
     * event was multiplexed. Empty when RDPMC is not allowed for this event: the caller then reads
     * the fd. {@code rdpmc} is called only after {@link Snapshot#rdpmcAllowed()} said yes.
     *
     * @param rdpmc executes RDPMC with the given ECX (never called unless allowed)
     * @param rdtsc executes RDTSC (called only with cap_user_time)
     */
    public OptionalLong selfReadValue(IntToLongFunction rdpmc, LongSupplier rdtsc) {
        return selfRead(rdpmc, rdtsc).map(r -> OptionalLong.of(r.value())).orElse(OptionalLong.empty());
    }

    /** {@link #selfReadValue} with the times. */
    public java.util.Optional<SelfReading> selfRead(IntToLongFunction rdpmc, LongSupplier rdtsc) {
        for (int i = 0; i < MAX_RETRIES; i++) {
            int seq = lockAcquire();
            Snapshot s = fields(seq);
            if (!s.rdpmcAllowed()) {
                VarHandle.loadLoadFence();
                if (lockAcquire() == seq) {
                    return java.util.Optional.empty();
                }
                continue;
            }
            long enabled = s.timeEnabled();
            long running = s.timeRunning();
            if (s.capUserTime() && enabled != running) {
                long delta = s.tscToDelta(rdtsc.getAsLong());
                enabled += delta;
                running += delta; // index != 0 here: the event is running
            }
            long pmc = rdpmc.applyAsLong(s.rdpmcCounter());
            long count = s.offset() + signExtend(pmc, s.pmcWidth());
            VarHandle.loadLoadFence();
            if (lockAcquire() == seq) {
                return java.util.Optional.of(new SelfReading(count, enabled, running));
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("perf user page lock kept changing for " + MAX_RETRIES + " reads");
    }

    /** {@code pmc <<= 64 - width; pmc >>= 64 - width} (arithmetic): the counter's width-bit value as signed. */
    public static long signExtend(long pmc, int width) {
        int shift = 64 - width;
        return (pmc << shift) >> shift;
    }
}
