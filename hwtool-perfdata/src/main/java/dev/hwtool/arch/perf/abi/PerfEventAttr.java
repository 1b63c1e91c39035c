package dev.hwtool.arch.perf.abi;

import java.util.EnumSet;
import java.util.Set;

/**
 * An immutable {@code struct perf_event_attr}: one value per {@link PerfAttrField}, encoded by
 * {@link #encode(int)} into the kernel's little-endian byte layout. The size field is not part of
 * the value: it is whatever size the attr is encoded at ({@link #size()} is the default).
 */
public final class PerfEventAttr {

    public static final int SIZE_VER0 = 64;
    public static final int SIZE_VER1 = 72;
    public static final int SIZE_VER2 = 80;
    public static final int SIZE_VER3 = 96;
    public static final int SIZE_VER4 = 104;
    public static final int SIZE_VER5 = 112;
    public static final int SIZE_VER6 = 120;
    public static final int SIZE_VER7 = 128;
    public static final int SIZE_VER8 = 136;
    /** Proposed (config4), see {@link PerfAttrField#CONFIG4}. */
    public static final int SIZE_VER9 = 144;
    /** perf_copy_attr refuses sizes above PAGE_SIZE with E2BIG (and writes its own size back). */
    public static final int SIZE_MAX = 4096;
    /**
     * What {@link #encode(int)} accepts: up to two pages, so that an oversized attr can reach the
     * kernel's E2BIG answer and the size negotiation that follows it.
     */
    public static final int ENCODE_MAX = 2 * SIZE_MAX;

    /** aux_action bits (6.13+). */
    public static final int AUX_START_PAUSED = 1;
    public static final int AUX_PAUSE = 2;
    public static final int AUX_RESUME = 4;

    private static final PerfAttrField[] FIELDS = PerfAttrField.values();

    private final long[] values;
    private final int size;

    private PerfEventAttr(long[] values, int size) {
        this.values = values;
        this.size = size;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this attr's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        System.arraycopy(values, 0, b.values, 0, values.length);
        b.size = size;
        return b;
    }

    /** The raw value of one field (the size field reads as {@link #size()}). */
    public long get(PerfAttrField f) {
        return f == PerfAttrField.SIZE ? size : values[f.ordinal()];
    }

    public int type() {
        return (int) get(PerfAttrField.TYPE);
    }

    /** The size this attr is encoded at unless told otherwise; default {@link #SIZE_VER8}. */
    public int size() {
        return size;
    }

    public long config() {
        return get(PerfAttrField.CONFIG);
    }

    /** sample_period, or sample_freq when {@link PerfAttrFlag#FREQ} is set (a union). */
    public long samplePeriod() {
        return get(PerfAttrField.SAMPLE_PERIOD);
    }

    public long sampleType() {
        return get(PerfAttrField.SAMPLE_TYPE);
    }

    public long readFormat() {
        return get(PerfAttrField.READ_FORMAT);
    }

    public long flags() {
        return get(PerfAttrField.FLAGS);
    }

    public boolean has(PerfAttrFlag f) {
        return (flags() & f.mask()) != 0;
    }

    public Set<PerfAttrFlag> flagSet() {
        EnumSet<PerfAttrFlag> s = EnumSet.noneOf(PerfAttrFlag.class);
        for (PerfAttrFlag f : PerfAttrFlag.values()) {
            if (has(f)) {
                s.add(f);
            }
        }
        return s;
    }

    public int preciseIp() {
        return (int) ((flags() & PerfAttrFlag.PRECISE_IP_MASK) >>> PerfAttrFlag.PRECISE_IP_SHIFT);
    }

    public long branchSampleType() {
        return get(PerfAttrField.BRANCH_SAMPLE_TYPE);
    }

    public long sampleRegsUser() {
        return get(PerfAttrField.SAMPLE_REGS_USER);
    }

    public long sampleRegsIntr() {
        return get(PerfAttrField.SAMPLE_REGS_INTR);
    }

    /**
     * The smallest PERF_ATTR_SIZE_VERn that holds every non-zero field: encoding at less would
     * drop a setting, so {@link #encode(int)} refuses it.
     */
    public int minimumSize() {
        int min = SIZE_VER0;
        for (PerfAttrField f : FIELDS) {
            if (values[f.ordinal()] != 0) {
                min = Math.max(min, versionEnd(f.end()));
            }
        }
        return min;
    }

    /** Sizes grow in 8-byte steps (the VERn sizes); a field ending inside one needs all of it. */
    private static int versionEnd(int end) {
        return (end + 7) / 8 * 8;
    }

