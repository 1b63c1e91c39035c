package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfType;
import java.util.List;

/** perf's names of its generic events (tools/perf/util/parse-events.c, event_symbols_hw and event_symbols_sw). */
public final class PerfEventNames {

    private static final List<String> HARDWARE_NAMES = List.of("cycles", "instructions", "cache-references",
            "cache-misses", "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
            "stalled-cycles-backend", "ref-cycles");
    private static final List<String> SOFTWARE_NAMES = List.of("cpu-clock", "task-clock", "page-faults",
            "context-switches", "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
            "emulation-faults", "dummy", "bpf-output", "cgroup-switches");

    private PerfEventNames() {
    }

    /**
     * perf's name of a generic event, "rNNNN" for a raw one (perf's own spelling), else
     * "typeTYPE/config=0xCONFIG/".
     */
    public static String of(int type, long config) {
        if (type == PerfType.RAW) {
            return "r" + Long.toHexString(config);
        }
        List<String> names = type == PerfType.HARDWARE ? HARDWARE_NAMES
                : type == PerfType.SOFTWARE ? SOFTWARE_NAMES : List.of();
        if (config >= 0 && config < names.size()) {
            return names.get((int) config);
        }
        return "type" + type + "/config=0x" + Long.toHexString(config) + "/";
    }
}
