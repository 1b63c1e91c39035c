package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * When a register or field exists on a CPU, as data: evaluated against a {@link CpuContext},
 * and described in the SDM's notation ("CPUID.(07H,0):ECX[24]") for listings and docs.
 */
public sealed interface Condition {

    boolean test(CpuContext ctx);

    /** The rule in SDM notation, e.g. "CPUID.0AH:EAX[7:0] >= 2". */
    String describe();

    Condition ALWAYS = new Always();

    static Condition always() {
        return ALWAYS;
    }

    /** A CPUID flag the decoders already name. */
    static Condition cpuid(dev.hwtool.arch.decode.CpuidBit b) {
        return new CpuidBit(b.leaf(), b.subleaf(), b.reg(), b.bit());
    }

    static Condition cpuid(int leaf, int subleaf, Reg reg, int bit) {
        return new CpuidBit(leaf, subleaf, reg, bit);
    }

    /** All of them; {@link #ALWAYS} operands are dropped, a single remaining operand is returned as is. */
    static Condition and(Condition... all) {
        List<Condition> real = java.util.Arrays.stream(all).filter(c -> !(c instanceof Always)).toList();
        if (real.isEmpty()) {
            return ALWAYS;
        }
        return real.size() == 1 ? real.get(0) : new And(real);
    }

    static Condition or(Condition... any) {
        return new Or(List.of(any));
    }

    static Condition not(Condition c) {
        return new Not(c);
    }

