package dev.hwtool.report;

import dev.hwtool.record.CodeLocation;
import java.util.Optional;

/**
 * Names code addresses for the reports: which function of process {@code pid} holds {@code addr}.
 * A parameter rather than a class of this package so that the reports are pure functions: the
 * CLI passes a symbolizer built from a recording's MMAP records and the mapped ELF files, tests
 * pass a table, and a recording with nothing to symbolize (the simulator's) passes {@link #NONE}.
 */
public interface Symbols {

    /** Nothing is known: every address shows as hex. */
    Symbols NONE = new Symbols() {
        @Override
        public Optional<String> function(int pid, long addr) {
            return Optional.empty();
        }

        @Override
        public String describe(int pid, long addr) {
            return hex(addr);
        }
    };

    /** The name of the function holding {@code addr}, if known. */
    Optional<String> function(int pid, long addr);

    /** {@code addr} for a table: "function+0xOFF", else hex. */
    String describe(int pid, long addr);

    /**
     * Where {@code addr} lies, as perf names it, for a sample taken in {@code cpumode}
     * (PERF_RECORD_MISC_CPUMODE_MASK bits). By default only the function is known, no DSO.
     */
    default CodeLocation locate(int pid, long addr, int cpumode) {
        char level = CodeLocation.level(cpumode);
        return function(pid, addr).map(f -> new CodeLocation(null, f, 0, addr, level))
                .orElseGet(() -> CodeLocation.unknown(addr, level));
    }

    /** An address as perf shows an unsymbolized one: 0x-prefixed lower-case hex, no padding. */
    static String hex(long addr) {
        return "0x" + Long.toHexString(addr);
    }
}
