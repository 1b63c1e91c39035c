package dev.hwtool.api;

import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One event as perf's event parser reads it (hwtool stat's and record's {@code -e}, and the
 * library's {@code Platform.counters})
 * (tools/perf/util/parse-events.l): a generic name (cycles, task-clock, ...), {@code rNNNN} (a
 * PERF_TYPE_RAW config in hex) or {@code PMU/EVENT/} (a sysfs event), optionally followed by the
 * modifiers {@code :u} (user mode only), {@code :k} (kernel mode only) and {@code :p}, {@code :pp},
 * {@code :ppp} (precise_ip 1..3: the skid constraint, served by PEBS on Intel), in any order as
 * perf's get_event_modifier takes them. Syntax only: whether the event exists here is the
 * backend's business.
 *
 * @param text      what the user wrote, the name shown in every output
 * @param kind      how the event is named
 * @param type      perf_event_attr.type for GENERIC and RAW (PMU events read theirs from sysfs)
 * @param config    perf_event_attr.config for GENERIC and RAW
 * @param pmu       the PMU of a PMU/EVENT/ event, else null
 * @param pmuEvent  the EVENT of a PMU/EVENT/ event, else null
 * @param userOnly  :u, exclude_kernel (and exclude_hv, as perf sets it)
 * @param kernelOnly :k, exclude_user
 * @param precise   the number of p modifiers, perf_event_attr.precise_ip (0..3)
 */
