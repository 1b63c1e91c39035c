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

import java.util.ArrayList;
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
 *
 * <p>A CPU's {@link CpuContext} (its CPUID and simulated IA32_PERF_CAPABILITIES) never changes,
 * so everything the catalog derives from it per register — which fields exist, the reserved
 * mask, the read-only/W1C/R/WC0/write-only masks — is computed once when the register file is
 * built ({@link Reg}), and registers are found by address in a primitive table: an access
 * neither allocates nor re-evaluates the catalog's conditions (a PMI handler makes a dozen).
 */
final class RegisterFile {

    private final String where;
    private final CpuContext ctx;
    private final SimClock clock;
    private final RegTable regs;
    private long tscOffset;

    /**
     * One register this CPU implements: its definition, behaviour, value or port, and the
     * catalog's answers for this CPU, computed once (the context is fixed).
     */
    private static final class Reg {
        final MsrDef def;
        final RegisterBehaviour behaviour;
        MsrPort port;
        long value;
        /** Bits some existing field covers ({@link MsrDef#definedMask}). */
        final long defined;
        /** WRMSR's register-level verdict ({@link WriteCheck}): the register exists here and is not read-only. */
        final boolean writable;
        /** {@link #merge}'s masks: read-only, write-1-to-clear, R/WC0 and write-only fields. */
        final long keep;
        final long clearable;
        final long clearOnZero;
        final long writeOnly;
        final boolean writeOnlyRegister;

        Reg(MsrDef def, RegisterBehaviour behaviour, CpuContext ctx) {
            this.def = def;
            this.behaviour = behaviour;
            this.defined = def.definedMask(ctx);
            this.writable = def.existsOn(ctx) && def.access() != Access.RO;
            long k = 0;
            long c = 0;
            long z = 0;
            long w = 0;
            for (MsrField f : def.fieldsOn(ctx)) {
                long m = f.mask(ctx);
                switch (f.access()) {
                    case RO -> k |= m;
                    case W1C -> c |= m;
                    case RWC0 -> z |= m;
                    case WO -> w |= m;
                    case RW -> { }
                }
            }
            this.keep = k;
            this.clearable = c;
            this.clearOnZero = z;
            this.writeOnly = w;
            this.writeOnlyRegister = def.access() == Access.WO;
        }

        /** A register of a new register file: {@code shape}'s definition and masks, its value, no port yet. */
        Reg(Reg shape) {
            this.def = shape.def;
            this.behaviour = shape.behaviour;
            this.value = shape.value;
            this.defined = shape.defined;
            this.writable = shape.writable;
            this.keep = shape.keep;
            this.clearable = shape.clearable;
            this.clearOnZero = shape.clearOnZero;
            this.writeOnly = shape.writeOnly;
            this.writeOnlyRegister = shape.writeOnlyRegister;
        }
    }

    /** Registers by address: open addressing over 32-bit MSR addresses, no boxing on lookup. */
    private static final class RegTable {
        private final long[] keys;
        private final Reg[] values;
        private final int mask;

        RegTable(List<Reg> regs) {
            int cap = Integer.highestOneBit(Math.max(4, regs.size() * 2)) * 2;
            keys = new long[cap];
            values = new Reg[cap];
            mask = cap - 1;
            java.util.Arrays.fill(keys, -1L);
            for (Reg r : regs) {
                int i = slot(r.def.address());
                while (keys[i] != -1L) {
                    i = (i + 1) & mask;
                }
                keys[i] = r.def.address();
                values[i] = r;
            }
        }

        private RegTable(long[] keys, Reg[] values) {
            this.keys = keys;
            this.values = values;
            this.mask = keys.length - 1;
        }

        /** The same registers at their current values, with no ports: the keys are shared (never written after construction). */
        RegTable copy() {
            Reg[] v = new Reg[values.length];
            for (int i = 0; i < v.length; i++) {
                if (values[i] != null) {
                    v[i] = new Reg(values[i]);
                }
            }
            return new RegTable(keys, v);
        }

