package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;

/**
 * What the driver learns of the program's code, as the kernel learns it by decoding the
 * instruction at a branch's source (arch/x86/events/utils.c branch_type, used by lbr.c to classify
 * legacy LBR entries, which store no type): the kind and privilege level of the branch at each
 * source address the workload retired. An open-addressing table keyed by the primitive address, so
 * recording a branch allocates nothing once the program's branch sites are known.
 */
final class ProgramText {

    private static final long FREE = 0;
    private long[] keys = new long[1024];
    private byte[] kinds = new byte[1024];
    private boolean zeroSeen;
    private byte zeroKind;
    private int size;

    /** Notes the branch at {@code from} (the last one seen at an address wins). */
    void note(long from, BranchType type, int cpl) {
        byte k = (byte) (type.ordinal() << 2 | cpl);
        if (from == FREE) {
            zeroSeen = true;
            zeroKind = k;
            return;
        }
        int mask = keys.length - 1;
        int i = slot(from, mask);
        while (keys[i] != FREE) {
            if (keys[i] == from) {
                kinds[i] = k;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = from;
        kinds[i] = k;
        if (++size * 2 > keys.length) {
            grow();
        }
    }

    /** The type of the branch at {@code from}, or null when none was retired there. */
    BranchType type(long from) {
        int k = kind(from);
        return k < 0 ? null : BranchType.values()[k >>> 2];
    }

    /** The CPL of the branch at {@code from}, or -1. */
    int cpl(long from) {
        int k = kind(from);
        return k < 0 ? -1 : k & 3;
    }

    private int kind(long from) {
        if (from == FREE) {
            return zeroSeen ? zeroKind : -1;
        }
        int mask = keys.length - 1;
        int i = slot(from, mask);
        while (keys[i] != FREE) {
            if (keys[i] == from) {
                return kinds[i];
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 40) & mask;
    }

    private void grow() {
        long[] oldKeys = keys;
        byte[] oldKinds = kinds;
        keys = new long[oldKeys.length * 2];
        kinds = new byte[oldKeys.length * 2];
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != FREE) {
                int i = slot(oldKeys[j], mask);
                while (keys[i] != FREE) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                kinds[i] = oldKinds[j];
            }
        }
    }
}
