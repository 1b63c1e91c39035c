package dev.hwtool.report;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static dev.hwtool.report.Fixtures.entry;
import static dev.hwtool.report.Fixtures.lbr;
import static dev.hwtool.report.Fixtures.sample;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SampleFolderTest {

    @Test
    void withoutCallStacksEachSampleIsItsFunction() {
        SampleFolder f = new SampleFolder(FoldedStacksTest.TABLE, false);
        f.add(sample(1, 0x2010, 0, Optional.empty()));
        f.add(sample(1, 0x2080, 0, Optional.empty()));
        f.add(sample(1, 0x1004, 0, Optional.empty()));
        f.add(sample(1, 0x9000, 0, Optional.empty()));
        // a branch stack of another filter is not a call stack: still the IP's function only
        f.add(lbr(1, 0x3010, entry(0x2020, 0x3000)));
        // an address no symbol holds: its report row's name, as perf report prints it
        assertEquals("0x0000000000009000 1\nf 2\ng 1\nmain 1\n", f.stacks().text());
        assertFalse(f.callStacks());
        assertEquals(5, f.samples());
    }

    @Test
    void withCallStacksEachSampleIsItsStackAndOneWithoutIsItsFunction() {
        SampleFolder f = new SampleFolder(FoldedStacksTest.TABLE, true);
        f.add(lbr(1, 0x3010, entry(0x2020, 0x3000), entry(0x1010, 0x2000)));
        f.add(sample(1, 0x2010, 0, Optional.empty()));
        assertEquals("f 1\nmain;f;g 1\n", f.stacks().text());
        assertTrue(f.callStacks());
        assertEquals(f.samples(), f.stacks().total(), "every sample counted once");
    }
}
