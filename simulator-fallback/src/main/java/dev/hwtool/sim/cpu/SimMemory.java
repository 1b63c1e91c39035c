package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.HashMap;
import java.util.Map;

/**
 * The simulated machine's memory, shared by its CPUs: a sparse, little-endian, 64-bit linear
 * address space in 4 KiB pages. The simulator <em>chooses</em> that every address exists and
 * that bytes never written read as 0 — no paging is modelled; the SDM asks the OS to keep DS
 * pages present (Vol. 3B 17.4.9.2), and in the simulator they always are.
 *
 * <p>Pages are created on first write, up to {@link #MAX_PAGES}; reading an untouched page
 * allocates nothing. The last page touched is cached, so the sequential 8-byte accesses of
 * the BTS unit and the DS interrupt routine do not hash. Not thread-safe: a machine is driven
 * by one thread at a time.
 */
public final class SimMemory {

    public static final int PAGE_SHIFT = 12;
    public static final int PAGE_SIZE = 1 << PAGE_SHIFT;
    private static final int WORDS = PAGE_SIZE / Long.BYTES;
    /** 256 MiB of touched pages: far beyond any DS area, small enough never to exhaust the JVM. */
    public static final int MAX_PAGES = 65_536;

    private final Map<Long, long[]> pages = new HashMap<>();
    private long cachedPage = -1;
    private long[] cachedWords;

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
        if ((address & 7) == 0) {
            page(address >>> PAGE_SHIFT, true)[(int) (address & (PAGE_SIZE - 1)) >>> 3] = value;
            return;
        }
        for (int i = 0; i < 8; i++) {
            write8(address + i, (int) (value >>> (8 * i)));
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
        long[] p = page(address >>> PAGE_SHIFT, true);
        int off = (int) (address & (PAGE_SIZE - 1));
        int shift = (off & 7) * 8;
        p[off >>> 3] = p[off >>> 3] & ~(0xFFL << shift) | (long) (value & 0xFF) << shift;
    }

    /** Pages written so far. */
    public int pagesInUse() {
        return pages.size();
    }

    private long[] page(long number, boolean create) {
        if (number == cachedPage) {
            return cachedWords;
        }
        long[] p = pages.get(number);
        if (p == null) {
            if (!create) {
                return null;
            }
            if (pages.size() >= MAX_PAGES) {
                throw new HwException(Cause.BAD_INPUT, "simulated memory is limited to " + MAX_PAGES
                        + " touched pages (" + (MAX_PAGES / 256) + " MiB); write at 0x"
                        + Long.toHexString(number << PAGE_SHIFT) + " refused");
            }
            p = new long[WORDS];
            pages.put(number, p);
        }
        cachedPage = number;
        cachedWords = p;
        return p;
    }
}
