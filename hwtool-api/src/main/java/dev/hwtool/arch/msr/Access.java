package dev.hwtool.arch.msr;

/**
 * How software may use a register or one of its fields, in the SDM's MSR-table terms
 * (SDM Vol. 4, "R/W", "RO", "R/WC0"...).
 */
public enum Access {
    /** Read and write. */
    RW,
    /** Read only: writing a different value is an error (#GP on most registers). */
    RO,
    /** Readable; writing 1 clears the bit, writing 0 leaves it. */
    W1C,
    /**
     * "R/WC0" in SDM Vol. 4 (sticky log bits such as IA32_THERM_STATUS[1]): readable; writing 0
     * clears the bit, writing 1 leaves it as it is (software cannot set a log bit, SDM Vol. 3B
     * 14.7.5.2 "Thermal Status Information").
     */
    RWC0,
    /** Write only: the write has an effect (e.g. clears or sets other state); the field reads as 0. */
    WO;

    /** Whether software may put a new value into this register or field. */
    public boolean writable() {
        return this != RO;
    }
}
