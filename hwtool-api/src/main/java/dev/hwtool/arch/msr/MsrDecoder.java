package dev.hwtool.arch.msr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Splits a register value into the fields that exist on one CPU, plus any set reserved bits. */
public final class MsrDecoder {

    private MsrDecoder() {
    }

    /**
     * The existing fields of {@code def} on that CPU (implemented width), ordered by bit position,
     * and one {@link DecodedField#RESERVED} entry per run of contiguous set reserved bits. OR-ing
     * every entry's {@link DecodedField#inPlace()} gives {@code value} back.
     */
    public static List<DecodedField> decode(MsrDef def, long value, CpuContext ctx) {
        List<DecodedField> out = new ArrayList<>();
        for (MsrField f : def.fields()) {
            if (!f.existsOn(ctx)) {
                continue;
            }
            int hi = f.hi(ctx);
            long v = (value & MsrField.mask(hi, f.lo())) >>> f.lo();
            out.add(new DecodedField(f.name(), hi, f.lo(), v, f.access(), f.description()));
        }
        long reserved = value & def.reservedMask(ctx);
        while (reserved != 0) {
            int lo = Long.numberOfTrailingZeros(reserved);
            int hi = lo;
            while (hi < 63 && ((reserved >>> (hi + 1)) & 1) != 0) {
                hi++;
            }
            long run = MsrField.mask(hi, lo);
            out.add(new DecodedField(DecodedField.RESERVED, hi, lo, (reserved & run) >>> lo, Access.RO,
                    "reserved bits set on this CPU (writing them #GPs)"));
            reserved &= ~run;
        }
        out.sort(Comparator.comparingInt(DecodedField::lo));
        return List.copyOf(out);
    }
}
