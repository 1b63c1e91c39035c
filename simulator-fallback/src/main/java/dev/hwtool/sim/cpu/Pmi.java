package dev.hwtool.sim.cpu;

/**
 * One performance-monitoring interrupt taken by a simulated CPU.
 *
 * @param sequence     1 for the CPU's first PMI, then 2, 3, …
 * @param instruction  instructions retired on the CPU when it was taken (the causing one included)
 * @param overflowed   IA32_PERF_GLOBAL_STATUS-numbered bits of the counters whose overflow asked for it
 * @param btsThreshold whether the BTS index reaching its interrupt threshold asked for it
 * @param pebsThreshold whether the PEBS index reaching its interrupt threshold asked for it (OvfBuffer set)
 * @param froze        what the freeze controls did: "none", "legacy" (cleared IA32_DEBUGCTL.LBR
 *                     and/or IA32_PERF_GLOBAL_CTRL) or "streamlined" (set LBR_FRZ and/or CTR_FRZ)
 */
public record Pmi(long sequence, long instruction, long overflowed, boolean btsThreshold, boolean pebsThreshold,
                  String froze) {
}
