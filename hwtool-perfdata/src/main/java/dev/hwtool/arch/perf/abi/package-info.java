/**
 * Linux's perf_event ABI as data: {@code struct perf_event_attr} and its flags, the mmap'd
 * {@code perf_event_mmap_page}, record types and their layouts, read formats, branch entries and
 * the ioctls, with offsets from include/uapi/linux/perf_event.h; and a parser, an encoder and an
 * allocation-free cursor over the records of a perf ring buffer or a perf.data file. Here, with
 * perf.data, because it reads bytes through java.lang.foreign segments, which the contract's
 * module does not use; the constants a request names stay in {@code dev.hwtool.arch.perf}.
 */
package dev.hwtool.arch.perf.abi;
