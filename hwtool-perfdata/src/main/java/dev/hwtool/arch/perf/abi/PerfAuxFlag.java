package dev.hwtool.arch.perf.abi;

/** PERF_RECORD_AUX flags (PERF_AUX_FLAG_*), include/uapi/linux/perf_event.h, enum perf_event_type. */
public final class PerfAuxFlag {
    /** The AUX buffer filled up: the hardware stopped writing (intel_bts: index reached the absolute maximum). */
    public static final long TRUNCATED = 0x1;
    public static final long OVERWRITE = 0x2;
    public static final long PARTIAL = 0x4;
    public static final long COLLISION = 0x8;

    private PerfAuxFlag() {
    }
}
