package dev.hwtool.qemu;

/**
 * The architectural MSRs the real-kernel checks touch (SDM Vol. 4, Table 2-2), chosen because
 * QEMU's TCG CPU implements them: unknown MSRs read as 0 there instead of faulting.
 */
enum GuestMsr {
    /** Free-running; must advance between two reads. */
    IA32_TIME_STAMP_COUNTER(0x10),
    /** Base 0xFEE00000 (bits 35:12), EN bit 11, BSP bit 8 on the boot CPU only (SDM Vol. 3A 11.4.4). */
    IA32_APIC_BASE(0x1B),
    IA32_MISC_ENABLE(0x1A0),
    /** Eight 3-bit memory types; a 64-bit value with bits set in both halves (SDM Vol. 3A 13.12.2). */
    IA32_PAT(0x277),
    /** Read by RDTSCP; Linux keeps (node << 12 | cpu) there. Writable in bits 31:0 (SDM Vol. 4). */
    IA32_TSC_AUX(0xC0000103);

    final int index;

    GuestMsr(int index) {
        this.index = index;
    }

    String hex() {
        return "0x" + Integer.toHexString(index);
    }
}
