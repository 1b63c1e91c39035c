/**
 * PEBS record layouts as data: the legacy formats 0-3 of IA32_PERF_CAPABILITIES.PEBS_FMT, the
 * adaptive PEBS groups that MSR_PEBS_DATA_CFG selects (Intel SDM Vol. 3B 20.6.2 and 20.9), and
 * which family-6 models have PEBS in which format, as Linux enables it.
 */
package dev.hwtool.arch.pebs;
