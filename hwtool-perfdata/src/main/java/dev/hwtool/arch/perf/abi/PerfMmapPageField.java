package dev.hwtool.arch.perf.abi;

/**
 * The fields of {@code struct perf_event_mmap_page}, page 0 of a perf mapping
 * (include/uapi/linux/perf_event.h): offset, width and C name.
 */
public enum PerfMmapPageField {
    VERSION(0, 4, "version"),
    COMPAT_VERSION(4, 4, "compat_version"),
    /** seqcount: odd while the kernel updates the fields below. */
    LOCK(8, 4, "lock"),
    /** RDPMC counter number + 1; 0 = the event is not on a counter user space can read. */
    INDEX(12, 4, "index"),
    /** s64, add to the counter value. */
    OFFSET(16, 8, "offset"),
    TIME_ENABLED(24, 8, "time_enabled"),
    TIME_RUNNING(32, 8, "time_running"),
    /** The capabilities bitfield word: see the CAP_* constants of {@link PerfUserPage}. */
    CAPABILITIES(40, 8, "capabilities"),
    PMC_WIDTH(48, 2, "pmc_width"),
    TIME_SHIFT(50, 2, "time_shift"),
    TIME_MULT(52, 4, "time_mult"),
    TIME_OFFSET(56, 8, "time_offset"),
    TIME_ZERO(64, 8, "time_zero"),
    SIZE(72, 4, "size"),
    TIME_CYCLES(80, 8, "time_cycles"),
    TIME_MASK(88, 8, "time_mask"),
    DATA_HEAD(1024, 8, "data_head"),
    DATA_TAIL(1032, 8, "data_tail"),
    DATA_OFFSET(1040, 8, "data_offset"),
    DATA_SIZE(1048, 8, "data_size"),
    AUX_HEAD(1056, 8, "aux_head"),
    AUX_TAIL(1064, 8, "aux_tail"),
    AUX_OFFSET(1072, 8, "aux_offset"),
    AUX_SIZE(1080, 8, "aux_size");

    /** sizeof(struct perf_event_mmap_page). */
    public static final int STRUCT_SIZE = 1088;

    private final int offset;
    private final int width;
    private final String cName;

    PerfMmapPageField(int offset, int width, String cName) {
        this.offset = offset;
        this.width = width;
        this.cName = cName;
    }

    public int offset() {
        return offset;
    }

    public int width() {
        return width;
    }

    public String cName() {
        return cName;
    }
}
