package dev.hwtool.api;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@link MsrAccess#write(WriteRequest)} did: each planned WRMSR with the register's value
 * before and after it, whether it was made, read back as written, and put back by the all-or-
 * nothing rollback.
 *
 * @param writes    the planned writes, in the order they were (or, on a dry run, would be) made
 * @param batch     the journal batch that holds them (the id {@link WriteRequest#undo(long)}
 *                  takes); empty on a dry run, without a journal, or when nothing needed writing
 * @param dryRun    nothing was written
 * @param simulated the registers are a simulated CPU's, not this machine's
 * @param notes     what the careful path said on the way, one line each: registers rolled back
 *                  or not, write-1-to-clear bits it could not verify, journal warnings
 * @param journal   the directory of the journal that holds {@code batch} (present exactly when
 *                  {@code batch} is): {@link WriteRequest#undo(WriteResult)} undoes the batch there
 */
public record WriteResult(List<Write> writes, OptionalLong batch, boolean dryRun, boolean simulated, List<String> notes,
                          Optional<Path> journal) {

    public WriteResult {
        writes = List.copyOf(writes);
        Objects.requireNonNull(batch, "batch");
        notes = List.copyOf(notes);
        Objects.requireNonNull(journal, "journal");
        if (batch.isPresent() != journal.isPresent()) {
            throw new IllegalArgumentException("a batch and its journal go together: batch " + batch + ", journal " + journal);
        }
    }

    /**
     * One WRMSR.
     *
     * @param name       the catalog's name of the register, if it has one
     * @param oldValue   its value before (read under the journal's lock)
     * @param newValue   the value written
     * @param written    the WRMSR was made
     * @param verified   it read back as written (in the bits a read returns as written: all 64
     *                   outside the catalog, the read/write fields inside); false for a
     *                   write-1-to-clear or write-only register, which cannot be read back
     * @param rolledBack a later write failed and this register was put back to {@code oldValue}
     */
    public record Write(int cpu, int msr, Optional<String> name, long oldValue, long newValue,
                        boolean written, boolean verified, boolean rolledBack) {
        public Write {
            Objects.requireNonNull(name, "name");
        }

        /** e.g. {@code CPU 2 IA32_DEBUGCTL 0x000001d9: 0x0000000000000000 -> 0x0000000000000001 verified}. */
        @Override
        public String toString() {
            String state = rolledBack ? "rolled back" : verified ? "verified" : written ? "written, not verifiable by reading"
                    : "not written";
            return String.format("CPU %d %s0x%08x: 0x%016x -> 0x%016x %s", cpu, name.map(n -> n + " ").orElse("MSR "),
                    Integer.toUnsignedLong(msr), oldValue, newValue, state);
        }
    }

    /** Whether every write was made and none was rolled back. */
    public boolean allWritten() {
        return !dryRun && writes.stream().allMatch(w -> w.written() && !w.rolledBack());
    }

    /**
     * A careful write that failed after it began writing: the cause, message and remedy are those
     * of the failure (a #GP is REGISTER_FAULT, a read-back that differs VERIFICATION_FAILED, ...);
     * {@link #result()} says what had been written and what the rollback put back.
     */
    public static final class Failed extends HwException {
        private final transient WriteResult result;

        public Failed(HwException failure, WriteResult result) {
            super(failure.cause(), failure.getMessage(), failure.remedy().orElse(null), failure);
            this.result = Objects.requireNonNull(result, "result");
        }

        public WriteResult result() {
            return result;
        }
    }
}
