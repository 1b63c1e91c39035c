package dev.hwtool.arch.msr;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Properties over the whole catalog and every logical CPU of the shipped dumps. */
class MsrPropertiesTest {

    private static final Map<String, CpuContext> CPUS = ShippedCpus.all();

    record Case(String cpu, CpuContext ctx, MsrDef def) {
        @Override
        public String toString() {
            return def.name() + " on " + cpu;
        }
    }

    @Provide
    Arbitrary<Case> registersOnCpus() {
        List<Map.Entry<String, CpuContext>> cpus = List.copyOf(CPUS.entrySet());
        return Arbitraries.of(cpus).flatMap(e -> {
            List<MsrDef> defs = MsrCatalog.forCpu(e.getValue());
            return Arbitraries.of(defs).map(d -> new Case(e.getKey(), e.getValue(), d));
        });
    }

    @Provide
    Arbitrary<Case> anyRegisterAnyCpu() {
        return Arbitraries.of(List.copyOf(CPUS.entrySet())).flatMap(e ->
                Arbitraries.of(MsrCatalog.all()).map(d -> new Case(e.getKey(), e.getValue(), d)));
    }

    @Property(tries = 2000)
    void decodedFieldsAndReservedBitsReassembleTheValue(@ForAll("registersOnCpus") Case c, @ForAll long value) {
        List<DecodedField> fields = MsrDecoder.decode(c.def(), value, c.ctx());
        long back = 0;
        long covered = 0;
        for (DecodedField f : fields) {
            long m = MsrField.mask(f.hi(), f.lo());
            assertEquals(0, covered & m, c + ": " + f.name() + " overlaps an earlier entry");
            assertEquals(0, f.inPlace() & ~m, c + ": " + f.name() + " value exceeds its bits");
            covered |= m;
            back |= f.inPlace();
        }
        assertEquals(value, back, c.toString());
        long reservedSet = fields.stream().filter(DecodedField::reserved).mapToLong(DecodedField::inPlace)
                .reduce(0, (a, b) -> a | b);
        assertEquals(value & c.def().reservedMask(c.ctx()), reservedSet, c.toString());
    }

    @Property(tries = 300)
    void noFieldOverlapsAnotherAndImplementedBitsStayWithinTheDeclaredOnes(@ForAll("anyRegisterAnyCpu") Case c) {
        List<MsrField> fs = c.def().fields();
        for (int i = 0; i < fs.size(); i++) {
            for (int j = i + 1; j < fs.size(); j++) {
                boolean disjoint = fs.get(i).hi() < fs.get(j).lo() || fs.get(j).hi() < fs.get(i).lo();
                assertTrue(disjoint, c.def().name() + ": " + fs.get(i).name() + " overlaps " + fs.get(j).name());
            }
            MsrField f = fs.get(i);
            assertEquals(0, f.mask(c.ctx()) & ~f.mask(), c + "." + f.name());
        }
        assertEquals(c.def().definedMask(c.ctx()), ~c.def().reservedMask(c.ctx()));
    }

    @Property(tries = 1000)
    void writingAFieldChangesOnlyItsBits(@ForAll("registersOnCpus") Case c, @ForAll long old, @ForAll long raw) {
        for (MsrField f : c.def().fieldsOn(c.ctx())) {
            long fieldValue = f.bits() == 64 ? raw : raw & ((1L << f.bits()) - 1);
            long next = MsrFieldWrite.apply(c.def(), f, old, fieldValue);
            assertEquals(old & ~f.mask(), next & ~f.mask(), c + "." + f.name());
            assertEquals(fieldValue, f.extract(next), c + "." + f.name());
        }
    }

    @Property(tries = 1000)
    void aValueBuiltFromExistingWritableFieldsPassesTheWriteCheck(@ForAll("registersOnCpus") Case c,
                                                                   @ForAll long value) {
        long legal = value & c.def().definedMask(c.ctx());
        List<Violation> v = WriteCheck.check(c.def(), legal, legal, c.ctx());
        if (c.def().access() == Access.RO) {
            assertEquals(List.of(Violation.Kind.READ_ONLY_REGISTER), v.stream().map(Violation::kind).toList());
        } else {
            assertEquals(List.of(), v, c.toString());
        }
        if ((value & c.def().reservedMask(c.ctx())) != 0 && c.def().access() != Access.RO) {
            assertEquals(Violation.Kind.RESERVED_BITS, WriteCheck.check(c.def(), value, c.ctx()).get(0).kind());
        }
    }
}
