package dev.hwtool.api;

/**
 * Why an operation failed. One cause, one stable process exit code (documented in README.md):
 * scripts may rely on these numbers. 0, 1 and 2 are success, internal error and usage error.
 */
public enum Cause {
    /** A file or argument the user gave is unreadable or malformed (e.g. a CPUID dump). */
    BAD_INPUT(3, "bad input"),
    /** ENXIO, or no /dev/cpu/N: the CPU does not exist or is offline. */
    NO_SUCH_CPU(4, "no such CPU"),
    /**
     * A driver's node is missing because the driver is not in the kernel: the module is not
     * loaded, or the kernel was built without it. Only then: nodes missing although the driver is
     * there are {@link #UNSUPPORTED}.
     */
    DRIVER_NOT_LOADED(5, "driver not loaded"),
    /** EACCES on open: the file mode does not allow this user. */
    PERMISSION_DENIED(6, "permission denied"),
    /** EPERM on open of the msr device: the process lacks CAP_SYS_RAWIO. */
    MISSING_CAPABILITY(7, "missing capability"),
    /** EPERM on write with /sys/kernel/security/lockdown at integrity or confidentiality. */
    LOCKDOWN(8, "kernel lockdown"),
    /** EPERM on write with msr.allow_writes=off. */
    WRITES_DISABLED(9, "MSR writes disabled"),
    /** EIO from the msr driver: #GP on RDMSR/WRMSR (unimplemented MSR, reserved bit). */
    REGISTER_FAULT(10, "register fault (#GP)"),
    /**
     * The facility does not exist here: no PMU, no LBR, not an x86 CPU, no such device (e.g. a
     * container started without the host's /dev/cpu nodes while the driver is loaded), a binding
     * whose native library cannot load, ..., or an object taken from a platform that has been
     * closed since ({@link HwException#closed}).
     */
    UNSUPPORTED(11, "unsupported here"),
    /** A write read back differently. */
    VERIFICATION_FAILED(12, "verification failed"),
    /**
     * Any other OS error that has no more specific cause; and every output file that cannot be
     * written (dev.hwtool.io.OutputFile), whatever the errno, which the message names.
     */
    OS_ERROR(13, "operating-system error"),
    /**
     * A simulator scenario's {@code expect} line did not hold, or its {@code expect-fault} line
     * did not fault: the simulated hardware disagreed with what the script says the SDM requires.
     */
    EXPECTATION_FAILED(14, "expectation failed");

    private final int exitCode;
    private final String label;

    Cause(int exitCode, String label) {
        this.exitCode = exitCode;
        this.label = label;
    }

    public int exitCode() {
        return exitCode;
    }

    public String label() {
        return label;
    }
}
