package dev.hwtool.arch.msr;

/** Short constructors for the catalog's field tables. */
final class Fields {

    private Fields() {
    }

    static MsrField bit(int bit, String name, Access access, Condition when, String description) {
        return new MsrField(name, bit, bit, access, when, description);
    }

    static MsrField bit(int bit, String name, String description) {
        return bit(bit, name, Access.RW, Condition.ALWAYS, description);
    }

    static MsrField bits(int hi, int lo, String name, Access access, Condition when, String description) {
        return new MsrField(name, hi, lo, access, when, description);
    }

    static MsrField bits(int hi, int lo, String name, String description) {
        return bits(hi, lo, name, Access.RW, Condition.ALWAYS, description);
    }

    static MsrField sized(int hi, int lo, String name, Access access, FieldWidth width, String description) {
        return new MsrField(name, hi, lo, access, Condition.ALWAYS, description, width);
    }
}
