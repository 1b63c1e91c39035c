package dev.hwtool.sim.cpu;

/**
 * One PEBS record, decoded.
 *
 * @param address            where it is in the PEBS buffer
 * @param size               its size in bytes
 * @param ip                 the record's IP field (after the instruction with PEBS_TRAP on legacy formats)
 * @param eventingIp         the instruction that caused the event (real_ip, adaptive basic ip; else ip)
 * @param applicableCounters the counters it is for (GLOBAL_STATUS numbering; 0 for format 0)
 * @param tsc                the TSC when written, or -1 where the format has none
 */
public record PebsRecord(long address, int size, long ip, long eventingIp, long applicableCounters, long tsc) {
}
