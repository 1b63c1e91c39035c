package dev.hwtool.arch.perf.abi;

/**
 * The perf fd ioctls (_IO/_IOW/_IOR('$', n)), include/uapi/linux/perf_event.h, and perf_event_open(2)'s
 * flags argument (PERF_FLAG_*).
 */
public final class PerfIoctl {
    public static final long ENABLE = 0x2400;
    public static final long DISABLE = 0x2401;
    public static final long REFRESH = 0x2402;
    public static final long RESET = 0x2403;
    /** _IOW('$', 4, __u64): arg points to the new period. */
    public static final long PERIOD = 0x40082404L;
    /** arg: the fd whose ring this event writes into, or -1. */
    public static final long SET_OUTPUT = 0x2405;
    public static final long SET_FILTER = 0x40082406L;
    /** _IOR('$', 7, __u64): the kernel writes the event id to *arg. */
    public static final long ID = 0x80082407L;
    public static final long SET_BPF = 0x40042408L;
    public static final long PAUSE_OUTPUT = 0x40042409L;
    public static final long QUERY_BPF = 0xC008240AL;
    public static final long MODIFY_ATTRIBUTES = 0x4008240BL;
    /** ENABLE/DISABLE/RESET/REFRESH arg: apply to the whole group. */
    public static final long FLAG_GROUP = 1;

    public static final long FLAG_FD_NO_GROUP = 1L << 0;
    public static final long FLAG_FD_OUTPUT = 1L << 1;
    public static final long FLAG_PID_CGROUP = 1L << 2;
    public static final long FLAG_FD_CLOEXEC = 1L << 3;

    private PerfIoctl() {
    }
}
