package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.msr.Access;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.arch.msr.Violation;
import dev.hwtool.arch.msr.WriteCheck;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The MSRs of one simulated logical CPU. Which registers exist, and which of their bits, is the
 * catalog's answer for this CPU ({@link MsrCatalog#forCpu}, with a {@link CpuContext} built from
 * the CPU's own CPUID, so the cores of a hybrid part differ); the rules are the SDM's:
 *
 * <ul>
 * <li>RDMSR or WRMSR of a register the CPU does not implement raises #GP(0) (SDM Vol. 2B RDMSR,
 *     WRMSR: "If the value in ECX specifies a reserved or unimplemented MSR address").
 * <li>WRMSR setting a reserved bit, or writing a read-only register, raises #GP(0) and changes
 *     nothing (SDM Vol. 4 2.1; Vol. 2B WRMSR).
 * <li>Read-only <em>fields</em> of a writable register keep their value whatever is written
 *     (the simulator's choice: the SDM marks bits such as IA32_MISC_ENABLE[11,12] and
 *     IA32_EFER.LMA "RO" without saying that a differing write faults, and Linux rewrites these
 *     registers with read-modify-write, which a fault would break). Write-only fields act and
 *     read as 0; write-1-to-clear fields clear where a 1 is written; R/WC0 (sticky log) fields clear
 *     where a 0 is written and ignore a 1.
 * </ul>
 * Registers whose value lives in one of the CPU's units (LBR stacks, counters, IA32_DEBUGCTL,
 * IA32_DS_AREA, ...) are {@linkplain #attach attached} to that unit's {@link MsrPort}: the
 * register file still decides whether the register exists and whether a value is legal, the
 * unit holds the value in a primitive field the retirement path reads without a lookup. Other
 * side effects come from {@link RegisterBehaviour}. Every access costs
 * {@link SimClock#ACCESS_COST} ticks of the shared clock. The methods are synchronized: one
 * CPU's registers change atomically with respect to concurrent callers (e.g. {@code rdmsr -a}
 * on several threads); retirement on the same CPU must not run concurrently with them.
 */
final class RegisterFile {

    private final String where;
    private final CpuContext ctx;
    private final SimClock clock;
    private final Map<Long, MsrDef> defs = new HashMap<>();
    private final Map<Long, RegisterBehaviour> behaviours = new HashMap<>();
    private final Map<Long, Long> values = new HashMap<>();
    private final Map<Long, MsrPort> ports = new HashMap<>();
    private long tscOffset;

    /** A unit that holds registers' values itself. Called after the existence and reserved-bit checks. */
    interface MsrPort {
        long read(MsrDef def);

        /** {@code value} has passed {@link WriteCheck} unless {@link #checked()} says otherwise; field access rules are the port's (see {@link #merge}). */
        void write(MsrDef def, long value);

        /** False for a register whose WRMSR ignores bits rather than faulting (IA32_PMCx ignores EDX). */
        default boolean checked() {
            return true;
        }

        /** A port reading and writing a unit's field. */
        static MsrPort of(LongSupplier read, LongConsumer write) {
            return new MsrPort() {
                @Override
                public long read(MsrDef def) {
                    return read.getAsLong();
                }

                @Override
                public void write(MsrDef def, long value) {
                    write.accept(value);
                }
            };
        }

        /** The same for a register whose WRMSR takes any value, with no reserved-bit check. */
        static MsrPort unchecked(LongSupplier read, LongConsumer write) {
            MsrPort checked = of(read, write);
            return new MsrPort() {
                @Override
                public long read(MsrDef def) {
                    return checked.read(def);
                }

                @Override
                public void write(MsrDef def, long value) {
                    checked.write(def, value);
                }

                @Override
                public boolean checked() {
                    return false;
                }
            };
        }
    }

    /**
     * @param bsp   whether this CPU is the bootstrap processor
     * @param where e.g. "simulated CPU 3 (profile skylake)", for messages
     */
    RegisterFile(int cpu, boolean bsp, CpuidReader cpuid, SimClock clock, String where) {
        this.where = where;
        this.clock = clock;
        CpuContext plain = CpuContext.of(cpuid);
        CpuCapabilities caps = plain.capabilities();
        // The catalog's PERF_CAPABILITIES-dependent rows (IA32_A_PMCx, FREEZE_WHILE_SMM, ...) follow
        // the value this simulated CPU reports, not the catalog's "assume set" default.
        OptionalLong perfCaps = PerfCapabilitiesModel.initial(caps, plain.guardedCpuid());
        this.ctx = perfCaps.isPresent() ? plain.withPerfCapabilities(perfCaps.getAsLong()) : plain;
        for (MsrDef d : MsrCatalog.forCpu(ctx)) {
            defs.put(d.address(), d);
            behaviours.put(d.address(), RegisterBehaviour.of(d, caps.identity()));
        }
        for (Map.Entry<String, Long> e : BootState.of(cpu, bsp, caps, ctx.guardedCpuid()).entrySet()) {
            MsrCatalog.byName(e.getKey()).filter(d -> defs.containsKey(d.address()))
                    .ifPresent(d -> values.put(d.address(), e.getValue() & d.definedMask(ctx)));
        }
    }

    /** The catalog's view of this CPU (with the simulated IA32_PERF_CAPABILITIES). */
    CpuContext context() {
        return ctx;
    }

    /** The register this CPU implements at {@code address}, if any. */
    Optional<MsrDef> def(long address) {
        return Optional.ofNullable(defs.get(address));
    }

    /** The register this CPU implements under catalog name {@code name}, if any. */
    Optional<MsrDef> def(String name) {
        return MsrCatalog.byName(name).map(d -> defs.get(d.address()));
    }

    /** Hands {@code def}'s value to {@code port}, starting from its boot value. */
    synchronized void attach(MsrDef def, MsrPort port) {
        ports.put(def.address(), port);
    }

    /** {@link #attach} the register named {@code name} if this CPU implements it. */
    void attach(String name, MsrPort port) {
        def(name).ifPresent(d -> attach(d, port));
    }

    /** {@link #attach} the register at {@code address} if this CPU implements it. */
    void attach(long address, MsrPort port) {
        def(address).ifPresent(d -> attach(d, port));
    }

    /** The stored value (boot state included) without side effects or clock cost: for units taking over a register. */
    synchronized long stored(long address) {
        return values.getOrDefault(address, 0L);
    }

    /**
     * Sets a register as the platform leaves it, bypassing WRMSR's rules (read-only bits
     * included) but not its existence: e.g. a hypervisor that reports
     * IA32_MISC_ENABLE.BTS_UNAVAILABLE, as KVM does for its guests.
     */
    synchronized void poke(long address, long value) {
        MsrDef def = implemented(address, "WRMSR");
        long v = value & def.definedMask(ctx);
        MsrPort port = ports.get(address);
        if (port != null) {
            port.write(def, v);
        } else {
            values.put(address, v);
        }
    }

    /** IA32_TIME_STAMP_COUNTER now, without an access's cost: what a PEBS record stores. */
    synchronized long tsc() {
        return clock.now() + tscOffset;
    }

    synchronized long read(long address) {
        long now = clock.access();
        MsrDef def = implemented(address, "RDMSR");
        MsrPort port = ports.get(address);
        if (port != null) {
            return port.read(def);
        }
        RegisterBehaviour b = behaviours.get(address);
        return switch (b.kind()) {
            case TIME_STAMP -> now + tscOffset;
            case ENERGY -> RaplModel.energyUnits(now, b.milliwatts());
            case STORED, LOW_HALF_ONLY -> stored(def);
        };
    }

    synchronized void write(long address, long value) {
        long now = clock.access();
        MsrDef def = implemented(address, "WRMSR");
        MsrPort port = ports.get(address);
        if (port != null) {
            if (port.checked()) {
                check(def, value);
            }
            port.write(def, value);
            return;
        }
        switch (behaviours.get(address).kind()) {
            case TIME_STAMP -> {
                check(def, value);
                tscOffset = value - now;
            }
            case LOW_HALF_ONLY -> store(def, value & 0xFFFF_FFFFL);
            case STORED, ENERGY -> store(def, value);
        }
    }

    private long stored(MsrDef def) {
        return values.getOrDefault(def.address(), 0L);
    }

    private void store(MsrDef def, long value) {
        check(def, value);
        values.put(def.address(), merge(def, stored(def), value));
    }

    /**
     * What a checked WRMSR of {@code value} leaves in a register that held {@code old}: read-only
     * fields keep their bits, write-1-to-clear fields clear where a 1 is written, R/WC0 fields
     * clear where a 0 is written and keep their bit where a 1 is (SDM Vol. 4 "R/WC0"), write-only
     * fields and write-only registers read as 0.
     */
    long merge(MsrDef def, long old, long value) {
        long keep = 0;      // read-only fields: the old bits stay
        long clearable = 0; // write-1-to-clear fields
        long writeOnly = 0; // act, read as 0
        long clearOnZero = 0; // R/WC0 sticky log bits: a 0 clears, a 1 leaves the bit as it was
        for (MsrField f : def.fieldsOn(ctx)) {
            long m = f.mask(ctx);
            switch (f.access()) {
                case RO -> keep |= m;
                case W1C -> clearable |= m;
                case RWC0 -> clearOnZero |= m;
                case WO -> writeOnly |= m;
                case RW -> { }
            }
        }
        long next = (old & keep)
                | (old & clearable & ~value)
                | (old & clearOnZero & value)
                | (value & ~keep & ~clearable & ~writeOnly & ~clearOnZero);
        return def.access() == Access.WO ? 0L : next;
    }

    /** #GP(0) for a register this CPU lacks, naming why. */
    private MsrDef implemented(long address, String instruction) {
        MsrDef def = defs.get(address);
        if (def != null) {
            return def;
        }
        Optional<MsrDef> known = MsrCatalog.byAddress(address);
        String why = known.map(d -> d.label() + " is not implemented here: needs " + d.exists().describe())
                .orElse("no such MSR on this CPU");
        throw faultOf(instruction, address, why);
    }

    private void check(MsrDef def, long value) {
        List<Violation> v = WriteCheck.check(def, value, ctx);
        if (!v.isEmpty()) {
            throw faultOf("WRMSR", def.address(), v.getFirst().message() + " (value 0x" + Long.toHexString(value) + ")");
        }
    }

    /** The #GP(0) a unit raises for a value the catalog's masks cannot express (e.g. an unsupported depth). */
    HwException fault(String instruction, long address, String why) {
        return faultOf(instruction, address, why);
    }

    private HwException faultOf(String instruction, long address, String why) {
        return new HwException(Cause.REGISTER_FAULT, where + ": " + instruction + " 0x"
                + Long.toHexString(address).toUpperCase() + " raised #GP(0): " + why);
    }
}
