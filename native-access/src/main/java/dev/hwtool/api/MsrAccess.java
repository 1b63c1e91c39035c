package dev.hwtool.api;

import java.util.List;

/**
 * Model-specific registers of a machine, real or simulated. Register level of the interface:
 * identical on both backends. On hardware: /dev/cpu/N/msr, pread/pwrite of 8 bytes at offset =
 * MSR index (arch/x86/kernel/msr.c). In the simulator: a per-CPU register file whose rules come
 * from the profile.
 *
 * <p>Every failure is an {@link HwException} whose {@link Cause} names why: DRIVER_NOT_LOADED,
 * PERMISSION_DENIED, MISSING_CAPABILITY, LOCKDOWN, WRITES_DISABLED, REGISTER_FAULT (#GP),
 * NO_SUCH_CPU, ... — the same cause for the same condition on both backends.
 */
public interface MsrAccess extends AutoCloseable {

    /** Logical CPUs that exist (online), ascending. */
    List<Integer> cpus();

    /** RDMSR on {@code cpu}. {@code msr} is the 32-bit MSR index (unsigned). */
    long read(int cpu, int msr);

    /** WRMSR on {@code cpu}. No read-back here: callers that verify do so explicitly. */
    void write(int cpu, int msr, long value);

    @Override
    void close();
}
