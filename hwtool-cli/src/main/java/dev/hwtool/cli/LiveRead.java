package dev.hwtool.cli;

import dev.hwtool.api.HwException;

/**
 * The outcome of doctor's live probe: one RDMSR of IA32_TIME_STAMP_COUNTER through the
 * platform's MsrAccess. Reading the TSC has no side effect and every x86-64 CPU has it
 * (SDM Vol. 4, Table 2-2: MSR 10H), so it confirms the whole path and nothing else.
 */
sealed interface LiveRead {

    /** IA32_TIME_STAMP_COUNTER (SDM Vol. 4 Table 2-2). */
    int IA32_TIME_STAMP_COUNTER = 0x10;

    /** The read succeeded. {@code via} says through what, e.g. the backend's description. */
    record Value(int cpu, long value, String via) implements LiveRead {
    }

    /** The read failed; the exception names the cause. */
    record Failed(int cpu, HwException error) implements LiveRead {
    }

    /** The probe was not run, and why. */
    record NotRun(String why) implements LiveRead {
    }
}
