package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.LbrFormat;

import java.util.Arrays;

/**
 * The storage both LBR stacks share: FROM/TO/INFO slots used as a ring of {@code depth}
 * entries, the slot of the most recent entry ({@link #head}: the legacy stack's
 * MSR_LASTBRANCH_TOS), and the cycle of the last record, from which each entry's cycle count
 * is taken. What a stack stores in the slots, and which branches it records, is the stack's.
 */
final class LbrRing {

    final long[] from;
    final long[] to;
    final long[] info;
    private int depth;
    int head;
    private long lastRecordCycle;
    private long records;

    LbrRing(int capacity, int depth) {
        this.from = new long[capacity];
        this.to = new long[capacity];
        this.info = new long[capacity];
        this.depth = depth;
    }

    int depth() {
        return depth;
    }

    /** A new depth, every entry cleared and the head back at slot 0. */
    void reset(int newDepth) {
        depth = newDepth;
        head = 0;
        Arrays.fill(from, 0);
        Arrays.fill(to, 0);
        Arrays.fill(info, 0);
    }

    /** Cycles since the previous record, saturating at the 16-bit count the formats store; now becomes the previous record. */
    int cyclesSinceLastRecord(long cycleNow) {
        int cycles = (int) Math.min(cycleNow - lastRecordCycle, LbrFormat.CYCLES_MAX);
        lastRecordCycle = cycleNow;
        return cycles;
    }

    /** The head moves to the next slot first (TOS is incremented before the write), then the entry is written there. */
    void push(long fromValue, long toValue, long infoValue) {
        int i = head + 1 == depth ? 0 : head + 1;
        head = i;
        from[i] = fromValue;
        to[i] = toValue;
        info[i] = infoValue;
        records++;
    }

    /** Call-stack mode's return: the most recent entry is cleared and the head moves back. */
    void pop() {
        from[head] = 0;
        to[head] = 0;
        info[head] = 0;
        head = head == 0 ? depth - 1 : head - 1;
    }

    /** The slot of the entry {@code position} records back (0 = most recent). */
    int slot(int position) {
        return Math.floorMod(head - position, depth);
    }

    /** Whether a slot holds nothing (never written, or popped). */
    boolean empty(int slot) {
        return from[slot] == 0 && to[slot] == 0;
    }

    /** Entries written since reset; pops do not subtract. */
    long records() {
        return records;
    }
}
