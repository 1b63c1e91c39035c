package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;

import java.util.Optional;

/**
 * A register the careful path writes: its 32-bit index and, when it has one, the catalog's
 * definition at that index (which the checks, the verification mask and the journal's name
 * come from).
 */
public record MsrRegister(long address, Optional<MsrDef> def) {

    public MsrRegister {
        if (address < 0 || address > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("MSR index 0x" + Long.toHexString(address) + " is more than 32 bits");
        }
    }

    /** The register at {@code address}, with the catalog's definition when there is one. */
    public static MsrRegister at(long address) {
        return new MsrRegister(address, MsrCatalog.byAddress(address));
    }

    /**
     * A register by its catalog name (or listed alias, case-insensitive).
     *
     * @throws HwException BAD_INPUT when the catalog has no register of that name
     */
    public static MsrRegister named(String name) {
        MsrDef def = MsrCatalog.byName(name).orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                "'" + name + "' is not an MSR name hwtool knows", "see 'hwtool msr list', or give the register's index"));
        return new MsrRegister(def.address(), Optional.of(def));
    }

    /** msr-tools' spelling of the address, 0x%08x. */
    public String hex() {
        return Hex.hex32(address);
    }

    /** "IA32_DEBUGCTL" or "MSR 0x000001d9" for one outside the catalog. */
    public String label() {
        return def.map(MsrDef::name).orElse("MSR " + hex());
    }

    /** The catalog name, or null. */
    public String name() {
        return def.map(MsrDef::name).orElse(null);
    }
}
