package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.hwtool.arch.msr.Access.RO;
import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Access.RWC0;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;

/**
 * Power and thermal registers: the RAPL energy counters and their units (SDM Vol. 3B 14.9
 * "Platform Specific Power Management Support", 14.9.1 "RAPL Interfaces"; chapter 15 in the newest
 * editions), and the digital thermal sensor (SDM Vol. 3B 14.7.5 "Thermal Status Information",
 * 14.8 "Package Level Thermal Management"). Register layouts: SDM Vol. 4 Table 2-2
 * (architectural IA32_THERM_STATUS, IA32_PACKAGE_THERM_STATUS) and Table 2-20 (Sandy Bridge and
 * later: MSR_RAPL_POWER_UNIT 606H, MSR_PKG_ENERGY_STATUS 611H, MSR_PP0_ENERGY_STATUS 639H,
 * MSR_PP1_ENERGY_STATUS 641H, MSR_TEMPERATURE_TARGET 1A2H), Table 2-24 (MSR_DRAM_ENERGY_STATUS
 * 619H on the Xeon E5 family and later tables); names as msr-index.h spells them.
 *
 * <p>RAPL is model-specific: which domains a model has follows Linux's perf RAPL PMU,
 * arch/x86/events/rapl.c {@code rapl_model_match} (model_snb: PKG, PP0, PP1; model_snbep and
 * model_hsx: PKG, PP0, DRAM; model_hsw and model_skl: PKG, PP0, DRAM, PP1; model_knl: PKG, DRAM;
 * model_spr: PKG, PP0, DRAM). Parts outside that table are not given RAPL registers here even if
 * they have them (the catalog errs towards "absent"; a read still works with a raw address).
 */
final class PowerThermalMsrs {

    private static final String SRC = "SDM Vol. 4 Table 2-20; msr-index.h";

    /** rapl.c model_snb: Sandy Bridge, Ivy Bridge clients. */
    private static final Set<Integer> SNB = Set.of(0x2A, 0x3A);
    /** rapl.c model_snbep and model_hsx: the servers (SNB-EP, IVB-EP, HSX, BDX, BDW-DE, SKX, ICX, ICX-D). */
    private static final Set<Integer> SERVER = Set.of(0x2D, 0x3E, 0x3F, 0x4F, 0x56, 0x55, 0x6A, 0x6C);
    /** rapl.c model_hsw: Haswell, Broadwell clients and Goldmont, Goldmont Plus. */
    private static final Set<Integer> HSW = Set.of(0x3C, 0x45, 0x46, 0x3D, 0x47, 0x5C, 0x5F, 0x7A);
    /** rapl.c model_knl: Xeon Phi (PKG and DRAM only). */
    private static final Set<Integer> KNL = Set.of(0x57, 0x85);
    /** rapl.c model_skl: Skylake clients through Lunar Lake. */
    private static final Set<Integer> SKL = Set.of(0x4E, 0x5E, 0x8E, 0x9E, 0x66, 0x7E, 0x7D, 0xA6, 0xA5, 0x8C,
            0x8D, 0x97, 0x9A, 0xBE, 0xB7, 0xBA, 0xBF, 0xAC, 0xAA, 0xC5, 0xC6, 0xBD);
    /** rapl.c model_spr: Sapphire Rapids, Emerald Rapids. */
    private static final Set<Integer> SPR = Set.of(0x8F, 0xCF);

    static final Condition RAPL = model("RAPL (Linux arch/x86/events/rapl.c rapl_model_match)",
            SNB, SERVER, HSW, KNL, SKL, SPR);
    static final Condition RAPL_PP0 = model("RAPL PP0 domain (rapl.c: every Intel model but Xeon Phi)",
            SNB, SERVER, HSW, SKL, SPR);
    static final Condition RAPL_DRAM = model("RAPL DRAM domain (rapl.c PERF_RAPL_RAM)",
            SERVER, HSW, KNL, SKL, SPR);
    static final Condition RAPL_PP1 = model("RAPL PP1 (graphics/uncore) domain (rapl.c PERF_RAPL_PP1)",
            SNB, HSW, SKL);

    /** CPUID.01H:EDX[22] (ACPI: thermal monitor and software controlled clock), SDM Vol. 4 Table 2-2 for 19CH. */
    private static final Condition ACPI = Condition.cpuid(0x1, 0, Reg.EDX, 22);
    /** CPUID.06H:EAX[0], digital temperature sensor. */
    private static final Condition DTS = Condition.cpuid(0x6, 0, Reg.EAX, 0);
    /** CPUID.01H:ECX[8], TM2: the two programmable thresholds. */
    private static final Condition TM2 = Condition.cpuid(0x1, 0, Reg.ECX, 8);
    /** CPUID.06H:EAX[4], PLN: power-limit notification. */
    private static final Condition PLN = Condition.cpuid(0x6, 0, Reg.EAX, 4);
    /** CPUID.06H:EAX[6], PTM: package thermal management. */
    private static final Condition PTM = Condition.cpuid(0x6, 0, Reg.EAX, 6);
    /** CPUID.06H:EAX[7], HWP: current-limit and cross-domain-limit status. */
    private static final Condition HWP = Condition.cpuid(0x6, 0, Reg.EAX, 7);

    private PowerThermalMsrs() {
    }

    @SafeVarargs
    private static Condition model(String label, Set<Integer>... sets) {
        Set<Integer> all = Stream.of(sets).flatMap(Set::stream).collect(Collectors.toSet());
        return new Condition.IntelModel(6, all, label);
    }

