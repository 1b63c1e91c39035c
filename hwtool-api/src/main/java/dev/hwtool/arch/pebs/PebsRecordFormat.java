package dev.hwtool.arch.pebs;

/**
 * The legacy PEBS record formats 0–3 of IA32_PERF_CAPABILITIES.PEBS_FMT in the 64-bit DS save
 * area: byte offsets of every field (8-byte fields) and the record size. The Core, Nehalem,
 * Haswell and Skylake "PEBS Record Format" tables of SDM Vol. 3B, Performance Monitoring; Linux
 * arch/x86/events/intel/ds.c {@code struct pebs_record_core}, {@code _nhm},
 * {@code _hsw}, {@code _skl} and intel_ds_init's pebs_record_size. Each format extends the
 * previous one at its end.
 */
public enum PebsRecordFormat {
    /** Format 0 (Core, Atom): flags, ip, the 16 GPRs — 144 bytes. */
    CORE(0, 144),
    /** Format 1 (Nehalem to Ivy Bridge): + status, dla, dse, lat — 176 bytes. */
    NHM(1, 176),
    /** Format 2 (Haswell, Silvermont): + real_ip, tsx_tuning — 192 bytes. */
    HSW(2, 192),
    /** Format 3 (Skylake, Goldmont): + tsc — 200 bytes. */
    SKL(3, 200);

    public static final int FLAGS = 0x00;
    public static final int IP = 0x08;
    public static final int AX = 0x10;
    public static final int BX = 0x18;
    public static final int CX = 0x20;
    public static final int DX = 0x28;
    public static final int SI = 0x30;
    public static final int DI = 0x38;
    public static final int BP = 0x40;
    public static final int SP = 0x48;
    /** R8 at 50H, R9 at 58H, ... R15 at 88H. */
    public static final int R8 = 0x50;
    /** Format 1+: the applicable counters (IA32_PERF_GLOBAL_STATUS-numbered bits of the counters the record is for). */
    public static final int STATUS = 0x90;
    /** Format 1+: data linear address (load latency / precise store). */
    public static final int DLA = 0x98;
    /** Format 1+: data source encoding. */
    public static final int DSE = 0xA0;
    /** Format 1+: load latency in core cycles. */
    public static final int LAT = 0xA8;
    /** Format 2+: the eventing IP (the instruction that caused the event), whatever PEBS_TRAP says. */
    public static final int REAL_IP = 0xB0;
    /** Format 2+: TSX tuning information. */
    public static final int TSX_TUNING = 0xB8;
    /** Format 3: the time-stamp counter when the record was written. */
    public static final int TSC = 0xC0;

    private final int format;
    private final int size;

    PebsRecordFormat(int format, int size) {
        this.format = format;
        this.size = size;
    }

    /** The PEBS_FMT value. */
    public int format() {
        return format;
    }

    /** Record size in bytes. */
    public int size() {
        return size;
    }

    public boolean hasStatus() {
        return format >= 1;
    }

    public boolean hasRealIp() {
        return format >= 2;
    }

    public boolean hasTsc() {
        return format >= 3;
    }

    /** The legacy format numbered {@code pebsFmt}; adaptive formats (4+) are {@link AdaptivePebs}. */
    public static PebsRecordFormat of(int pebsFmt) {
        for (PebsRecordFormat f : values()) {
            if (f.format == pebsFmt) {
                return f;
            }
        }
        throw new IllegalArgumentException("PEBS_FMT " + pebsFmt + " is not a legacy (0-3) record format");
    }
}
