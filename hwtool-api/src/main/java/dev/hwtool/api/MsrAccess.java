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

    /**
     * RDMSR of a register by its name in hwtool's catalog ({@code "IA32_DEBUGCTL"}, case-insensitive,
     * as {@code hwtool msr list} shows them) or its index in 0x hex ({@code "0x1d9"}).
     *
     * @throws HwException BAD_INPUT for a name the catalog lacks; UNSUPPORTED for a register this
     *                     CPU does not have (as the catalog knows from the CPU's CPUID, on the
     *                     platform's own accesses); the causes of {@link #read(int, int)}
     */
    default long read(int cpu, String register) {
        return CarefulPaths.get().read(this, cpu, register);
    }

    /**
     * One field of a catalog register, shifted down to bit 0: {@code readField(0, "IA32_DEBUGCTL",
     * "LBR")} is 1 when LBR recording is on.
     *
     * @throws HwException BAD_INPUT for a register or field name the catalog lacks; UNSUPPORTED for
     *                     a register or field this CPU does not have; the causes of {@link #read(int, int)}
     */
    default long readField(int cpu, String register, String field) {
        return CarefulPaths.get().readField(this, cpu, register, field);
    }

    /** WRMSR on {@code cpu}. No read-back here: the careful path is {@link #write(WriteRequest)}. */
    void write(int cpu, int msr, long value);

    /**
     * The machine these registers belong to, as the careful path ({@link #write(WriteRequest)})
     * needs it: the CPUID its catalog checks read, the backend its journal records, the journal it
     * writes when the request names none. A decorator returns its delegate's, so that its careful
     * writes are checked against that platform's CPUs, never the host's.
     *
     * @throws HwException UNSUPPORTED when the platform it came from is closed
     */
    Origin origin();

    /**
     * Where an {@link MsrAccess}'s registers are.
     *
     * @param backend          "hw", or "sim:PROFILE": recorded in the journal; an undo must be on the same one
     * @param cpuid            the CPUID of those same CPUs: which registers and fields each one has
     * @param journalDirectory the journal a careful write goes to by default: hwtool's own for the
     *                         real registers (the one {@code hwtool msr restore --last} reads), a
     *                         simulated platform's own for simulated ones
     */
    record Origin(String backend, CpuidSource cpuid, java.nio.file.Path journalDirectory) {
        public Origin {
            java.util.Objects.requireNonNull(backend, "backend");
            java.util.Objects.requireNonNull(cpuid, "cpuid");
            java.util.Objects.requireNonNull(journalDirectory, "journalDirectory");
        }
    }

    /**
     * The careful write path, as {@code hwtool wrmsr} and {@code hwtool msr restore} take it: every
     * write is checked against hwtool's catalog for that CPU and its old value read before any
     * WRMSR (a refusal writes nothing); then, under the journal's lock, each write is journaled
     * (fsync'd) before it is made, read back and verified; when any CPU fails, every register
     * already written is put back (all or nothing). The same request on a simulated platform
     * writes the simulated CPU's registers ({@link WriteResult#simulated()} says which).
     *
     * <p>Backends implement only the register level above; this method is the same for all. Its
     * catalog checks read the CPUID of {@link #origin()}, and its journal is the origin's unless
     * the request names one: a decorator around a simulated platform's access writes carefully
     * against the simulated CPU, into the simulated platform's journal.
     *
     * @return what was (or, on a dry run, would be) written, verified and rolled back, and the
     *         journal batch that can undo it
     * @throws WriteResult.Failed a failure in the write phase, under the journal's lock: #GP
     *                            (REGISTER_FAULT), a read-back that differs (VERIFICATION_FAILED), an
     *                            access error, a journal that cannot take the batch (OS_ERROR, before
     *                            any write); the registers already written were put back, and its
     *                            result says which writes were made and rolled back
     * @throws HwException        nothing written: BAD_INPUT for a register or field name the catalog
     *                            lacks, a write the catalog refuses (read-only, reserved bits, a
     *                            register outside the catalog without {@link WriteRequest#force()}),
     *                            a save file or journal that is damaged, nothing to undo, or an undo
     *                            of registers changed since; UNSUPPORTED for a register or field this
     *                            CPU does not have; NO_SUCH_CPU; OS_ERROR when the journal cannot be
     *                            written; the access causes of {@link #read} (PERMISSION_DENIED,
     *                            MISSING_CAPABILITY, DRIVER_NOT_LOADED, LOCKDOWN, WRITES_DISABLED, ...)
     */
    default WriteResult write(WriteRequest request) {
        return CarefulPaths.get().write(this, request);
    }

    /**
     * Saves the values of {@code registers} on each of {@code cpus} to {@code file}, as {@code hwtool
     * msr save} does (the same JSON format; written atomically over a regular file), for
     * {@link WriteRequest#restore(java.nio.file.Path)} or {@code hwtool msr restore FILE} later. The
     * file names the backend it came from ("hw", or "sim:PROFILE" with {@code "simulated": true}), and
     * a restore on another backend is refused unless forced.
     *
     * @param registers catalog names ("IA32_DEBUGCTL") or 32-bit indices in 0x hex ("0x1d9")
     * @throws HwException BAD_INPUT for a name the catalog lacks; OS_ERROR when the file cannot be
     *                     written (nothing is left half written); the access causes of {@link #read}
     *                     (NO_SUCH_CPU, REGISTER_FAULT, PERMISSION_DENIED, ...) for a register that
     *                     cannot be read, before the file is replaced
     */
    default void save(java.nio.file.Path file, java.util.Collection<Integer> cpus, java.util.Collection<String> registers) {
        CarefulPaths.get().save(this, file, List.copyOf(cpus), List.copyOf(registers));
    }

    @Override
    void close();
}
