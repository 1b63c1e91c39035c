package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.BtsRecord;
import dev.hwtool.arch.perf.abi.PerfParseException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BtsTraceTest {

    record Branch(int pid, int tid, long from, long to, Prediction p) {
    }

    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** 24-byte {from, to, misc} records as intel_bts writes them. */
    static MemorySegment aux(long... triples) {
        MemorySegment s = Arena.ofAuto().allocate(triples.length * 8L);
        for (int i = 0; i < triples.length; i++) {
            s.setAtIndex(U64, i, triples[i]);
        }
        return s;
    }

    @Test
    void auxRecordsInOrderPaddingSkippedPredictionFromMiscBit4() {
        List<Branch> got = new ArrayList<>();
        BtsTrace t = new BtsTrace((pid, tid, from, to, p) -> got.add(new Branch(pid, tid, from, to, p)));
        t.auxtrace(10, 11, aux(0x401000, 0x401020, BtsRecord.MISC_PREDICTED,
                0, 0, 0,
                0x401020, 0x401000, 0));
        assertEquals(List.of(new Branch(10, 11, 0x401000, 0x401020, Prediction.PREDICTED),
                new Branch(10, 11, 0x401020, 0x401000, Prediction.MISPREDICTED)), got);
        assertEquals(2, t.branches());
        assertEquals(2, t.predictionKnown());
        assertEquals(1, t.mispredicted());
    }

    @Test
    void branchesEventSamplesAreIpToAddr() {
        List<Branch> got = new ArrayList<>();
        BtsTrace t = new BtsTrace((pid, tid, from, to, p) -> got.add(new Branch(pid, tid, from, to, p)));
        t.sample(Fixtures.sample(5, 0x1000, 0x2000, Optional.empty()));
        t.sample(Fixtures.sample(5, 0x2008, 0x1005, Optional.empty()));
        assertEquals(List.of(new Branch(5, 5, 0x1000, 0x2000, Prediction.UNKNOWN),
                new Branch(5, 5, 0x2008, 0x1005, Prediction.UNKNOWN)), got);
        assertEquals(0, t.predictionKnown());
    }

    @Test
    void aPartialRecordIsAnError() {
        BtsTrace t = new BtsTrace((pid, tid, from, to, p) -> { });
        MemorySegment s = Arena.ofAuto().allocate(30);
        assertThrows(PerfParseException.class, () -> t.auxtrace(1, 1, s));
    }
}
