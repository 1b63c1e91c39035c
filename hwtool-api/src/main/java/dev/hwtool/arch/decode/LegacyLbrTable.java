package dev.hwtool.arch.decode;

import java.util.HashMap;
import java.util.Map;

/**
 * Legacy (model-specific) LBR geometry by display family/model: Linux
 * arch/x86/events/intel/lbr.c's intel_pmu_lbr_init_* functions as
 * intel_pmu_init() (events/intel/core.c) assigns them to models, and SDM Vol. 3B Table 17-4.
 *
 * <p>{@code format} is the LBR_FMT the model reports in IA32_PERF_CAPABILITIES[5:0] where
 * that is known: 3 (EIP_FLAGS) Nehalem..Ivy Bridge, 4 (EIP_FLAGS2, TSX flags) Haswell and
 * Broadwell, 5 (INFO) Skylake-derived and Sunny/Willow/Cypress Cove cores, 6 (TIME) Goldmont,
 * 7 (INFO2) Goldmont Plus, 1 (LIP) Knights Landing/Mill (which Linux treats as 3: "Knights
 * Landing does have MISPREDICT bit"). Core 2, Bonnell/Saltwell, Silvermont/Airmont and Tremont
 * are -1: neither source states their value. Nothing here reads the MSR.
 */
public final class LegacyLbrTable {

    public static final int MSR_LBR_CORE_FROM = 0x40;
    public static final int MSR_LBR_CORE_TO = 0x60;
    public static final int MSR_LBR_NHM_FROM = 0x680;
    public static final int MSR_LBR_NHM_TO = 0x6C0;
    public static final int MSR_LBR_INFO_0 = 0xDC0;

    public static final int FMT_UNKNOWN = -1;
    public static final int FMT_LIP = 1;
    public static final int FMT_EIP_FLAGS = 3;
    public static final int FMT_EIP_FLAGS2 = 4;
    public static final int FMT_INFO = 5;
    public static final int FMT_TIME = 6;
    public static final int FMT_INFO2 = 7;

    private static final int NO_MSR = -1;

    /** lbr.c's init functions: depth, first FROM/TO/INFO MSR, and whether LBR_SELECT has EN_CALLSTACK. */
    enum Layout {
        /** intel_pmu_lbr_init_core. */
        CORE(4, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, NO_MSR, false),
        /** intel_pmu_lbr_init_atom and intel_pmu_lbr_init_slm. */
        ATOM(8, MSR_LBR_CORE_FROM, MSR_LBR_CORE_TO, NO_MSR, false),
        /** intel_pmu_lbr_init_nhm and intel_pmu_lbr_init_snb. */
        NHM(16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, NO_MSR, false),
        /** intel_pmu_lbr_init_hsw (hsw_lbr_sel_map has LBR_CALL_STACK). */
        HSW(16, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, NO_MSR, true),
        /** intel_pmu_lbr_init_skl. */
        SKL(32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, MSR_LBR_INFO_0, true),
        /** intel_pmu_lbr_init_skl on Goldmont, whose LBR_FMT 6 keeps cycles in TO[63:48], not LBR_INFO. */
        GLM(32, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, NO_MSR, true),
        /** intel_pmu_lbr_init_knl. */
        KNL(8, MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO, NO_MSR, false),
        /** Architectural LBR (IA32_LBR_x_FROM_IP at 1500H…) replaces the legacy stack. */
        ARCH(0, NO_MSR, NO_MSR, NO_MSR, false);

        final int depth;
        final int from;
        final int to;
        final int info;
        final boolean callStack;

        Layout(int depth, int from, int to, int info, boolean callStack) {
            this.depth = depth;
            this.from = from;
            this.to = to;
            this.info = info;
            this.callStack = callStack;
        }
    }

    private record Row(Layout layout, int format) {
    }

    /** Bonnell model 1CH before stepping 10 has no LBR that freezes on PMI (lbr.c intel_pmu_lbr_init_atom). */
    private static final int BONNELL = 0x1C;
    private static final int BONNELL_FIRST_GOOD_STEPPING = 10;

    private static final Map<Integer, Row> TABLE = new HashMap<>();

