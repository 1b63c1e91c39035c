package dev.hwtool.examples;

import dev.hwtool.api.Platform;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.sim.SimulatedPlatform;

/**
 * Task 2: set IA32_DEBUGCTL.LBR on CPU 2, carefully: catalog checks, journal, read-back, undo.
 * On a simulated Skylake, whose journal is its own (deleted when it closes); {@code Platform.open()}
 * instead writes this machine's CPU 2 (as root), journaled where {@code hwtool msr restore --last}
 * finds it.
 */
public final class SetLbrCarefully {
    public static void main(String[] args) {
        try (Platform p = SimulatedPlatform.of("skylake")) {       // Platform.open(): this machine (root)
            WriteResult r = p.msr().write(WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1));
            r.writes().forEach(System.out::println);    // CPU 2 IA32_DEBUGCTL 0x000001d9: 0x…0 -> 0x…1 verified
            p.msr().write(WriteRequest.undo(r)).writes().forEach(System.out::println);  // in r's journal
        }
    }
}