    /** {@link #encode(int)} at {@link #size()}. */
    public byte[] encode() {
        return encode(size);
    }

    /**
     * The attr as the kernel reads it: {@code size} bytes, little-endian, the size field set to
     * {@code size}; bytes past the last known field are zero (the kernel accepts a zero tail).
     *
     * @throws IllegalArgumentException when {@code size} is below {@link #SIZE_VER0}, above
     *                                  {@link #ENCODE_MAX}, or too small for a field that is set
     */
    public byte[] encode(int size) {
        if (size < SIZE_VER0 || size > ENCODE_MAX) {
            throw new IllegalArgumentException("perf_event_attr size " + size + " outside " + SIZE_VER0 + ".." + ENCODE_MAX);
        }
        if (size < minimumSize()) {
            throw new IllegalArgumentException("perf_event_attr size " + size + " cannot hold the fields set here (needs "
                    + minimumSize() + ")");
        }
        byte[] out = new byte[size];
        for (PerfAttrField f : FIELDS) {
            if (f.end() > size) {
                break;
            }
            long v = f == PerfAttrField.SIZE ? size : values[f.ordinal()];
            for (int i = 0; i < f.width(); i++) {
                out[f.offset() + i] = (byte) (v >>> (8 * i));
            }
        }
        return out;
    }

    /** Decodes the fields that fit in {@code bytes} (little-endian), e.g. an attr the kernel wrote back. */
    public static PerfEventAttr decode(byte[] bytes) {
        long[] values = new long[FIELDS.length];
        int size = SIZE_VER8;
        for (PerfAttrField f : FIELDS) {
            if (f.end() > bytes.length) {
                break;
            }
            long v = 0;
            for (int i = f.width() - 1; i >= 0; i--) {
                v = v << 8 | (bytes[f.offset() + i] & 0xFF);
            }
            if (f == PerfAttrField.CLOCKID) {
                v = (int) v;
            }
            if (f == PerfAttrField.SIZE) {
                size = (int) v;
            } else {
                values[f.ordinal()] = v;
            }
        }
        return new PerfEventAttr(values, size);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PerfEventAttr a && a.size == size && java.util.Arrays.equals(a.values, values);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(values) * 31 + size;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("perf_event_attr{size=").append(size);
        for (PerfAttrField f : FIELDS) {
            long v = values[f.ordinal()];
            if (v != 0 && f != PerfAttrField.SIZE) {
                s.append(", ").append(f.name().toLowerCase(java.util.Locale.ROOT)).append("=0x").append(Long.toHexString(v));
            }
        }
        return s.append('}').toString();
    }

    /** Typed setters, named as the kernel's members; unions have one setter per member. */
    public static final class Builder {
        private final long[] values = new long[FIELDS.length];
        private int size = SIZE_VER8;

        private Builder() {
        }

        private Builder put(PerfAttrField f, long v) {
            values[f.ordinal()] = v;
            return this;
        }

        private static long unsigned(String name, long v, int bits) {
            if (bits < 64 && (v >>> bits) != 0) {
                throw new IllegalArgumentException(name + " 0x" + Long.toHexString(v) + " does not fit in " + bits + " bits");
            }
            return v;
        }

        public Builder type(int type) {
            return put(PerfAttrField.TYPE, Integer.toUnsignedLong(type));
        }

        /** The size to encode at by default (PERF_ATTR_SIZE_VERn, or larger with a zero tail). */
        public Builder size(int size) {
            if (size < SIZE_VER0 || size > ENCODE_MAX) {
                throw new IllegalArgumentException("perf_event_attr size " + size + " outside " + SIZE_VER0 + ".." + ENCODE_MAX);
            }
            this.size = size;
            return this;
        }

        public Builder config(long config) {
            return put(PerfAttrField.CONFIG, config);
        }

        /** Sample every {@code period} events; clears FREQ. */
        public Builder samplePeriod(long period) {
            set(PerfAttrFlag.FREQ, false);
            return put(PerfAttrField.SAMPLE_PERIOD, period);
        }

        /** Sample {@code hz} times a second (the kernel adapts the period); sets FREQ. */
        public Builder sampleFreq(long hz) {
            set(PerfAttrFlag.FREQ, true);
            return put(PerfAttrField.SAMPLE_PERIOD, hz);
        }

        public Builder sampleType(long bits) {
            return put(PerfAttrField.SAMPLE_TYPE, bits);
        }

        public Builder readFormat(long bits) {
            return put(PerfAttrField.READ_FORMAT, bits);
        }

        public Builder flag(PerfAttrFlag... flags) {
            for (PerfAttrFlag f : flags) {
                set(f, true);
            }
            return this;
        }

