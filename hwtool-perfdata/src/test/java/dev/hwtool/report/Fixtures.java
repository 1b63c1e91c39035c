package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfRecord;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/** Samples as the kernel fills them, and a symbol table of address ranges. */
final class Fixtures {

    private Fixtures() {
    }

    static PerfRecord.Sample sample(int pid, long ip, long addr, Optional<PerfRecord.BranchStack> stack) {
        return new PerfRecord.Sample(2, 0, ip, pid, pid, 0, addr, 0, 0, 0, 1, Optional.empty(), List.of(), new byte[0],
                stack, new long[0], new byte[0], 0, 0, 0, new long[0], 0, 0, 0, 0, new byte[0]);
    }

    /** A sample with a branch stack, entries newest first. */
    static PerfRecord.Sample lbr(int pid, long ip, PerfBranchEntry... entries) {
        return sample(pid, ip, 0, Optional.of(new PerfRecord.BranchStack(List.of(entries), OptionalLong.empty(),
                List.of())));
    }

    static PerfBranchEntry entry(long from, long to) {
        return new PerfBranchEntry(from, to, 0);
    }

    static PerfBranchEntry entry(long from, long to, boolean mispred, int cycles, int type) {
        return new PerfBranchEntry(from, to, PerfBranchEntry.flags(mispred, !mispred, false, false, cycles, type, 0, 0, 0));
    }

    /** Functions as [start, end) ranges, the same in every process. */
    static final class Table implements Symbols {
        private final TreeMap<Long, long[]> starts = new TreeMap<>();
        private final TreeMap<Long, String> names = new TreeMap<>();

        Table function(String name, long start, long size) {
            starts.put(start, new long[]{start, start + size});
            names.put(start, name);
            return this;
        }

        @Override
        public Optional<String> function(int pid, long addr) {
            var e = starts.floorEntry(addr);
            return e != null && addr < e.getValue()[1] ? Optional.of(names.get(e.getKey())) : Optional.empty();
        }

        @Override
        public String describe(int pid, long addr) {
            var e = starts.floorEntry(addr);
            return e != null && addr < e.getValue()[1] ? names.get(e.getKey()) + "+0x" + Long.toHexString(addr - e.getKey())
                    : Symbols.hex(addr);
        }
    }
}