    /** Holds on every CPU. */
    record Always() implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return true;
        }

        @Override
        public String describe() {
            return "always";
        }
    }

    /** A single CPUID bit is 1 (leaves outside the CPU's reported range read as 0). */
    record CpuidBit(int leaf, int subleaf, Reg reg, int bit) implements Condition {
        public CpuidBit {
            Objects.requireNonNull(reg, "reg");
            if (bit < 0 || bit > 31) {
                throw new IllegalArgumentException("CPUID bit " + bit + " outside 0..31");
            }
        }

        @Override
        public boolean test(CpuContext ctx) {
            return ctx.guardedCpuid().read(leaf, subleaf).bit(reg, bit);
        }

        @Override
        public String describe() {
            String l = Integer.toHexString(leaf).toUpperCase();
            String leafText = l.length() < 2 ? "0" + l : l;
            String where = subleaf == 0 && !subleafMatters(leaf)
                    ? leafText + "H"
                    : "(" + leafText + "H," + subleaf + ")";
            return "CPUID." + where + ":" + reg + "[" + bit + "]";
        }

        /** Leaves the SDM writes with a subleaf, e.g. CPUID.(07H,0). */
        private static boolean subleafMatters(int leaf) {
            return leaf == 0x7 || leaf == 0xD || leaf == 0xF || leaf == 0x10 || leaf == 0x12
                    || leaf == 0x14 || leaf == 0x17 || leaf == 0x18 || leaf == 0x1D || leaf == 0x23;
        }
    }

    /** The CPUID.0 vendor string equals {@code vendor} (e.g. "GenuineIntel"). */
    record Vendor(String vendor) implements Condition {
        public static final Vendor INTEL = new Vendor("GenuineIntel");
        /**
         * AMD proper. Hygon (HygonGenuine) shares many AMD registers but its PPRs are not what the
         * AMD entries cite, so the catalog does not claim them there (it errs towards "absent").
         */
        public static final Vendor AMD = new Vendor("AuthenticAMD");

        @Override
        public boolean test(CpuContext ctx) {
            return vendor.equals(ctx.capabilities().identity().vendor());
        }

        @Override
        public String describe() {
            return "CPUID.0 vendor " + vendor;
        }
    }

    /** CPUID.0AH:EAX[7:0] (architectural perfmon version) is at least {@code version}. */
    record PerfmonVersionAtLeast(int version) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return ctx.capabilities().archPerfmon().version() >= version;
        }

        @Override
        public String describe() {
            return "CPUID.0AH:EAX[7:0] >= " + version;
        }
    }

    /** General-purpose counter {@code index} exists: CPUID.0AH:EAX[15:8] > index. */
    record GpCounterIndexBelow(int index) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return ctx.capabilities().archPerfmon().present()
                    && index < ctx.capabilities().archPerfmon().gpCounters();
        }

        @Override
        public String describe() {
            return "CPUID.0AH:EAX[15:8] > " + index;
        }
    }

    /**
     * Fixed-function counter {@code index} exists: CPUID.0AH:EDX[4:0] > index, or (version 5)
     * CPUID.0AH:ECX[index] (the decoder's {@code fixedCounters} unites both, SDM 20.2.5).
     */
    record FixedCounterIndexBelow(int index) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return ctx.capabilities().archPerfmon().present()
                    && index < ctx.capabilities().archPerfmon().fixedCounters();
        }

        @Override
        public String describe() {
            return "CPUID.0AH:EDX[4:0] > " + index + " or CPUID.0AH:ECX[" + index + "]";
        }
    }

    /**
     * A bit of IA32_PERF_CAPABILITIES is 1. The register exists only with PDCM
     * (CPUID.01H:ECX[15]); its value is an MSR, which pure code cannot read, so the caller
     * supplies it in {@link CpuContext#perfCapabilities()}. When the caller did not, the bit is
     * <em>assumed set</em> whenever PDCM is: the catalog then lists the dependent register or
     * field and the write checks let such writes through — hardware still refuses them with #GP
     * if the bit is in fact 0, whereas a pessimistic guess would forbid valid writes.
     */
    record PerfCapabilitiesBit(int bit, String name) implements Condition {
        private static final Condition PDCM = Condition.cpuid(dev.hwtool.arch.decode.CpuidBit.PDCM);

        @Override
        public boolean test(CpuContext ctx) {
            if (!PDCM.test(ctx)) {
                return false;
            }
            return ctx.perfCapabilities().isEmpty()
                    || ((ctx.perfCapabilities().getAsLong() >>> bit) & 1) != 0;
        }

        @Override
        public String describe() {
            return "IA32_PERF_CAPABILITIES[" + bit + "] (" + name + "; assumed 1 with CPUID.01H:ECX[15]"
                    + " when the MSR was not read)";
        }
    }

    /** Which register of a legacy LBR entry. */
    enum LbrPart { FROM, TO, INFO }

    /**
     * Legacy LBR entry {@code index} exists at this CPU's addresses: the model table
     * ({@link dev.hwtool.arch.decode.LegacyLbrTable}) gives a stack whose first {@code part}
     * MSR is {@code firstMsr} and whose depth exceeds {@code index}.
     */
    record LegacyLbrEntry(LbrPart part, long firstMsr, int index) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            LegacyLbr l = ctx.capabilities().legacyLbr();
            if (!l.present() || index >= l.depth()) {
                return false;
            }
            int base = switch (part) {
                case FROM -> l.fromMsr();
                case TO -> l.toMsr();
                case INFO -> l.infoMsr();
            };
            return base == firstMsr;
        }

        @Override
        public String describe() {
            return "legacy LBR depth > " + index + " with the first " + part + " MSR at "
                    + Long.toHexString(firstMsr).toUpperCase() + "H (model table, SDM Table 17-4)";
        }
    }

    /** The legacy LBR stack exists at all (model table). */
    record LegacyLbrPresent() implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return ctx.capabilities().legacyLbr().present();
        }

        @Override
        public String describe() {
            return "legacy LBR stack (model table, SDM Table 17-4)";
        }
    }

    /** LBR_SELECT.EN_CALLSTACK exists: the legacy stack has call-stack mode (Haswell and later). */
    record LegacyLbrCallStack() implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            LegacyLbr l = ctx.capabilities().legacyLbr();
            return l.present() && l.callStack();
        }

        @Override
        public String describe() {
            return "legacy LBR call-stack mode (Haswell and later, model table)";
        }
    }

    /** Architectural LBR entry {@code index} exists: the largest depth in CPUID.1CH:EAX[7:0] exceeds it. */
    record ArchLbrIndexBelow(int index) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            List<Integer> depths = ctx.capabilities().archLbr().depths();
            return ctx.capabilities().archLbr().supported()
                    && depths.stream().mapToInt(Integer::intValue).max().orElse(0) > index;
        }

        @Override
        public String describe() {
            return "CPUID.(07H,0):EDX[19] and 8*fls(CPUID.1CH:EAX[7:0]) > " + index;
        }
    }

    /**
     * A multi-bit CPUID field is above {@code index}, e.g. the LBR v2 stack size
     * CPUID.80000022H:EBX[9:4] (AMD APM Vol. 3, CPUID Fn8000_0022_EBX LbrV2StackSz; Linux
     * arch/x86/include/asm/perf_event.h union cpuid_0x80000022_ebx). Absent leaves read as 0.
     */
    record CpuidFieldAbove(int leaf, int subleaf, Reg reg, int hi, int lo, int index) implements Condition {
        public CpuidFieldAbove {
            Objects.requireNonNull(reg, "reg");
            if (lo < 0 || hi > 31 || hi < lo) {
                throw new IllegalArgumentException("CPUID field [" + hi + ":" + lo + "] outside 31..0");
            }
        }

        /** The field's value on that CPU. */
        public int value(CpuContext ctx) {
            int r = ctx.guardedCpuid().read(leaf, subleaf).get(reg);
            int w = hi - lo + 1;
            return w == 32 ? r : (r >>> lo) & ((1 << w) - 1);
        }

        @Override
        public boolean test(CpuContext ctx) {
            return Integer.compareUnsigned(value(ctx), index) > 0;
        }

        @Override
        public String describe() {
            String bit = new CpuidBit(leaf, subleaf, reg, lo).describe();
            return bit.substring(0, bit.lastIndexOf('[')) + "[" + hi + ":" + lo + "] > " + index;
        }
    }

    /**
     * An AMD display family (CPUID Fn0000_0001_EAX with AMD's extended-family rule, APM Vol. 3),
     * for rules Linux or a PPR states per family (named in {@code label}), e.g. BRS, which
     * arch/x86/events/amd/brs.c amd_brs_detect accepts on family 19h only.
     */
    record AmdFamily(Set<Integer> families, String label) implements Condition {
        public AmdFamily {
            families = Set.copyOf(families);
        }

        @Override
        public boolean test(CpuContext ctx) {
            Identity id = ctx.capabilities().identity();
            return Vendor.AMD.vendor().equals(id.vendor()) && families.contains(id.family());
        }

        @Override
        public String describe() {
            String list = new TreeSet<>(families).stream().map(f -> String.format("%02XH", f))
                    .collect(Collectors.joining(", "));
            return label + " (AMD family " + list + ")";
        }
    }

    /** An Intel display family/model, for rules the SDM states per model (named in {@code label}). */
    record IntelModel(int family, Set<Integer> models, String label) implements Condition {
        public IntelModel {
            models = Set.copyOf(models);
        }

        @Override
        public boolean test(CpuContext ctx) {
            Identity id = ctx.capabilities().identity();
            return id.isIntel() && id.family() == family && models.contains(id.model());
        }

        @Override
        public String describe() {
            String list = new TreeSet<>(models).stream()
                    .map(m -> String.format("%02X_%02XH", family, m))
                    .collect(Collectors.joining(", "));
            return label + " (" + list + ")";
        }
    }

    record And(List<Condition> all) implements Condition {
        public And {
            all = List.copyOf(all);
        }

        @Override
        public boolean test(CpuContext ctx) {
            return all.stream().allMatch(c -> c.test(ctx));
        }

        @Override
        public String describe() {
            return all.stream().map(c -> c instanceof Or ? "(" + c.describe() + ")" : c.describe())
                    .collect(Collectors.joining(" and "));
        }
    }

    record Or(List<Condition> any) implements Condition {
        public Or {
            any = List.copyOf(any);
        }

        @Override
        public boolean test(CpuContext ctx) {
            return any.stream().anyMatch(c -> c.test(ctx));
        }

        @Override
        public String describe() {
            return any.stream().map(c -> c instanceof And ? "(" + c.describe() + ")" : c.describe())
                    .collect(Collectors.joining(" or "));
        }
    }

    record Not(Condition negated) implements Condition {
        @Override
        public boolean test(CpuContext ctx) {
            return !negated.test(ctx);
        }

        @Override
        public String describe() {
            return "not " + (negated instanceof And || negated instanceof Or
                    ? "(" + negated.describe() + ")" : negated.describe());
        }
    }
}
