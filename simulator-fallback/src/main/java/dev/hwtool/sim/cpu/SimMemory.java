package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;


/**
 * The simulated machine's memory, shared by its CPUs: a sparse, little-endian, 64-bit linear
 * address space in 4 KiB pages. The simulator <em>chooses</em> that every address exists and
 * that bytes never written read as 0 — no paging is modelled; the SDM asks the OS to keep DS
 * pages present (Vol. 3B 17.4.9.2), and in the simulator they always are.
 *
 * <p>Pages are created on first write, up to {@link #MAX_PAGES}; reading an untouched page
 * allocates nothing. Pages are found through an open-addressing table keyed by the primitive
 * page number (no boxing) behind a small direct-mapped cache, because the BTS unit alternates
 * between the DS management area and the buffer on every branch and must not allocate.
 * Not thread-safe: a machine is driven by one thread at a time.
 */
public final class SimMemory {

    public static final int PAGE_SHIFT = 12;
    public static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int WORDS = PAGE_SIZE / Long.BYTES;
    /** 256 MiB of touched pages: far beyond any DS area, small enough never to exhaust the JVM. */
    public static final int MAX_PAGES = 65_536;

    private static final int CACHE = 8;
    private static final long NONE = -1;

    /** Open addressing, linear probing; page numbers are below 2^52, so -1 marks a free slot. */
    private long[] keys = filled(64);
    private long[][] values = new long[64][];
    private int size;
    private final long[] cacheKeys = filled(CACHE);
    private final long[][] cacheValues = new long[CACHE][];
    /** Counts writes made through the public methods, so a unit caching memory contents can tell when software changed them. */
    private long stamp;

    /** The 8 bytes at {@code address}, little-endian, any alignment. */
    public long read64(long address) {
        if ((address & 7) == 0) {
            long[] p = page(address >>> PAGE_SHIFT, false);
            return p == null ? 0 : p[(int) (address & (PAGE_SIZE - 1)) >>> 3];
        }
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | read8(address + i);
        }
        return v;
    }

    /** Stores 8 bytes at {@code address}, little-endian, any alignment. */
    public void write64(long address, long value) {
        stamp++;
        store64(address, value);
    }

    /** The write counter of the public methods; unchanged by a unit's own {@link #store64} stores. */
    long stamp() {
        return stamp;
    }

    /** A write by a unit that tracks its own effect (BTS): does not move {@link #stamp()}. */
    void store64(long address, long value) {
        if ((address & 7) == 0) {
            page(address >>> PAGE_SHIFT, true)[(int) (address & (PAGE_SIZE - 1)) >>> 3] = value;
            return;
        }
        for (int i = 0; i < 8; i++) {
            byte8(address + i, (int) (value >>> (8 * i)));
        }
    }

    /** One byte, 0..255. */
    public int read8(long address) {
        long[] p = page(address >>> PAGE_SHIFT, false);
        if (p == null) {
            return 0;
        }
        int off = (int) (address & (PAGE_SIZE - 1));
        return (int) (p[off >>> 3] >>> ((off & 7) * 8)) & 0xFF;
    }

    public void write8(long address, int value) {
        stamp++;
        byte8(address, value);
    }

    /**
     * Three 8-byte words at {@code address} (a BTS record) with one page lookup when they share
     * an aligned page, as records of a 24-byte-aligned buffer mostly do. Unit write: no stamp.
     */
    /**
     * The words of the page holding {@code address}, created as a store would create it. Pages
     * are never dropped or replaced, so a unit may keep the array and store into it directly (as
     * {@link #store64} would, without bumping the stamp).
     */
    long[] pageOf(long address) {
        return page(address >>> PAGE_SHIFT, true);
    }

    void store3x64(long address, long a, long b, long c) {
        int off = (int) (address & (PAGE_SIZE - 1));
        if ((address & 7) == 0 && off <= PAGE_SIZE - 24) {
            long[] p = page(address >>> PAGE_SHIFT, true);
            int w = off >>> 3;
            p[w] = a;
            p[w + 1] = b;
            p[w + 2] = c;
            return;
        }
        store64(address, a);
        store64(address + 8, b);
        store64(address + 16, c);
    }

    private void byte8(long address, int value) {
        long[] p = page(address >>> PAGE_SHIFT, true);
        int off = (int) (address & (PAGE_SIZE - 1));
        int shift = (off & 7) * 8;
        p[off >>> 3] = p[off >>> 3] & ~(0xFFL << shift) | (long) (value & 0xFF) << shift;
    }

    /** Pages written so far. */
    public int pagesInUse() {
        return size;
    }

    private long[] page(long number, boolean create) {
        int c = (int) number & (CACHE - 1);
        if (cacheKeys[c] == number) {
            return cacheValues[c];
        }
        long[] p = lookup(number);
        if (p == null) {
            if (!create) {
                return null;
            }
            if (size >= MAX_PAGES) {
                throw new HwException(Cause.BAD_INPUT, "simulated memory is limited to " + MAX_PAGES
                        + " touched pages (" + (MAX_PAGES / 256) + " MiB); write at 0x"
                        + Long.toHexString(number << PAGE_SHIFT) + " refused");
            }
            p = new long[WORDS];
            insert(number, p);
        }
        cacheKeys[c] = number;
        cacheValues[c] = p;
        return p;
    }

    private long[] lookup(long number) {
        int mask = keys.length - 1;
        for (int i = slot(number, mask); ; i = (i + 1) & mask) {
            if (keys[i] == number) {
                return values[i];
            }
            if (keys[i] == NONE) {
                return null;
            }
        }
    }

    private void insert(long number, long[] page) {
        if ((size + 1) * 2 > keys.length) {
            long[] oldKeys = keys;
            long[][] oldValues = values;
            keys = filled(oldKeys.length * 2);
            values = new long[keys.length][];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != NONE) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }
        int mask = keys.length - 1;
        int i = slot(number, mask);
        while (keys[i] != NONE) {
            i = (i + 1) & mask;
        }
        keys[i] = number;
        values[i] = page;
        size++;
    }

    private static int slot(long number, int mask) {
        long h = number * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h >>> 40) & mask;
    }

    private static long[] filled(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, NONE);
        return a;
    }
}
