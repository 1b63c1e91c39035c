package dev.hwtool.arch.perf.abi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * A counter read in a read_format layout (include/uapi/linux/perf_event.h): what read(2) on a perf fd returns
 * and what a sample's READ field holds. Non-group: {value; [enabled]; [running]; [id]; [lost]};
 * group: {nr; [enabled]; [running]; {value; [id]; [lost]} × nr}. Arrays hold one entry per
 * counter (one without GROUP); ids and lost are empty when not requested.
 */
public record PerfCounts(long readFormat, long[] values, long[] ids, long[] lost, long timeEnabled,
                         long timeRunning) {

    public boolean group() {
        return (readFormat & PerfFormat.GROUP) != 0;
    }

    public long value() {
        return values[0];
    }

    /**
     * The value scaled for multiplexing: value × enabled / running, as perf stat does; empty when
     * the times were not requested or the counter never ran.
     */
    public OptionalLong scaled(int i) {
        if ((readFormat & (PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING))
                != (PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING) || timeRunning == 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of((long) ((double) values[i] * timeEnabled / timeRunning));
    }

    /** Bytes of this layout for {@code members} counters (1 unless GROUP). */
    public static long byteSize(long readFormat, long members) {
        long per = 8 + ((readFormat & PerfFormat.ID) != 0 ? 8 : 0) + ((readFormat & PerfFormat.LOST) != 0 ? 8 : 0);
        long times = ((readFormat & PerfFormat.TOTAL_TIME_ENABLED) != 0 ? 8 : 0)
                + ((readFormat & PerfFormat.TOTAL_TIME_RUNNING) != 0 ? 8 : 0);
        return (readFormat & PerfFormat.GROUP) != 0 ? 8 + times + per * members : times + per;
    }

    /**
     * Decodes the layout at {@code offset}, which must fit before {@code limit}.
     *
     * @throws PerfParseException when it does not fit
     */
    public static PerfCounts read(MemorySegment seg, long offset, long limit, long readFormat) {
        var u64 = PerfBranchEntry.U64;
        boolean group = (readFormat & PerfFormat.GROUP) != 0;
        long at = offset;
        long nr = 1;
        if (group) {
            need(at, 8, limit, offset, "group read nr");
            nr = seg.get(u64, at);
            at += 8;
            long per = byteSize(readFormat & ~PerfFormat.GROUP, 1) - timesOf(readFormat);
            if (nr < 0 || nr > (limit - at) / per) {
                throw new PerfParseException(offset, "group read of " + Long.toUnsignedString(nr) + " counters does not fit");
            }
        }
        long[] values = new long[(int) nr];
        if (!group) { // perf_read_one: the value comes before the times (kernel/events/core.c)
            need(at, 8, limit, offset, "value");
            values[0] = seg.get(u64, at);
            at += 8;
        }
        long enabled = 0;
        long running = 0;
        if ((readFormat & PerfFormat.TOTAL_TIME_ENABLED) != 0) {
            need(at, 8, limit, offset, "time_enabled");
            enabled = seg.get(u64, at);
            at += 8;
        }
        if ((readFormat & PerfFormat.TOTAL_TIME_RUNNING) != 0) {
            need(at, 8, limit, offset, "time_running");
            running = seg.get(u64, at);
            at += 8;
        }
        boolean hasId = (readFormat & PerfFormat.ID) != 0;
        boolean hasLost = (readFormat & PerfFormat.LOST) != 0;
        long[] ids = new long[hasId ? (int) nr : 0];
        long[] lost = new long[hasLost ? (int) nr : 0];
        for (int i = 0; i < nr; i++) {
            if (group) { // perf_read_group: the times come first, then {value, id, lost} per member
                need(at, 8, limit, offset, "value");
                values[i] = seg.get(u64, at);
                at += 8;
            }
            if (hasId) {
                need(at, 8, limit, offset, "id");
                ids[i] = seg.get(u64, at);
                at += 8;
            }
            if (hasLost) {
                need(at, 8, limit, offset, "lost");
                lost[i] = seg.get(u64, at);
                at += 8;
            }
        }
        return new PerfCounts(readFormat, values, ids, lost, enabled, running);
    }

    private static long timesOf(long readFormat) {
        return ((readFormat & PerfFormat.TOTAL_TIME_ENABLED) != 0 ? 8 : 0)
                + ((readFormat & PerfFormat.TOTAL_TIME_RUNNING) != 0 ? 8 : 0);
    }

    private static void need(long at, long n, long limit, long start, String what) {
        if (at + n > limit) {
            throw new PerfParseException(start, what + " runs past the end of the read data");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PerfCounts c && c.readFormat == readFormat && Arrays.equals(c.values, values)
                && Arrays.equals(c.ids, ids) && Arrays.equals(c.lost, lost) && c.timeEnabled == timeEnabled
                && c.timeRunning == timeRunning;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values) * 31 + Long.hashCode(timeEnabled);
    }

    @Override
    public String toString() {
        return "PerfCounts{values=" + Arrays.toString(values) + ", ids=" + Arrays.toString(ids) + ", lost="
                + Arrays.toString(lost) + ", enabled=" + timeEnabled + ", running=" + timeRunning + "}";
    }
}
