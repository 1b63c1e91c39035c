package dev.hwtool.sim.workload;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PredictorsTest {

    @Test
    void twoBitCounterStartsWeaklyNotTakenAndSaturates() {
        TwoBitCounters c = new TwoBitCounters(2);
        assertFalse(c.update(0, false), "weakly not taken predicts not taken");
        assertTrue(c.update(0, true));
        assertTrue(c.update(0, true), "0 -> 1: still predicts not taken");
        assertFalse(c.update(0, true), "2: predicts taken");
        assertFalse(c.update(0, true));
        assertTrue(c.update(0, false), "3 -> 2: one not-taken does not flip it");
        assertFalse(c.update(0, true));
        assertTrue(c.update(1, true), "sites are independent");
    }

    @Test
    void returnStackBufferKeepsTheNewestSixteen() {
        ReturnStackBuffer rsb = new ReturnStackBuffer();
        for (long a = 1; a <= 20; a++) {
            rsb.push(a);
        }
        for (long a = 20; a > 4; a--) {
            assertFalse(rsb.mispredicted(a), "return to " + a);
        }
        assertTrue(rsb.mispredicted(4), "the oldest were overwritten: empty");
        rsb.push(7);
        assertTrue(rsb.mispredicted(8), "wrong target");
    }
}
