/**
 * perf.data files as perf writes them, read as {@code perf report} reads them:
 * {@link dev.hwtool.perfdata.PerfData} opens one and answers what an in-memory
 * {@link dev.hwtool.api.Recording} answers ({@link dev.hwtool.api.BranchStacks}: hottest branches,
 * folded call stacks, a flame graph), from the code {@code hwtool lbr report} runs. Writing
 * perf.data is the recorder's: {@code Recorder.record(request, target, file)}, or
 * {@code Recording.writePerfData(file)}.
 */
package dev.hwtool.perfdata;
