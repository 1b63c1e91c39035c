package dev.hwtool.sim.script;

import java.util.Optional;

/**
 * A register as a script names it: a catalog name (resolved per CPU when the command runs, as
 * {@code MsrCatalog.byName(String, CpuContext)} does) or a number, and optionally one field.
 *
 * @param name    the catalog name as written, or null for a number
 * @param address the number as written (only when {@code name} is null)
 * @param field   the field name as written, or null for the whole register
 */
public record RegisterRef(String name, long address, String field) {

    public Optional<String> fieldName() {
        return Optional.ofNullable(field);
    }

    /** As written: "IA32_DEBUGCTL.LBR" or "0x1d9". */
    public String text() {
        String reg = name != null ? name : "0x" + Long.toHexString(address);
        return field == null ? reg : reg + "." + field;
    }
}
