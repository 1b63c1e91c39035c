/**
 * Branch-recording knowledge as data and pure functions: the branch types the LBR and BTS
 * facilities tell apart, the legacy LBR entry formats (IA32_PERF_CAPABILITIES.LBR_FMT, Intel SDM
 * Vol. 3B 17.4.8), the DS save area and BTS record (SDM Vol. 3B 17.4.9), Linux's map from
 * {@code branch_sample_type} to MSR_LBR_SELECT (arch/x86/events/intel/lbr.c), and a decoder that
 * classifies the x86-64 instruction at a branch's source as the kernel does.
 */
package dev.hwtool.arch.branch;
