package dev.hwtool.sim.cpu;

import java.math.BigInteger;

/**
 * The simulated CPU's power and thermal readings: fixed, documented values, so runs are
 * deterministic (no model of power draw or heat).
 *
 * <ul>
 * <li>MSR_RAPL_POWER_UNIT = {@value #POWER_UNIT_HEX}, the value Skylake client parts
 *     report: power 1/8 W, energy 1/2^14 J (61 µJ), time 1/1024 s
 *     (SDM Vol. 3B 14.9.1).
 * <li>Each RAPL domain draws a constant power — package {@value #PKG_MW} mW, PP0 (cores)
 *     {@value #PP0_MW} mW, PP1 (uncore/graphics) {@value #PP1_MW} mW, DRAM {@value #DRAM_MW} mW — over
 *     the simulated clock (one tick a nanosecond, the simulator's nominal 1 GHz; the clock moves
 *     with retired cycles, explicit advances and register accesses). The 32-bit
 *     TOTAL_ENERGY_CONSUMED field wraps as on hardware: the package counter after 2^32 × 2^-14 J /
 *     10 W ≈ 7.3 simulated hours.
 * <li>AMD (RAPL, CPUID 8000_0007H:EDX[14]): MSR_AMD_RAPL_POWER_UNIT = {@value #AMD_POWER_UNIT_HEX}
 *     (energy 2^-16 J); MSR_AMD_PKG_ENERGY_STATUS draws the package's {@value #PKG_MW} mW,
 *     MSR_AMD_CORE_ENERGY_STATUS {@value #AMD_CORE_MW} mW per core.
 * <li>MSR_TEMPERATURE_TARGET = 100 °C; IA32_THERM_STATUS reads 55 °C below it (45 °C) with
 *     READING_VALID and a 1 °C resolution; IA32_PACKAGE_THERM_STATUS 52 below (48 °C). No status
 *     or log bit is set.
 * </ul>
 */
final class RaplModel {

    static final String PKG = "MSR_PKG_ENERGY_STATUS";
    static final String PP0 = "MSR_PP0_ENERGY_STATUS";
    static final String PP1 = "MSR_PP1_ENERGY_STATUS";
    static final String DRAM = "MSR_DRAM_ENERGY_STATUS";
    /** AMD's package and per-core counters (msr-index.h MSR_AMD_PKG_ENERGY_STATUS, MSR_AMD_CORE_ENERGY_STATUS). */
    static final String AMD_PKG = "MSR_AMD_PKG_ENERGY_STATUS";
    static final String AMD_CORE = "MSR_AMD_CORE_ENERGY_STATUS";

    /**
     * MSR_AMD_RAPL_POWER_UNIT = {@value #AMD_POWER_UNIT_HEX}: power 1/8 W, energy 2^-16 J (15.3 µJ),
     * time 1/1024 s — the RAPL_PWR_UNIT value of AMD Family 17h/19h parts (PPR 17h/19h MSRC001_0299).
     */
    static final long AMD_POWER_UNIT = 0xA1003L;
    static final String AMD_POWER_UNIT_HEX = "0xA1003";
    static final int AMD_ENERGY_STATUS_UNITS = 16;
    /** AMD's per-core domain: one core's share of the package's 10 W. */
    static final long AMD_CORE_MW = 1_000;

    static final long POWER_UNIT = 0xA0E03L;
    static final String POWER_UNIT_HEX = "0xA0E03";
    /** MSR_RAPL_POWER_UNIT.ENERGY_STATUS_UNITS of {@link #POWER_UNIT}. */
    static final int ENERGY_STATUS_UNITS = 14;

    static final long PKG_MW = 10_000;
    static final long PP0_MW = 6_000;
    static final long PP1_MW = 500;
    static final long DRAM_MW = 2_000;

    static final long TJ_MAX = 100;
    static final long TEMPERATURE_TARGET = TJ_MAX << 16;
    /** READING_VALID (31), RESOLUTION 1 °C (30:27), DIGITAL_READOUT 55 (22:16). */
    static final long THERM_STATUS = 1L << 31 | 1L << 27 | 55L << 16;
    /** DIGITAL_READOUT 52 (22:16). */
    static final long PACKAGE_THERM_STATUS = 52L << 16;

    private static final long NS_PER_S = 1_000_000_000L;

    private RaplModel() {
    }

    static long milliwatts(String register) {
        return switch (register) {
            case PKG -> PKG_MW;
            case PP0 -> PP0_MW;
            case PP1 -> PP1_MW;
            case DRAM -> DRAM_MW;
            case AMD_PKG -> PKG_MW;
            case AMD_CORE -> AMD_CORE_MW;
            default -> throw new IllegalArgumentException(register + " is not a RAPL energy register");
        };
    }

    /**
     * TOTAL_ENERGY_CONSUMED after {@code ticks} nanoseconds at {@code milliwatts}: energy units
     * (2^-14 J) = ns × mW × 2^14 / 10^12, modulo 2^32, computed without overflow.
     */
    static long energyUnits(long ticks, long milliwatts) {
        return energyUnits(ticks, milliwatts, ENERGY_STATUS_UNITS);
    }

    /** As {@link #energyUnits(long, long)} in the units of that register's power-unit register (AMD: 2^-16 J). */
    static long energyUnits(long ticks, long milliwatts, String register) {
        return energyUnits(ticks, milliwatts,
                register.equals(AMD_PKG) || register.equals(AMD_CORE) ? AMD_ENERGY_STATUS_UNITS : ENERGY_STATUS_UNITS);
    }

    private static long energyUnits(long ticks, long milliwatts, int esu) {
        BigInteger units = BigInteger.valueOf(ticks).multiply(BigInteger.valueOf(milliwatts << esu))
                .divide(BigInteger.valueOf(NS_PER_S * 1000));
        return units.longValue() & 0xFFFF_FFFFL;
    }
}
