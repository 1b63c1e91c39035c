package dev.hwtool.arch.msr;

/** A register and one of its fields, as named by a path "IA32_DEBUGCTL.LBR". */
public record FieldRef(MsrDef register, MsrField field) {

    public String path() {
        return register.name() + "." + field.name();
    }
}