public record EventSpec(String text, Kind kind, int type, long config, String pmu, String pmuEvent, boolean userOnly,
                     boolean kernelOnly, int precise) {

    public enum Kind { GENERIC, RAW, PMU }

    /** perf's default event list (tools/perf/builtin-stat.c, add_default_attributes). */
    public static final List<String> DEFAULT = List.of("task-clock", "context-switches", "cpu-migrations", "page-faults",
            "cycles", "instructions", "branches", "branch-misses");

    /** Generic names (tools/perf/util/parse-events.c, event_symbols_hw/event_symbols_sw) → {type, config}. */
    static final Map<String, long[]> GENERIC = generic();

    private static Map<String, long[]> generic() {
        Map<String, long[]> m = new LinkedHashMap<>();
        hw(m, PerfCount.HW_CPU_CYCLES, "cycles", "cpu-cycles");
        hw(m, PerfCount.HW_INSTRUCTIONS, "instructions");
        hw(m, PerfCount.HW_CACHE_REFERENCES, "cache-references");
        hw(m, PerfCount.HW_CACHE_MISSES, "cache-misses");
        hw(m, PerfCount.HW_BRANCH_INSTRUCTIONS, "branches", "branch-instructions");
        hw(m, PerfCount.HW_BRANCH_MISSES, "branch-misses");
        hw(m, PerfCount.HW_BUS_CYCLES, "bus-cycles");
        hw(m, PerfCount.HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend", "idle-cycles-frontend");
        hw(m, PerfCount.HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend", "idle-cycles-backend");
        hw(m, PerfCount.HW_REF_CPU_CYCLES, "ref-cycles");
        sw(m, PerfCount.SW_CPU_CLOCK, "cpu-clock");
        sw(m, PerfCount.SW_TASK_CLOCK, "task-clock");
        sw(m, PerfCount.SW_PAGE_FAULTS, "page-faults", "faults");
        sw(m, PerfCount.SW_CONTEXT_SWITCHES, "context-switches", "cs");
        sw(m, PerfCount.SW_CPU_MIGRATIONS, "cpu-migrations", "migrations");
        sw(m, PerfCount.SW_PAGE_FAULTS_MIN, "minor-faults");
        sw(m, PerfCount.SW_PAGE_FAULTS_MAJ, "major-faults");
        sw(m, PerfCount.SW_ALIGNMENT_FAULTS, "alignment-faults");
        sw(m, PerfCount.SW_EMULATION_FAULTS, "emulation-faults");
        return Map.copyOf(m);
    }

    private static void hw(Map<String, long[]> m, long config, String... names) {
        for (String n : names) {
            m.put(n, new long[]{PerfType.HARDWARE, config});
        }
    }

    private static void sw(Map<String, long[]> m, long config, String... names) {
        for (String n : names) {
            m.put(n, new long[]{PerfType.SOFTWARE, config});
        }
    }

    /** :u, :k or neither (every mode). */
    public RecordRequest.Privilege privilege() {
        return userOnly ? RecordRequest.Privilege.USER
                : kernelOnly ? RecordRequest.Privilege.KERNEL : RecordRequest.Privilege.ALL;
    }

    /** The mode the modifiers name, or {@code whenUnnamed} when they name none ({@code cycles}, {@code cycles:pp}). */
    public RecordRequest.Privilege privilegeOr(RecordRequest.Privilege whenUnnamed) {
        return modifiersGivePrivilege() ? privilege() : whenUnnamed;
    }

    /** Whether the text names a mode (:u, :k or both); {@code cycles} and {@code cycles:pp} do not. */
    public boolean modifiersGivePrivilege() {
        int colon = text.lastIndexOf(':');
        if (colon < 0 || colon < text.lastIndexOf('/')) {
            return false;
        }
        String mods = text.substring(colon + 1);
        return mods.indexOf('u') >= 0 || mods.indexOf('k') >= 0;
    }

    /** Whether the count is in nanoseconds (task-clock, cpu-clock), which perf shows in msec. */
    public boolean clock() {
        return kind == Kind.GENERIC && type == PerfType.SOFTWARE
                && (config == PerfCount.SW_TASK_CLOCK || config == PerfCount.SW_CPU_CLOCK);
    }

    public boolean taskClock() {
        return kind == Kind.GENERIC && type == PerfType.SOFTWARE && config == PerfCount.SW_TASK_CLOCK;
    }

    /** This event with :u added (perf's fallback when kernel counting is refused). */
    public EventSpec userOnlyFallback() {
        return new EventSpec(text.contains(":") ? text : text + ":u", kind, type, config, pmu, pmuEvent, true, false,
                precise);
    }

    /**
     * Parses the comma-separated lists of every {@code -e}. A comma inside PMU/.../ belongs to the
     * PMU event, as in perf.
     *
     * @throws HwException BAD_INPUT for an empty list, an unknown name or a malformed event
     */
    public static List<EventSpec> parseAll(List<String> lists) {
        List<EventSpec> out = new ArrayList<>();
        for (String list : lists) {
            for (String item : split(list)) {
                out.add(parse(item));
            }
        }
        if (out.isEmpty()) {
            throw bad("-e names no event");
        }
        return out;
    }

    /** Splits at commas outside PMU/.../ slashes. */
    public static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        int slashes = 0;
        StringBuilder cur = new StringBuilder();
        for (char c : list.toCharArray()) {
            if (c == '/') {
                slashes++;
            }
            if (c == ',' && slashes % 2 == 0) {
                items.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        items.add(cur.toString());
        return items;
    }

    public static EventSpec parse(String item) {
        String text = item.strip();
        if (text.isEmpty()) {
            throw bad("empty event name in -e (two commas, or a trailing comma?)");
        }
        String body = text;
        boolean u = false;
        boolean k = false;
        int p = 0;
        int colon = text.lastIndexOf(':');
        if (colon >= 0 && colon > text.lastIndexOf('/')) {
            body = text.substring(0, colon);
            String mods = text.substring(colon + 1);
            if (mods.isEmpty() || !mods.chars().allMatch(c -> c == 'u' || c == 'k' || c == 'p')) {
                throw bad("event '" + text + "': modifier ':" + mods + "' is not u (user), k (kernel) or p, pp, ppp"
                        + " (precise)");
            }
            u = mods.indexOf('u') >= 0;
            k = mods.indexOf('k') >= 0;
            p = (int) mods.chars().filter(c -> c == 'p').count();
            if (p > 3) { // precise_ip is a 2-bit field; perf refuses a fourth p the same way
                throw bad("event '" + text + "': at most three p modifiers (precise_ip 0..3), got " + p);
            }
            if (u && k) { // both: every mode, as perf reads :uk
                u = false;
                k = false;
            }
        }
        String lower = body.toLowerCase(Locale.ROOT);
        long[] g = GENERIC.get(lower);
        if (g != null) {
            return new EventSpec(text, Kind.GENERIC, (int) g[0], g[1], null, null, u, k, p);
        }
        if (lower.matches("r[0-9a-f]{1,16}")) {
            return new EventSpec(text, Kind.RAW, PerfType.RAW, Long.parseUnsignedLong(lower.substring(1), 16),
                    null, null, u, k, p);
        }
        if (body.contains("/")) {
            String[] parts = body.split("/", -1);
            if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || !parts[2].isEmpty()
                    || !parts[0].matches("[A-Za-z0-9_.-]+") || !parts[1].matches("[A-Za-z0-9_.-]+")) {
                throw bad("event '" + text + "' is not PMU/EVENT/ (e.g. msr/tsc/; EVENT is a name from"
                        + " /sys/bus/event_source/devices/PMU/events)");
            }
            return new EventSpec(text, Kind.PMU, -1, 0, parts[0], parts[1], u, k, p);
        }
        throw bad("unknown event '" + text + "' (generic names such as task-clock, page-faults, cycles;"
                + " rNNNN for a raw config; PMU/EVENT/ for a sysfs event)");
    }

    private static HwException bad(String message) {
        return new HwException(Cause.BAD_INPUT, message, "the syntax: NAME[:ukp], rNNNN[:ukp] or PMU/EVENT/[:ukp] (perf's)");
    }
}
