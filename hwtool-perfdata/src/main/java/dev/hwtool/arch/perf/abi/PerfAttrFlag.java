package dev.hwtool.arch.perf.abi;

/**
 * The one-bit fields of perf_event_attr's flags word (offset 40), in the kernel's declaration
 * order and bit positions (include/uapi/linux/perf_event.h). precise_ip (bits 15-16) is two bits
 * wide and set through the builder; bits 38-63 are __reserved_1 and must be 0 (EINVAL).
 */
public enum PerfAttrFlag {
    DISABLED(0), INHERIT(1), PINNED(2), EXCLUSIVE(3), EXCLUDE_USER(4), EXCLUDE_KERNEL(5), EXCLUDE_HV(6),
    EXCLUDE_IDLE(7), MMAP(8), COMM(9), FREQ(10), INHERIT_STAT(11), ENABLE_ON_EXEC(12), TASK(13), WATERMARK(14),
    MMAP_DATA(17), SAMPLE_ID_ALL(18), EXCLUDE_HOST(19), EXCLUDE_GUEST(20), EXCLUDE_CALLCHAIN_KERNEL(21),
    EXCLUDE_CALLCHAIN_USER(22), MMAP2(23), COMM_EXEC(24), USE_CLOCKID(25), CONTEXT_SWITCH(26),
    WRITE_BACKWARD(27), NAMESPACES(28), KSYMBOL(29), BPF_EVENT(30), AUX_OUTPUT(31), CGROUP(32), TEXT_POKE(33),
    BUILD_ID(34), INHERIT_THREAD(35), REMOVE_ON_EXEC(36), SIGTRAP(37);

    /** precise_ip: bits 15-16 of the flags word. */
    public static final int PRECISE_IP_SHIFT = 15;
    public static final long PRECISE_IP_MASK = 3L << PRECISE_IP_SHIFT;
    /** The first __reserved_1 bit. */
    public static final int RESERVED_FROM = 38;

    private final int bit;

    PerfAttrFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public long mask() {
        return 1L << bit;
    }

    /** The C bitfield name, e.g. "exclude_kernel". */
    public String cName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
