package dev.hwtool.arch.decode;

/**
 * The architectural performance events, in CPUID.0AH:EBX bit order (SDM Vol. 3B 20.2.1.2,
 * Table "UMask and Event Select Encodings for Pre-Defined Architectural Performance Events";
 * bits 8–12 as in Linux tools/testing/selftests/kvm/include/x86/pmu.h
 * enum intel_pmu_architectural_events).
 */
public enum ArchPerfmonEvent {
    CORE_CYCLES("core cycles", 0x3C, 0x00),
    INSTRUCTIONS_RETIRED("instructions retired", 0xC0, 0x00),
    REFERENCE_CYCLES("reference cycles", 0x3C, 0x01),
    LLC_REFERENCES("LLC references", 0x2E, 0x4F),
    LLC_MISSES("LLC misses", 0x2E, 0x41),
    BRANCH_INSTRUCTIONS_RETIRED("branch instructions retired", 0xC4, 0x00),
    BRANCH_MISPREDICTS_RETIRED("branch mispredicts retired", 0xC5, 0x00),
    TOPDOWN_SLOTS("top-down slots", 0xA4, 0x01),
    TOPDOWN_BACKEND_BOUND("top-down backend bound", 0xA4, 0x02),
    TOPDOWN_BAD_SPECULATION("top-down bad speculation", 0x73, 0x00),
    TOPDOWN_FRONTEND_BOUND("top-down frontend bound", 0x9C, 0x01),
    TOPDOWN_RETIRING("top-down retiring", 0xC2, 0x02),
    LBR_INSERTS("LBR inserts", 0xE4, 0x01);

    private final String sdmName;
    private final int eventSelect;
    private final int umask;

    ArchPerfmonEvent(String sdmName, int eventSelect, int umask) {
        this.sdmName = sdmName;
        this.eventSelect = eventSelect;
        this.umask = umask;
    }

    /** The CPUID.0AH:EBX bit that, when set, says this event is not available. */
    public int bit() {
        return ordinal();
    }

    public String sdmName() {
        return sdmName;
    }

    /** IA32_PERFEVTSELx[7:0]. */
    public int eventSelect() {
        return eventSelect;
    }

    /** IA32_PERFEVTSELx[15:8]. */
    public int umask() {
        return umask;
    }
}
