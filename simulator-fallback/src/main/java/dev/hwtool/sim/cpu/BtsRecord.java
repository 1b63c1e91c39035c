package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;

/** One 64-bit BTS record as stored in the BTS buffer (SDM Vol. 3B 17.4.9). */
public record BtsRecord(long from, long to, long flags) {
    /** Flags bit 4; always false on profiles without the bit (Core, Bonnell/Saltwell). */
    public boolean predicted() {
        return (flags & DsSaveArea.BTS_FLAG_PREDICTED) != 0;
    }
}