        private int slot(long address) {
            return (int) ((address * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        }

        Reg get(long address) {
            for (int i = slot(address); ; i = (i + 1) & mask) {
                long k = keys[i];
                if (k == address) {
                    return values[i];
                }
                if (k == -1L) {
                    return null;
                }
            }
        }
    }

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
     * Everything about one CPU's registers that its CPUID, its number and whether it is the
     * bootstrap processor fix: its {@link CpuContext}, which registers exist, the catalog's masks
     * for each and its boot value ({@link BootState}). Immutable once built (its registers are
     * only ever copied, never handed out), so one layout serves every register file of that CPU:
     * each starts from the same boot values, with nothing of another's state.
     */
    static final class Layout {
        private final CpuContext ctx;
        private final RegTable boot;

        /** @param bsp whether this CPU is the bootstrap processor */
        Layout(int cpu, boolean bsp, CpuidReader cpuid) {
            CpuContext plain = CpuContext.of(cpuid);
            CpuCapabilities caps = plain.capabilities();
            // The catalog's PERF_CAPABILITIES-dependent rows (IA32_A_PMCx, FREEZE_WHILE_SMM, ...) follow
            // the value this simulated CPU reports, not the catalog's "assume set" default.
            OptionalLong perfCaps = PerfCapabilitiesModel.initial(caps, plain.guardedCpuid());
            this.ctx = perfCaps.isPresent() ? plain.withPerfCapabilities(perfCaps.getAsLong()) : plain;
            List<Reg> all = new ArrayList<>();
            for (MsrDef d : MsrCatalog.forCpu(ctx)) {
                all.add(new Reg(d, RegisterBehaviour.of(d, caps.identity()), ctx));
            }
            this.boot = new RegTable(all);
            for (Map.Entry<String, Long> e : BootState.of(cpu, bsp, caps, ctx.guardedCpuid()).entrySet()) {
                MsrCatalog.byName(e.getKey()).map(d -> boot.get(d.address()))
                        .ifPresent(r -> r.value = e.getValue() & r.defined);
            }
        }

        CpuContext context() {
            return ctx;
        }
    }

    /**
     * A register file in the boot state of {@code layout}.
     *
     * @param where e.g. "simulated CPU 3 (profile skylake)", for messages
     */
    RegisterFile(Layout layout, SimClock clock, String where) {
        this.where = where;
        this.clock = clock;
        this.ctx = layout.ctx;
        this.regs = layout.boot.copy();
    }

    /** The catalog's view of this CPU (with the simulated IA32_PERF_CAPABILITIES). */
    CpuContext context() {
        return ctx;
    }

    /** The register this CPU implements at {@code address}, if any. */
    Optional<MsrDef> def(long address) {
        Reg r = regs.get(address);
        return r == null ? Optional.empty() : Optional.of(r.def);
    }

    /** The register this CPU implements under catalog name {@code name}, if any. */
    Optional<MsrDef> def(String name) {
        return MsrCatalog.byName(name).flatMap(d -> def(d.address()));
    }

    /** Whether this CPU implements a register at {@code address}. */
    boolean implemented(long address) {
        return regs.get(address) != null;
    }

    /** {@link MsrDef#definedMask} of the register at {@code address} on this CPU; 0 where it has none. */
    long definedMask(long address) {
        Reg r = regs.get(address);
        return r == null ? 0 : r.defined;
    }

    /** Hands {@code def}'s value to {@code port}, starting from its boot value. */
    synchronized void attach(MsrDef def, MsrPort port) {
        Reg r = regs.get(def.address());
        if (r != null) {
            r.port = port;
        }
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
        Reg r = regs.get(address);
        return r == null ? 0 : r.value;
    }

    /**
     * Sets a register as the platform leaves it, bypassing WRMSR's rules (read-only bits
     * included) but not its existence: e.g. a hypervisor that reports
     * IA32_MISC_ENABLE.BTS_UNAVAILABLE, as KVM does for its guests.
     */
    synchronized void poke(long address, long value) {
        Reg r = implemented(address, "WRMSR");
        long v = value & r.defined;
        if (r.port != null) {
            r.port.write(r.def, v);
        } else {
            r.value = v;
        }
    }

    /** IA32_TIME_STAMP_COUNTER now, without an access's cost: what a PEBS record stores. */
    synchronized long tsc() {
        return clock.now() + tscOffset;
    }

    synchronized long read(long address) {
        long now = clock.access();
        Reg r = implemented(address, "RDMSR");
        if (r.port != null) {
            return r.port.read(r.def);
        }
        RegisterBehaviour b = r.behaviour;
        return switch (b.kind()) {
            case TIME_STAMP -> now + tscOffset;
            case ENERGY -> RaplModel.energyUnits(now, b.milliwatts(), r.def.name());
            case MIRROR -> mirrored(b.source());
            case STORED, LOW_HALF_ONLY -> r.value;
        };
    }

    synchronized void write(long address, long value) {
        long now = clock.access();
        Reg r = implemented(address, "WRMSR");
        if (r.port != null) {
            if (r.port.checked()) {
                check(r, value);
            }
            r.port.write(r.def, value);
            return;
        }
        switch (r.behaviour.kind()) {
            case TIME_STAMP -> {
                check(r, value);
                tscOffset = value - now;
            }
            case LOW_HALF_ONLY -> store(r, value & 0xFFFF_FFFFL);
            case STORED, ENERGY, MIRROR -> store(r, value);
        }
    }

    /** The value of the register named {@code name}, as a read of it would give (0 where the CPU lacks it). */
    private long mirrored(String name) {
        Reg src = MsrCatalog.byName(name).map(d -> regs.get(d.address())).orElse(null);
        if (src == null) {
            return 0;
        }
        return src.port != null ? src.port.read(src.def) : src.value;
    }

    private void store(Reg r, long value) {
        check(r, value);
        r.value = merge(r, r.value, value);
    }

    /**
     * What a checked WRMSR of {@code value} leaves in a register that held {@code old}: read-only
     * fields keep their bits, write-1-to-clear fields clear where a 1 is written, R/WC0 fields
     * clear where a 0 is written and keep their bit where a 1 is (SDM Vol. 4 "R/WC0"), write-only
     * fields and write-only registers read as 0.
     */
    long merge(MsrDef def, long old, long value) {
        return merge(regs.get(def.address()), old, value);
    }

    private static long merge(Reg r, long old, long value) {
        long keep = r.keep;               // read-only fields: the old bits stay
        long clearable = r.clearable;     // write-1-to-clear fields
        long writeOnly = r.writeOnly;     // act, read as 0
        long clearOnZero = r.clearOnZero; // R/WC0 sticky log bits: a 0 clears, a 1 leaves the bit as it was
        long next = (old & keep)
                | (old & clearable & ~value)
                | (old & clearOnZero & value)
                | (value & ~keep & ~clearable & ~writeOnly & ~clearOnZero);
        return r.writeOnlyRegister ? 0L : next;
    }

    /** #GP(0) for a register this CPU lacks, naming why. */
    private Reg implemented(long address, String instruction) {
        Reg r = regs.get(address);
        if (r != null) {
            return r;
        }
        Optional<MsrDef> known = MsrCatalog.byAddress(address);
        String why = known.map(d -> d.label() + " is not implemented here: needs " + d.exists().describe())
                .orElse("no such MSR on this CPU");
        throw faultOf(instruction, address, why);
    }

    /**
     * {@link WriteCheck#check}'s verdict from the register's precomputed masks — legal iff the
     * register exists here, is not read-only and no reserved bit is set (SDM Vol. 4 2.1) — and,
     * for a fault, its message.
     */
    private void check(Reg r, long value) {
        if (r.writable && (value & ~r.defined) == 0) {
            return;
        }
        List<Violation> v = WriteCheck.check(r.def, value, ctx);
        if (!v.isEmpty()) {
            throw faultOf("WRMSR", r.def.address(), v.getFirst().message() + " (value 0x" + Long.toHexString(value) + ")");
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
