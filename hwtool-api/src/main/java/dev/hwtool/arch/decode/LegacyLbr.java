package dev.hwtool.arch.decode;

/**
 * Legacy (model-specific) LBR stack geometry, from the model table of arch/x86/events/intel/lbr.c
 * (Linux arch/x86/events/intel/lbr.c init functions, SDM Table 17-4). The table is the
 * source, not IA32_PERF_CAPABILITIES, because that MSR may be unreadable (no msr driver,
 * no CAP_SYS_RAWIO, a VM) — {@link #source()} says so.
 *
 * @param format   LBR_FMT as the table gives it (IA32_PERF_CAPABILITIES[5:0] on that model),
 *                 or -1 when the table cannot tell
 * @param depth    number of FROM/TO pairs; 0 when the model is not in the table
 * @param fromMsr  MSR address of LASTBRANCH_0_FROM_IP
 * @param toMsr    MSR address of LASTBRANCH_0_TO_IP
 * @param infoMsr  MSR address of LBR_INFO_0, or -1 when the model has none
 * @param callStack whether LBR_SELECT.EN_CALLSTACK exists (Haswell and later)
 * @param source   where these numbers come from, e.g. "model table (Skylake, 06_5EH)"
 */
public record LegacyLbr(int format, int depth, int fromMsr, int toMsr, int infoMsr, boolean callStack,
                        String source) {
    public static LegacyLbr none(String source) {
        return new LegacyLbr(-1, 0, -1, -1, -1, false, source);
    }

    public boolean present() {
        return depth > 0;
    }
}
