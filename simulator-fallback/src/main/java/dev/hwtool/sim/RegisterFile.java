package dev.hwtool.sim;

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
 *     read as 0; write-1-to-clear fields clear where a 1 is written.
 * </ul>
 * Side effects come from {@link RegisterBehaviour}. Every access costs {@link SimClock#ACCESS_COST}
 * ticks of the shared clock. The methods are synchronized: one CPU's registers change atomically
 * with respect to concurrent callers (e.g. {@code rdmsr -a} on several threads).
 */
final class RegisterFile {

    private final String where;
    private final CpuContext ctx;
    private final SimClock clock;
    private final Map<Long, MsrDef> defs = new HashMap<>();
    private final Map<Long, RegisterBehaviour> behaviours = new HashMap<>();
    private final Map<Long, Long> values = new HashMap<>();
    /** Counter index → the IA32_PMCx register that holds it (IA32_A_PMCx aliases the same value). */
    private final Map<Integer, MsrDef> legacyCounters = new HashMap<>();
    private final List<Integer> archLbrDepths;
    /** IA32_PERF_GLOBAL_STATUS, which STATUS_RESET and STATUS_SET act on. */
    private final long globalStatus;
    private long tscOffset;

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
        this.archLbrDepths = caps.archLbr().depths();
        this.globalStatus = MsrCatalog.byName(RegisterBehaviour.GLOBAL_STATUS).map(MsrDef::address)
                .orElseThrow(() -> new IllegalStateException("the catalog has no " + RegisterBehaviour.GLOBAL_STATUS));
        for (MsrDef d : MsrCatalog.forCpu(ctx)) {
            defs.put(d.address(), d);
            RegisterBehaviour b = RegisterBehaviour.of(d, caps.identity());
            behaviours.put(d.address(), b);
            if (b.kind() == RegisterBehaviour.Kind.LEGACY_PMC) {
                legacyCounters.put(b.counter(), d);
            }
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

    synchronized long read(long address) {
        long now = clock.access();
        MsrDef def = implemented(address, "RDMSR");
        RegisterBehaviour b = behaviours.get(address);
        return switch (b.kind()) {
            case TIME_STAMP -> now + tscOffset;
            // SDM Vol. 4 lists 390H/391H as R/W but defines only what a write does; the simulator
            // reads them as 0, as KVM does (arch/x86/kvm/vmx/pmu_intel.c intel_pmu_get_msr:
            // MSR_CORE_PERF_GLOBAL_OVF_CTRL → 0).
            case STATUS_RESET, STATUS_SET -> 0L;
            case LEGACY_PMC, FULL_WIDTH_PMC -> counterValue(b.counter());
            case STORED, LOW_HALF_ONLY, ARCH_LBR_DEPTH, ARCH_LBR_ENTRY -> stored(def);
        };
    }

    synchronized void write(long address, long value) {
        long now = clock.access();
        MsrDef def = implemented(address, "WRMSR");
        RegisterBehaviour b = behaviours.get(address);
        switch (b.kind()) {
            case TIME_STAMP -> {
                check(def, value);
                tscOffset = value - now;
            }
            case STATUS_RESET -> {
                check(def, value);
                values.put(globalStatus, values.getOrDefault(globalStatus, 0L) & ~value);
            }
            case STATUS_SET -> {
                check(def, value);
                values.put(globalStatus, values.getOrDefault(globalStatus, 0L) | value);
            }
            case LEGACY_PMC -> {
                // Only EAX is written; bits above 31 are copies of bit 31, truncated to the width.
                MsrDef pmc = legacyCounters.get(b.counter());
                values.put(pmc.address(), (long) (int) value & pmc.definedMask(ctx));
            }
            case FULL_WIDTH_PMC -> {
                check(def, value);
                MsrDef pmc = legacyCounters.get(b.counter());
                values.put(pmc.address(), value & pmc.definedMask(ctx));
            }
            case LOW_HALF_ONLY -> store(def, value & 0xFFFF_FFFFL);
            case ARCH_LBR_DEPTH -> {
                check(def, value);
                if (!archLbrDepths.contains((int) value)) {
                    throw fault("WRMSR", address, def.label() + ": depth " + value
                            + " is not one CPUID.1CH:EAX[7:0] enumerates " + archLbrDepths);
                }
                store(def, value);
                behaviours.forEach((a, k) -> {
                    if (k.kind() == RegisterBehaviour.Kind.ARCH_LBR_ENTRY) {
                        values.remove(a);
                    }
                });
            }
            case STORED, ARCH_LBR_ENTRY -> store(def, value);
        }
    }

    private long counterValue(int index) {
        MsrDef pmc = legacyCounters.get(index);
        return values.getOrDefault(pmc.address(), 0L) & pmc.definedMask(ctx);
    }

    private long stored(MsrDef def) {
        return values.getOrDefault(def.address(), 0L);
    }

    private void store(MsrDef def, long value) {
        check(def, value);
        long old = stored(def);
        long keep = 0;      // read-only fields: the old bits stay
        long clearable = 0; // write-1-to-clear fields
        long writeOnly = 0; // act, read as 0
        for (MsrField f : def.fieldsOn(ctx)) {
            long m = f.mask(ctx);
            switch (f.access()) {
                case RO -> keep |= m;
                case W1C -> clearable |= m;
                case WO -> writeOnly |= m;
                case RW -> { }
            }
        }
        long next = (old & keep)
                | (old & clearable & ~value)
                | (value & ~keep & ~clearable & ~writeOnly);
        values.put(def.address(), def.access() == Access.WO ? 0L : next);
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
        throw fault(instruction, address, why);
    }

    private void check(MsrDef def, long value) {
        List<Violation> v = WriteCheck.check(def, value, ctx);
        if (!v.isEmpty()) {
            throw fault("WRMSR", def.address(), v.getFirst().message() + " (value 0x" + Long.toHexString(value) + ")");
        }
    }

    private HwException fault(String instruction, long address, String why) {
        return new HwException(Cause.REGISTER_FAULT, where + ": " + instruction + " 0x"
                + Long.toHexString(address).toUpperCase() + " raised #GP(0): " + why);
    }
}
