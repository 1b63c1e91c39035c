package dev.hwtool.sim.cpu;

import java.util.Objects;

/**
 * One performance-monitoring interrupt taken by a simulated CPU.
 *
 * <p>A value with a record's accessors, equality and string form, but not a record: the CPU keeps
 * its last {@link LogicalProcessor#PMI_LOG} PMIs in slots it fills again (so that taking a PMI
 * allocates nothing), and the instance a {@link PmiHandler} receives is such a slot — valid
 * during that call; {@link #copy()} keeps one. {@link LogicalProcessor#pmis()} returns copies.
 *
 * <ul>
 * <li>{@code sequence}: 1 for the CPU's first PMI, then 2, 3, …
 * <li>{@code instruction}: instructions retired on the CPU when it was taken (the causing one included)
 * <li>{@code overflowed}: IA32_PERF_GLOBAL_STATUS-numbered bits of the counters whose overflow asked for it
 * <li>{@code btsThreshold}: whether the BTS index reaching its interrupt threshold asked for it
 * <li>{@code pebsThreshold}: whether the PEBS index reaching its interrupt threshold asked for it (OvfBuffer set)
 * <li>{@code froze}: what the freeze controls did: "none", "legacy" (cleared IA32_DEBUGCTL.LBR
 *     and/or IA32_PERF_GLOBAL_CTRL) or "streamlined" (set LBR_FRZ and/or CTR_FRZ)
 * </ul>
 */
public final class Pmi {

    private long sequence;
    private long instruction;
    private long overflowed;
    private boolean btsThreshold;
    private boolean pebsThreshold;
    private String froze;

    Pmi(long sequence, long instruction, long overflowed, boolean btsThreshold, boolean pebsThreshold, String froze) {
        set(sequence, instruction, overflowed, btsThreshold, pebsThreshold, froze);
    }

    /** Refills a log slot with the next PMI. */
    void set(long seq, long instr, long ovf, boolean bts, boolean pebs, String frz) {
        this.sequence = seq;
        this.instruction = instr;
        this.overflowed = ovf;
        this.btsThreshold = bts;
        this.pebsThreshold = pebs;
        this.froze = Objects.requireNonNull(frz, "froze");
    }

    /** A copy that keeps these values after the CPU reuses this slot. */
    public Pmi copy() {
        return new Pmi(sequence, instruction, overflowed, btsThreshold, pebsThreshold, froze);
    }

    public long sequence() {
        return sequence;
    }

    public long instruction() {
        return instruction;
    }

    public long overflowed() {
        return overflowed;
    }

    public boolean btsThreshold() {
        return btsThreshold;
    }

    public boolean pebsThreshold() {
        return pebsThreshold;
    }

    public String froze() {
        return froze;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Pmi p && p.sequence == sequence && p.instruction == instruction
                && p.overflowed == overflowed && p.btsThreshold == btsThreshold && p.pebsThreshold == pebsThreshold
                && p.froze.equals(froze);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, instruction, overflowed, btsThreshold, pebsThreshold, froze);
    }

    @Override
    public String toString() {
        return "Pmi[sequence=" + sequence + ", instruction=" + instruction + ", overflowed=" + overflowed
                + ", btsThreshold=" + btsThreshold + ", pebsThreshold=" + pebsThreshold + ", froze=" + froze + "]";
    }
}
