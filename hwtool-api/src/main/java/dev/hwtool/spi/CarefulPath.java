package dev.hwtool.spi;

import java.nio.file.Path;
import java.util.List;

/**
 * The careful MSR write path as the contract reaches it: {@code dev.hwtool.api.MsrAccess}'s
 * default methods (write by request, save, read by name) call the one implementation that
 * {@link java.util.ServiceLoader} finds, {@code dev.hwtool.msr.CarefulWriteProvider}.
 *
 * <p>Why a seam: the write planning, the catalog checks and the journal ({@code dev.hwtool.msr})
 * are built on the contract's types, so the contract may not name them back, or the two packages
 * would form a cycle (issue 25: no package cycles inside a module). The type parameters stand for
 * {@code MsrAccess}, {@code WriteRequest} and {@code WriteResult}, so that this package names no
 * contract type either: api -> spi <- msr -> api, no cycle. Not exported: nothing outside this
 * module implements or calls it.
 *
 * @param <A> the register access ({@code MsrAccess})
 * @param <Q> a careful write request ({@code WriteRequest})
 * @param <R> its result ({@code WriteResult})
 */
public interface CarefulPath<A, Q, R> {

    /** {@code MsrAccess.write(WriteRequest)}. */
    R write(A access, Q request);

    /** {@code MsrAccess.save(file, cpus, registers)}. */
    void save(A access, Path file, List<Integer> cpus, List<String> registers);

    /** {@code MsrAccess.read(cpu, "NAME")}. */
    long read(A access, int cpu, String register);

    /** {@code MsrAccess.readField(cpu, "NAME", "FIELD")}. */
    long readField(A access, int cpu, String register, String field);
}