    static List<MsrDef> defs() {
        return List.of(powerUnit(),
                energy("MSR_PKG_ENERGY_STATUS", 0x611, RAPL, "package"),
                energy("MSR_DRAM_ENERGY_STATUS", 0x619, RAPL_DRAM, "DRAM"),
                energy("MSR_PP0_ENERGY_STATUS", 0x639, RAPL_PP0, "PP0 (all cores)"),
                energy("MSR_PP1_ENERGY_STATUS", 0x641, RAPL_PP1, "PP1 (graphics / uncore)"),
                thermStatus(), temperatureTarget(), packageThermStatus());
    }

    /** SDM Vol. 3B 14.9.1 Figure "MSR_RAPL_POWER_UNIT Register": units are 1/2^N of watt, joule, second. */
    static MsrDef powerUnit() {
        return new MsrDef("MSR_RAPL_POWER_UNIT", 0x606, List.of(
                bits(3, 0, "POWER_UNITS", RO, Condition.ALWAYS, "power unit: 1/2^N W"),
                bits(12, 8, "ENERGY_STATUS_UNITS", RO, Condition.ALWAYS, "energy unit: 1/2^N J"),
                bits(19, 16, "TIME_UNITS", RO, Condition.ALWAYS, "time unit: 1/2^N s")),
                RO, RAPL, "RAPL units of power, energy and time", SRC + "; SDM Vol. 3B 14.9.1");
    }

    /** SDM Vol. 3B 14.9.3 (package), 14.9.4 (PP0/PP1), 14.9.5 (DRAM): a 32-bit count that wraps. */
    static MsrDef energy(String name, long address, Condition exists, String domain) {
        return new MsrDef(name, address, List.of(
                bits(31, 0, "TOTAL_ENERGY_CONSUMED", RO, Condition.ALWAYS,
                        "energy used by the " + domain + " domain, in ENERGY_STATUS_UNITS; wraps at 2^32")),
                RO, exists, domain + " energy consumed (RAPL)", SRC + " / Table 2-24; SDM Vol. 3B 14.9");
    }

    /** Status (RO) and sticky log (R/WC0) pairs, then the sensor (SDM Vol. 3B 14.7.5.2). */
    static MsrDef thermStatus() {
        List<MsrField> f = new ArrayList<>(statusLogPairs(true));
        f.add(bits(22, 16, "DIGITAL_READOUT", RO, DTS, "degrees Celsius below TCC activation (TEMPERATURE_TARGET)"));
        f.add(bits(30, 27, "RESOLUTION", RO, DTS, "sensor resolution in degrees Celsius"));
        f.add(bit(31, "READING_VALID", RO, DTS, "DIGITAL_READOUT is valid"));
        return new MsrDef("IA32_THERM_STATUS", 0x19C, f, RW, ACPI, "core thermal status",
                "SDM Vol. 4 Table 2-2 (MSR_IA32_THERM_STATUS); SDM Vol. 3B 14.7.5.2");
    }

    /** SDM Vol. 3B 14.8.1 "Package Thermal Status Information". */
    static MsrDef packageThermStatus() {
        List<MsrField> f = new ArrayList<>(statusLogPairs(false));
        f.add(bits(22, 16, "DIGITAL_READOUT", RO, Condition.ALWAYS,
                "package degrees Celsius below TCC activation (TEMPERATURE_TARGET)"));
        return new MsrDef("IA32_PACKAGE_THERM_STATUS", 0x1B1, f, RW, PTM, "package thermal status",
                "SDM Vol. 4 Table 2-2 (MSR_IA32_PACKAGE_THERM_STATUS); SDM Vol. 3B 14.8.1");
    }

    private static List<MsrField> statusLogPairs(boolean core) {
        List<MsrField> f = new ArrayList<>();
        String p = core ? "" : "package ";
        pair(f, 0, "THERMAL_STATUS", p + "temperature at or above TCC activation", Condition.ALWAYS);
        pair(f, 2, "PROCHOT_EVENT", p + "PROCHOT# or FORCEPR# asserted", Condition.ALWAYS);
        pair(f, 4, "CRITICAL_TEMPERATURE", p + "critical temperature detector", Condition.ALWAYS);
        pair(f, 6, "THRESHOLD1", p + "above thermal threshold #1", core ? TM2 : Condition.ALWAYS);
        pair(f, 8, "THRESHOLD2", p + "above thermal threshold #2", core ? TM2 : Condition.ALWAYS);
        pair(f, 10, "POWER_LIMITATION", p + "frequency below the OS request (power limit)", core ? PLN : Condition.ALWAYS);
        if (core) {
            pair(f, 12, "CURRENT_LIMIT", "electrical current limit", HWP);
            pair(f, 14, "CROSS_DOMAIN_LIMIT", "limited by another domain", HWP);
        }
        return f;
    }

    private static void pair(List<MsrField> f, int bit, String name, String what, Condition when) {
        f.add(bit(bit, name, RO, when, what + " (status)"));
        f.add(bit(bit + 1, name + "_LOG", RWC0, when, what + " since last cleared (sticky; write 0 to clear)"));
    }

    /** SDM Vol. 4 Table 2-20: TCC activation temperature (Linux coretemp get_tjmax). */
    static MsrDef temperatureTarget() {
        return new MsrDef("MSR_TEMPERATURE_TARGET", 0x1A2, List.of(
                bits(23, 16, "TEMPERATURE_TARGET", RO, Condition.ALWAYS,
                        "minimum TCC activation temperature, degrees Celsius")),
                RO, RAPL, "thermal control circuit activation temperature",
                "SDM Vol. 4 Table 2-20; msr-index.h MSR_IA32_TEMPERATURE_TARGET; Linux drivers/hwmon/coretemp.c");
    }
}
