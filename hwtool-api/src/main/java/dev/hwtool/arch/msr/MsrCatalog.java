package dev.hwtool.arch.msr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The one catalog of MSRs hwtool knows: used by the decoder, the write checks, the simulator's
 * register file and the docs. Registers come from the tables in {@link DebugMsrs},
 * {@link PerfmonMsrs}, {@link LbrMsrs}, {@link PebsMsrs}, {@link PlatformMsrs}, {@link PowerThermalMsrs} and {@link AmdMsrs}; indexed families are generated
 * from templates there. Names are unique and case-insensitive; so are addresses.
 */
public final class MsrCatalog {

    private static final List<MsrDef> ALL;
    private static final Map<String, MsrDef> BY_NAME;
    private static final Map<Long, MsrDef> BY_ADDRESS;
    /** Other names the SDM or Linux use for a catalogued register (upper case → canonical name). */
    private static final Map<String, String> ALIASES = aliases();

    private static Map<String, String> aliases() {
        Map<String, String> m = new HashMap<>(AmdMsrs.aliases());
        m.put("IA32_PERF_GLOBAL_STATUS_RESET", PerfmonMsrs.GLOBAL_OVF_CTRL);
        m.put("MSR_IA32_DEBUGCTLMSR", DebugMsrs.DEBUGCTL);
        m.put("MSR_IA32_PERF_CAPABILITIES", PerfmonMsrs.PERF_CAPABILITIES);
        return Map.copyOf(m);
    }

    static {
        List<MsrDef> all = new ArrayList<>();
        all.addAll(PlatformMsrs.defs());
        all.addAll(DebugMsrs.defs());
        all.addAll(PerfmonMsrs.defs());
        all.addAll(LbrMsrs.defs());
        all.addAll(PebsMsrs.defs());
        all.addAll(PowerThermalMsrs.defs());
        all.addAll(AmdMsrs.defs());
        all.sort((a, b) -> Long.compare(a.address(), b.address()));
        Map<String, MsrDef> byName = new LinkedHashMap<>();
        Map<Long, MsrDef> byAddress = new HashMap<>();
        for (MsrDef d : all) {
            if (byName.put(key(d.name()), d) != null) {
                throw new IllegalStateException("MSR name " + d.name() + " catalogued twice");
            }
            MsrDef other = byAddress.put(d.address(), d);
            if (other != null) {
                throw new IllegalStateException("MSR address " + Long.toHexString(d.address()) + " catalogued for "
                        + other.name() + " and " + d.name());
            }
        }
        ALL = List.copyOf(all);
        BY_NAME = Collections.unmodifiableMap(byName);
        BY_ADDRESS = Collections.unmodifiableMap(byAddress);
    }

    private MsrCatalog() {
    }

    /** Every catalogued register, by ascending address. */
    public static List<MsrDef> all() {
        return ALL;
    }

    /** By SDM/kernel name (or a listed alias such as IA32_PERF_GLOBAL_STATUS_RESET), case-insensitive. */
    public static Optional<MsrDef> byName(String name) {
        String k = key(name);
        MsrDef d = BY_NAME.get(k);
        if (d == null && ALIASES.containsKey(k)) {
            d = BY_NAME.get(key(ALIASES.get(k)));
        }
        return Optional.ofNullable(d);
    }

    /**
     * By name as that CPU's SDM MSR table names it. The SDM gives the Core 2/Atom LBR stack at
     * 40H/60H the same names (MSR_LASTBRANCH_x_FROM_IP/TO_IP) as the Nehalem+ stack at 680H/6C0H;
     * the catalog keeps names unique by calling the former MSR_LBR_CORE_FROM_x/TO_x (after
     * Linux's MSR_LBR_CORE_FROM), and this lookup maps the SDM name to the stack that CPU has.
     * Only registers that exist on that CPU are found.
     */
    public static Optional<MsrDef> byName(String name, CpuContext ctx) {
        Optional<MsrDef> direct = byName(name).filter(d -> d.existsOn(ctx));
        if (direct.isPresent()) {
            return direct;
        }
        return LbrMsrs.coreStackName(key(name)).flatMap(MsrCatalog::byName).filter(d -> d.existsOn(ctx));
    }

    public static Optional<MsrDef> byAddress(long address) {
        return Optional.ofNullable(BY_ADDRESS.get(address));
    }

    /** The registers that exist on that CPU, by ascending address. */
    public static List<MsrDef> forCpu(CpuContext ctx) {
        return ALL.stream().filter(d -> d.existsOn(ctx)).toList();
    }

    /**
     * "IA32_DEBUGCTL.LBR" → that register and field (names case-insensitive; the register part
     * may be an alias). Empty when either part is unknown or the path has no '.'.
     */
    public static Optional<FieldRef> parseFieldPath(String path) {
        int dot = path.lastIndexOf('.');
        if (dot <= 0 || dot == path.length() - 1) {
            return Optional.empty();
        }
        return byName(path.substring(0, dot).trim())
                .flatMap(d -> d.field(path.substring(dot + 1).trim()).map(f -> new FieldRef(d, f)));
    }

    private static String key(String name) {
        return name.trim().toUpperCase(Locale.ROOT);
    }
}
