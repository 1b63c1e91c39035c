package dev.hwtool.msr;

import dev.hwtool.arch.msr.CpuContext;

/**
 * What the careful write path needs to know of the machine an {@code MsrAccess} belongs to,
 * beyond its registers: the catalog's view of each CPU and the journal's name for the backend.
 * The backends' own accesses implement it; for any other, CarefulWrites builds it from the
 * access's {@code MsrAccess.origin()}.
 */
public interface MsrMachine {

    /** The catalog's view of CPU {@code cpu}: its CPUID and IA32_PERF_CAPABILITIES. */
    CpuContext context(int cpu);

    /** "hw", or "sim:PROFILE": recorded in the journal, and an undo must be on the same one. */
    String backend();

    /**
     * The journal a careful write goes to when the request names none: hwtool's own (the one
     * {@code hwtool msr restore --last} reads) for this machine's registers; a simulated
     * platform's own, so that simulated writes never reach the journal of the real registers.
     */
    default MsrJournal journal() {
        return MsrJournal.atDefaultLocation();
    }
}
