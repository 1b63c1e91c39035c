package dev.hwtool.record;

import java.util.Optional;

/**
 * Where a code address lies, named as perf names it (tools/perf/util/sort.c, event.c).
 *
 * @param dso          the mapped object's long name: a path, {@code [kernel.kallsyms]}, a module's
 *                     {@code [name]}, {@code [vdso]}; null when no mapping holds the address
 * @param symbol       the symbol holding it; null when none does
 * @param symbolOffset bytes from the symbol's start
 * @param address      perf's address of the location: the DSO-relative address
 *                     ({@code map__map_ip}) in a user-space mapping, else the address itself
 * @param level        perf's level character, from the sample's cpumode: {@code k} kernel, {@code .}
 *                     user, {@code g} guest kernel, {@code u} guest user, {@code H} hypervisor
 */
public record CodeLocation(String dso, String symbol, long symbolOffset, long address, char level) {

    /** The level perf's thread__find_map gives a cpumode (PERF_RECORD_MISC_CPUMODE_MASK bits). */
    public static char level(int cpumode) {
        return switch (cpumode) {
            case 1 -> 'k'; // PERF_RECORD_MISC_KERNEL
            case 2 -> '.'; // PERF_RECORD_MISC_USER
            case 4 -> 'g'; // PERF_RECORD_MISC_GUEST_KERNEL
            case 5 -> 'u'; // PERF_RECORD_MISC_GUEST_USER
            default -> 'H'; // PERF_RECORD_MISC_HYPERVISOR, and a cpumode perf does not know
        };
    }

    /** Nothing known about {@code addr}. */
    public static CodeLocation unknown(long addr, char level) {
        return new CodeLocation(null, null, 0, addr, level);
    }

    public Optional<String> function() {
        return Optional.ofNullable(symbol);
    }

    /**
     * The DSO as {@code perf report --sort dso} shows it: a path's last component, a bracketed name
     * as it is, {@code [unknown]} without a mapping (dso__short_name, sort.c _sort__dso_snprintf).
     */
    public String dsoName() {
        if (dso == null) {
            return "[unknown]";
        }
        if (dso.startsWith("[")) {
            return dso;
        }
        int slash = dso.lastIndexOf('/');
        return slash >= 0 && slash < dso.length() - 1 ? dso.substring(slash + 1) : dso;
    }

    /**
     * The symbol as perf report's Symbol column shows it without the level: the name, or the address
     * as 0x and 16 hex digits (sort.c _hist_entry__sym_snprintf, "%-#.*llx" with BITS_PER_LONG / 4).
     */
    public String name() {
        return symbol != null ? symbol : String.format("%#018x", address);
    }

    /** perf report's Symbol column: "[k] name". */
    public String symbolColumn() {
        return "[" + level + "] " + name();
    }

    /** perf script's sym field ({@code -F sym}): the name or {@code [unknown]}. */
    public String scriptSymbol() {
        return symbol != null ? symbol : "[unknown]";
    }

    /** perf script's dso field ({@code -F dso}), without its parentheses: the long name or {@code [unknown]}. */
    public String scriptDso() {
        return dso != null ? dso : "[unknown]";
    }
}
