package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Optional;

/**
 * Register and value arguments of the msr subcommands. A register is a catalog name (any case,
 * or an alias the catalog lists) or a number; a number that is not a 32-bit MSR index, or a
 * value that is not a 64-bit unsigned number, is a usage error (exit 2); a well-formed name the
 * catalog does not know is bad input (exit 3, {@link Cause#BAD_INPUT}).
 */
final class MsrArgs {

    private MsrArgs() {
    }

    /** A register as the user named it: its MSR index, and its catalog entry when there is one. */
    record Register(long address, Optional<MsrDef> def, String given) {

        /** The catalog name, or the address as 0x%08x when the catalog has none. */
        String label() {
            return def.map(MsrDef::name).orElse(Numbers.hex32(address));
        }

        int index() {
            return (int) address;
        }
    }

    /** An MSR name as the catalog spells them; compiled once (String.matches compiles it on every call). */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * Resolves {@code text} against the catalog. With a CPU context, names the SDM gives that
     * CPU's registers resolve too (MsrCatalog.byName(name, ctx)).
     */
    static Register register(String text, CpuContext ctx) {
        String t = text.trim();
        if (looksNumeric(t)) {
            long address = parseUnsigned(t, 0xFFFF_FFFFL, "an MSR index");
            return new Register(address, MsrCatalog.byAddress(address), text);
        }
        if (!NAME.matcher(t).matches()) {
            throw new UsageException("'" + text + "' is neither an MSR name nor a number (decimal or 0x hex)");
        }
        Optional<MsrDef> def = MsrCatalog.byName(t);
        if (def.isEmpty() && ctx != null) {
            def = MsrCatalog.byName(t, ctx);
        }
        MsrDef d = def.orElseThrow(() -> new HwException(Cause.BAD_INPUT, "unknown MSR '" + text
                + "': not in hwtool's catalog (hwtool msr list --all names every register)"));
        return new Register(d.address(), Optional.of(d), text);
    }

    static boolean looksNumeric(String t) {
        return !t.isEmpty() && Character.isDigit(t.charAt(0));
    }

    /** Decimal or 0x hex, unsigned, at most {@code max}; a usage error otherwise. */
    static long parseUnsigned(String s, long max, String what) {
        String t = s.trim();
        long v;
        try {
            boolean hex = t.startsWith("0x") || t.startsWith("0X");
            String digits = hex ? t.substring(2) : t;
            if (digits.isEmpty() || digits.startsWith("+") || digits.startsWith("-")) {
                throw new NumberFormatException();
            }
            v = Long.parseUnsignedLong(digits, hex ? 16 : 10);
        } catch (NumberFormatException e) {
            throw new UsageException("'" + s + "' is not " + what + " (decimal or 0x hex)");
        }
        if (max != -1L && Long.compareUnsigned(v, max) > 0) {
            throw new UsageException("'" + s + "' is out of range for " + what + " (0 to 0x" + Long.toHexString(max) + ")");
        }
        return v;
    }

    /** A 64-bit register value: 0 to 0xffffffffffffffff, decimal or 0x hex. */
    static final class Value64 implements ITypeConverter<Long> {
        @Override
        public Long convert(String s) {
            try {
                return parseUnsigned(s, -1L, "a 64-bit value");
            } catch (UsageException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
