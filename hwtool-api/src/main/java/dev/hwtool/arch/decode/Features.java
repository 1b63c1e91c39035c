package dev.hwtool.arch.decode;

/**
 * The CPUID feature flags the debug-store, LBR and perfmon facilities depend on.
 * CPUID.01H: EDX[5] MSR, EDX[21] DS, ECX[2] DTES64, ECX[4] DS-CPL, ECX[15] PDCM;
 * CPUID.(07H,0): EDX[19] arch LBR, EBX[25] Intel PT, ECX[24] bus-lock detect, EBX[11] RTM;
 * EDX[4] TSC, CPUID.80000001H:EDX[27] RDTSCP. (SDM Vol. 2A, CPUID)
 */
public record Features(boolean msr, boolean ds, boolean dtes64, boolean dsCpl, boolean pdcm,
                       boolean archLbr, boolean pt, boolean busLockDetect, boolean rtm,
                       boolean tsc, boolean rdtscp, boolean hypervisor) {
}
