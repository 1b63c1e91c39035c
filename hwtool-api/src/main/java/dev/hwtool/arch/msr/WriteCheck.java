package dev.hwtool.arch.msr;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether a WRMSR of a known register is legal on a CPU, per the catalog (SDM Vol. 4: writing
 * 1 to reserved bits, writing read-only registers or a register the CPU lacks raises #GP(0)).
 * Registers outside the catalog are the caller's business.
 */
public final class WriteCheck {

    private WriteCheck() {
    }

    /** Checks without the old value: no READ_ONLY_FIELD_CHANGED verdicts. */
    public static List<Violation> check(MsrDef def, long newValue, CpuContext ctx) {
        List<Violation> out = new ArrayList<>();
        if (registerLevel(def, ctx, out)) {
            reserved(def, newValue, ctx, out);
        }
        return List.copyOf(out);
    }

    /** Checks a read-modify-write: also that read-only fields keep {@code oldValue}'s bits. */
    public static List<Violation> check(MsrDef def, long oldValue, long newValue, CpuContext ctx) {
        List<Violation> out = new ArrayList<>();
        if (registerLevel(def, ctx, out)) {
            reserved(def, newValue, ctx, out);
            for (MsrField f : def.fieldsOn(ctx)) {
                long changed = (oldValue ^ newValue) & f.mask(ctx);
                if (f.access() == Access.RO && changed != 0) {
                    out.add(new Violation(Violation.Kind.READ_ONLY_FIELD_CHANGED, changed,
                            def.name() + "." + f.name() + " " + f.bitsText() + " is read-only: 0x"
                                    + Long.toHexString(f.extract(oldValue)) + " -> 0x"
                                    + Long.toHexString(f.extract(newValue))));
                }
            }
        }
        return List.copyOf(out);
    }

    /** Adds the register-level verdict; true when bit-level checks make sense. */
    private static boolean registerLevel(MsrDef def, CpuContext ctx, List<Violation> out) {
        if (!def.existsOn(ctx)) {
            out.add(new Violation(Violation.Kind.NOT_ON_THIS_CPU, 0,
                    def.label() + " does not exist on this CPU: needs " + def.exists().describe()));
            return false;
        }
        if (def.access() == Access.RO) {
            out.add(new Violation(Violation.Kind.READ_ONLY_REGISTER, 0,
                    def.label() + " is read-only (WRMSR #GP)"));
            return false;
        }
        return true;
    }

    private static void reserved(MsrDef def, long value, CpuContext ctx, List<Violation> out) {
        long bad = value & def.reservedMask(ctx);
        if (bad != 0) {
            out.add(new Violation(Violation.Kind.RESERVED_BITS, bad,
                    def.label() + ": reserved bits set on this CPU, mask 0x"
                            + Long.toHexString(bad).toUpperCase(Locale.ROOT) + " (WRMSR #GP)"));
        }
    }
}