        public Builder set(PerfAttrFlag f, boolean on) {
            long w = values[PerfAttrField.FLAGS.ordinal()];
            return put(PerfAttrField.FLAGS, on ? w | f.mask() : w & ~f.mask());
        }

        /** precise_ip 0..3 (skid constraint: 0 arbitrary ... 3 must have 0 skid). */
        public Builder preciseIp(int level) {
            if (level < 0 || level > 3) {
                throw new IllegalArgumentException("precise_ip " + level + " outside 0..3");
            }
            long w = values[PerfAttrField.FLAGS.ordinal()] & ~PerfAttrFlag.PRECISE_IP_MASK;
            return put(PerfAttrField.FLAGS, w | (long) level << PerfAttrFlag.PRECISE_IP_SHIFT);
        }

        /** Wake the reader every {@code n} events; clears WATERMARK. */
        public Builder wakeupEvents(int n) {
            set(PerfAttrFlag.WATERMARK, false);
            return put(PerfAttrField.WAKEUP_EVENTS, Integer.toUnsignedLong(n));
        }

        /** Wake the reader when {@code bytes} are in the ring; sets WATERMARK. */
        public Builder wakeupWatermark(int bytes) {
            set(PerfAttrFlag.WATERMARK, true);
            return put(PerfAttrField.WAKEUP_EVENTS, Integer.toUnsignedLong(bytes));
        }

        /** HW_BREAKPOINT_R 1, W 2, RW 3, X 4 (include/uapi/linux/hw_breakpoint.h). */
        public Builder bpType(int bpType) {
            return put(PerfAttrField.BP_TYPE, Integer.toUnsignedLong(bpType));
        }

        public Builder bpAddr(long addr) {
            return put(PerfAttrField.CONFIG1, addr);
        }

        public Builder bpLen(long len) {
            return put(PerfAttrField.CONFIG2, len);
        }

        public Builder config1(long v) {
            return put(PerfAttrField.CONFIG1, v);
        }

        public Builder config2(long v) {
            return put(PerfAttrField.CONFIG2, v);
        }

        public Builder branchSampleType(long bits) {
            return put(PerfAttrField.BRANCH_SAMPLE_TYPE, bits);
        }

        public Builder sampleRegsUser(long mask) {
            return put(PerfAttrField.SAMPLE_REGS_USER, mask);
        }

        public Builder sampleStackUser(int bytes) {
            return put(PerfAttrField.SAMPLE_STACK_USER, Integer.toUnsignedLong(bytes));
        }

        /** Sets the clock and USE_CLOCKID (CLOCK_MONOTONIC 1, CLOCK_MONOTONIC_RAW 4, ...). */
        public Builder clockid(int clockid) {
            set(PerfAttrFlag.USE_CLOCKID, true);
            return put(PerfAttrField.CLOCKID, clockid);
        }

        public Builder sampleRegsIntr(long mask) {
            return put(PerfAttrField.SAMPLE_REGS_INTR, mask);
        }

        public Builder auxWatermark(int bytes) {
            return put(PerfAttrField.AUX_WATERMARK, Integer.toUnsignedLong(bytes));
        }

        public Builder sampleMaxStack(int frames) {
            return put(PerfAttrField.SAMPLE_MAX_STACK, unsigned("sample_max_stack", frames, 16));
        }

        public Builder auxSampleSize(int bytes) {
            return put(PerfAttrField.AUX_SAMPLE_SIZE, Integer.toUnsignedLong(bytes));
        }

        /** {@link #AUX_START_PAUSED} | {@link #AUX_PAUSE} | {@link #AUX_RESUME} (6.13+). */
        public Builder auxAction(int bits) {
            return put(PerfAttrField.AUX_ACTION, unsigned("aux_action", bits, 3));
        }

        /** Data delivered in siginfo with SIGTRAP. */
        public Builder sigData(long v) {
            return put(PerfAttrField.SIG_DATA, v);
        }

        public Builder config3(long v) {
            return put(PerfAttrField.CONFIG3, v);
        }

        /** Proposed PERF_ATTR_SIZE_VER9 field; see {@link PerfAttrField#CONFIG4}. */
        public Builder config4(long v) {
            return put(PerfAttrField.CONFIG4, v);
        }

        public PerfEventAttr build() {
            PerfEventAttr a = new PerfEventAttr(values.clone(), size);
            if (a.minimumSize() > size) {
                throw new IllegalArgumentException("size " + size + " is too small for the fields set (needs "
                        + a.minimumSize() + ")");
            }
            return a;
        }
    }
}