    static {
        fam6(new Row(Layout.CORE, FMT_UNKNOWN), 0x0F, 0x16, 0x17, 0x1D);
        fam6(new Row(Layout.ATOM, FMT_UNKNOWN), 0x1C, 0x26, 0x36, 0x27, 0x35);          // Bonnell, Saltwell
        fam6(new Row(Layout.ATOM, FMT_UNKNOWN), 0x37, 0x4D, 0x4A, 0x5A, 0x4C, 0x75);    // Silvermont, Airmont
        fam6(new Row(Layout.NHM, FMT_EIP_FLAGS), 0x1E, 0x1F, 0x1A, 0x2E,                // Nehalem
                0x25, 0x2C, 0x2F,                                                      // Westmere
                0x2A, 0x2D, 0x3A, 0x3E);                                               // Sandy/Ivy Bridge
        fam6(new Row(Layout.HSW, FMT_EIP_FLAGS2), 0x3C, 0x3F, 0x45, 0x46,               // Haswell
                0x3D, 0x47, 0x4F, 0x56);                                               // Broadwell
        fam6(new Row(Layout.SKL, FMT_INFO), 0x4E, 0x5E, 0x55, 0x8E, 0x9E, 0xA5, 0xA6,  // Skylake and derivatives
                0x6A, 0x6C, 0x7D, 0x7E, 0x8C, 0x8D, 0xA7);                             // Ice/Tiger/Rocket Lake
        fam6(new Row(Layout.GLM, FMT_TIME), 0x5C, 0x5F);
        fam6(new Row(Layout.SKL, FMT_INFO2), 0x7A);                                     // Goldmont Plus
        fam6(new Row(Layout.SKL, FMT_UNKNOWN), 0x86, 0x96, 0x9C);                       // Tremont
        fam6(new Row(Layout.KNL, FMT_LIP), 0x57, 0x85);
        fam6(new Row(Layout.ARCH, FMT_UNKNOWN),
                0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xD7,   // Alder/Raptor/Bartlett Lake
                0xAC, 0xAA, 0xC5, 0xC6, 0xB5, 0xBD,   // Meteor/Arrow/Lunar Lake
                0x8F, 0xCF, 0xAD, 0xAE,               // Sapphire/Emerald/Granite Rapids
                0xBE, 0xAF, 0xB6);                    // Gracemont (Alder Lake-N), Sierra Forest, Grand Ridge
    }

    private LegacyLbrTable() {
    }

    public static LegacyLbr lookup(Identity id) {
        if (!id.isIntel()) {
            return LegacyLbr.none("no legacy LBR model table for vendor \"" + id.vendor() + "\"");
        }
        String where = where(id);
        Row row = TABLE.get(key(id.family(), id.model()));
        if (row == null) {
            return LegacyLbr.none("model " + where + " not in the legacy LBR model table; IA32_PERF_CAPABILITIES not read");
        }
        if (row.layout() == Layout.ARCH) {
            return LegacyLbr.none("model table (" + where + "): legacy LBR not used, architectural LBR"
                    + " (CPUID.(07H,0):EDX[19], leaf 1CH) replaces it");
        }
        if (id.family() == 0x6 && id.model() == BONNELL && id.stepping() < BONNELL_FIRST_GOOD_STEPPING) {
            return LegacyLbr.none("model table (" + where + " stepping " + id.stepping()
                    + "): LBR not used before stepping 10, it does not freeze on PMI (Linux lbr.c)");
        }
        Layout l = row.layout();
        return new LegacyLbr(row.format(), l.depth, l.from, l.to, l.info, l.callStack,
                "model table (" + where + "); IA32_PERF_CAPABILITIES not read");
    }

    /** "Skylake, 06_5EH": the microarchitecture and the SDM's DisplayFamily_DisplayModel. */
    private static String where(Identity id) {
        String sig = String.format("%02X_%02XH", id.family(), id.model());
        Microarchitecture m = Microarchitectures.lookup(id);
        return m.known() ? m.name() + ", " + sig : sig;
    }

    private static void fam6(Row row, int... models) {
        for (int m : models) {
            if (TABLE.put(key(0x6, m), row) != null) {
                throw new IllegalStateException("model 06_" + Integer.toHexString(m) + " listed twice");
            }
        }
    }

    private static int key(int family, int model) {
        return family << 16 | model;
    }
}
