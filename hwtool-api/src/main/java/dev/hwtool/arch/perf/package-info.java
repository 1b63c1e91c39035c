/**
 * The constants of Linux's perf_event ABI that a request names (include/uapi/linux/perf_event.h):
 * the event types ({@code PERF_TYPE_*}), the generic counts ({@code PERF_COUNT_HW_*},
 * {@code PERF_COUNT_SW_*}) and the branch-sample flags ({@code PERF_SAMPLE_BRANCH_*}), which the
 * contract's {@code EventSpec} and {@code BranchFilter} are built on. The layouts themselves
 * (perf_event_attr, the records, the mmap page) and their parsers are
 * {@code dev.hwtool.arch.perf.abi}, in hwtool-perfdata.
 */
package dev.hwtool.arch.perf;
