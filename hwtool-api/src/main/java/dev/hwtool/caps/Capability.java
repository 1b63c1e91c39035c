package dev.hwtool.caps;

/**
 * The Linux capabilities the facilities depend on, with their bit numbers in the CapEff mask
 * of /proc/self/status (include/uapi/linux/capability.h).
 */
public enum Capability {
    /** Bypasses file read/write/execute permission checks (mode of /dev/cpu/N/msr). */
    CAP_DAC_OVERRIDE(1),
    /** Lifts the mlock limit for perf ring buffers beyond perf_event_mlock_kb. */
    CAP_IPC_LOCK(14),
    /** msr_open (arch/x86/kernel/msr.c) refuses without it: EPERM. */
    CAP_SYS_RAWIO(17),
    /** perfmon_capable() accepts it as well as CAP_PERFMON (include/linux/capability.h). */
    CAP_SYS_ADMIN(21),
    /** Linux 5.8+: satisfies every perf_event_paranoid check (kernel/events/core.c). */
    CAP_PERFMON(38);

    private final int bit;

    Capability(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public boolean in(long capEff) {
        return ((capEff >>> bit) & 1L) != 0;
    }
}
