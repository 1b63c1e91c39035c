package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;

/** Test set-ups shared by the unit tests of the simulated CPU. */
final class Machines {

    static final long DS = 0x10_0000;
    static final long BUF = 0x20_0000;
    static final long R = DsSaveArea.BTS_RECORD_SIZE;

    private Machines() {
    }

    static LogicalProcessor cpu(String profile) {
        return new SimulatedPlatform(Profiles.resolve(profile)).machine().cpus().getFirst();
    }

    static long msr(String name) {
        return MsrCatalog.byName(name).map(MsrDef::address).orElseThrow();
    }

    /** A DS area at {@link #DS} with a BTS buffer of {@code records} records at {@link #BUF}. */
    static void btsBuffer(LogicalProcessor cpu, long records, long thresholdRecords) {
        SimMemory m = cpu.memory();
        m.write64(DS + DsSaveArea.BTS_BUFFER_BASE, BUF);
        m.write64(DS + DsSaveArea.BTS_INDEX, BUF);
        m.write64(DS + DsSaveArea.BTS_ABSOLUTE_MAXIMUM, BUF + records * R);
        m.write64(DS + DsSaveArea.BTS_INTERRUPT_THRESHOLD, BUF + thresholdRecords * R);
        cpu.wrmsr(msr("IA32_DS_AREA"), DS);
    }

    static long btsIndex(LogicalProcessor cpu) {
        return cpu.memory().read64(DS + DsSaveArea.BTS_INDEX);
    }
}
