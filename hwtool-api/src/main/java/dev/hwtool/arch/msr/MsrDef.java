package dev.hwtool.arch.msr;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One model-specific register: its SDM/kernel name, address, fields, when it exists, and where
 * the facts come from. Fields never overlap (checked here), so reserved bits are well defined.
 *
 * @param access      register-level access: RO for e.g. IA32_PERF_GLOBAL_STATUS (WRMSR #GPs),
 *                    RW when a WRMSR is accepted (field access then says what each bit does)
 * @param exists      when the register exists on a CPU; RDMSR/WRMSR elsewhere #GP
 * @param source      the SDM section/table and kernel file the facts come from
 */
public record MsrDef(String name, long address, List<MsrField> fields, Access access, Condition exists,
                     String description, String source) {

    public MsrDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(exists, "exists");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(source, "source");
        fields = List.copyOf(fields);
        if (address < 0 || address > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(name + ": MSR address " + Long.toHexString(address) + " is not 32-bit");
        }
        long seen = 0;
        for (MsrField f : fields) {
            if ((seen & f.mask()) != 0) {
                throw new IllegalArgumentException(name + ": field " + f.name() + " " + f.bitsText()
                        + " overlaps another field");
            }
            seen |= f.mask();
        }
        for (int i = 0; i < fields.size(); i++) {
            for (int j = i + 1; j < fields.size(); j++) {
                if (fields.get(i).name().equalsIgnoreCase(fields.get(j).name())) {
                    throw new IllegalArgumentException(name + ": field name " + fields.get(i).name() + " twice");
                }
            }
        }
    }

    /** The field of that name, case-insensitive. */
    public Optional<MsrField> field(String fieldName) {
        String n = fieldName.toUpperCase(Locale.ROOT);
        return fields.stream().filter(f -> f.name().toUpperCase(Locale.ROOT).equals(n)).findFirst();
    }

    /** Whether this register exists on that CPU. */
    public boolean existsOn(CpuContext ctx) {
        return exists.test(ctx);
    }

    /** The fields that exist on that CPU, in declaration order. */
    public List<MsrField> fieldsOn(CpuContext ctx) {
        return fields.stream().filter(f -> f.existsOn(ctx)).toList();
    }

    /** Bits some field covers on that CPU (implemented width, existing fields only). */
    public long definedMask(CpuContext ctx) {
        long m = 0;
        for (MsrField f : fields) {
            m |= f.mask(ctx);
        }
        return m;
    }

    /** Bits no existing field covers on that CPU: writing 1 there #GPs (SDM Vol. 4, "reserved"). */
    public long reservedMask(CpuContext ctx) {
        return ~definedMask(ctx);
    }

    /** Bits of existing read-only fields on that CPU. */
    public long readOnlyMask(CpuContext ctx) {
        long m = 0;
        for (MsrField f : fields) {
            if (f.access() == Access.RO) {
                m |= f.mask(ctx);
            }
        }
        return m;
    }

    /** "IA32_DEBUGCTL (1D9H)". */
    public String label() {
        return name + " (" + Long.toHexString(address).toUpperCase(Locale.ROOT) + "H)";
    }
}
