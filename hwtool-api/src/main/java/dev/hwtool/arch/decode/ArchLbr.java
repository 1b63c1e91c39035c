package dev.hwtool.arch.decode;

import java.util.List;

/**
 * Architectural LBR, CPUID.(07H,0):EDX[19] and leaf 1CH (arch/x86/events/intel/lbr.c).
 *
 * @param depths       supported depths from EAX[7:0] (bit n → 8·(n+1))
 * @param deepCReset   EAX[30]: LBRs may be cleared in deep C-states
 * @param lip          EAX[31]: records hold linear (not effective) IPs
 * @param cplFilter    EBX[0]
 * @param branchFilter EBX[1]
 * @param callStack    EBX[2]
 * @param mispredict   ECX[0]
 * @param timed        ECX[1]
 * @param branchType   ECX[2]
 */
public record ArchLbr(boolean supported, List<Integer> depths, boolean deepCReset, boolean lip,
                      boolean cplFilter, boolean branchFilter, boolean callStack,
                      boolean mispredict, boolean timed, boolean branchType) {
    public static final ArchLbr NONE = new ArchLbr(false, List.of(), false, false, false, false, false, false, false, false);
}
