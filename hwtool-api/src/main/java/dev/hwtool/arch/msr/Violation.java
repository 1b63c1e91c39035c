package dev.hwtool.arch.msr;

/**
 * Why a WRMSR would be refused (or would #GP) on a CPU.
 *
 * @param mask    the offending bits (0 when the whole register is at fault)
 * @param message one line naming the register, the bits and the rule
 */
public record Violation(Kind kind, long mask, String message) {

    public enum Kind {
        /** 1s in bits no field covers on this CPU: #GP(0). */
        RESERVED_BITS,
        /** The register is read-only: WRMSR #GPs. */
        READ_ONLY_REGISTER,
        /** A read-only field would change value. */
        READ_ONLY_FIELD_CHANGED,
        /** The register does not exist on this CPU: RDMSR/WRMSR #GP. */
        NOT_ON_THIS_CPU
    }
}
