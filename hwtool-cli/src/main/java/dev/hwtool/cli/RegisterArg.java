package dev.hwtool.cli;

import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A register as the user names it: a catalog name (IA32_DEBUGCTL, case-insensitive, or a listed
 * alias) or a C integer literal (0x hex, 0 octal, decimal) of at most 32 bits. Unlike msr-tools
 * 1.3 (strtoul, which reads "MSR_K8_TOP_MEM2" as MSR 0, msr-tools issue #8) anything else is a
 * usage error.
 *
 * @param def the catalog's register at that address, when it has one
 */
record RegisterArg(long address, Optional<MsrDef> def) {

    static RegisterArg parse(String text) {
        Optional<MsrDef> named = MsrCatalog.byName(text);
        if (named.isPresent()) {
            return new RegisterArg(named.get().address(), named);
        }
        OptionalLong n = CNumbers.strict(text, 32);
        if (n.isPresent()) {
            return new RegisterArg(n.getAsLong(), MsrCatalog.byAddress(n.getAsLong()));
        }
        if (CNumbers.strict(text, 64).isPresent()) {
            throw new UsageException("register number '" + text + "' is more than 32 bits");
        }
        throw new UsageException("'" + text + "' is neither a register number (0x hex, 0 octal, decimal) "
                + "nor an MSR name hwtool knows (see 'hwtool msr list')");
    }

    /** msr-tools' spelling of the address, 0x%08x. */
    String hex() {
        return Numbers.hex32(address);
    }

    /** "IA32_DEBUGCTL" or "MSR 0x000001d9" for one outside the catalog. */
    String label() {
        return def.map(MsrDef::name).orElse("MSR " + hex());
    }

    /** The catalog name, or null. */
    String name() {
        return def.map(MsrDef::name).orElse(null);
    }
}
