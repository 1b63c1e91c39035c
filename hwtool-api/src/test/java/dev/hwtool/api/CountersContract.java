package dev.hwtool.api;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link Platform#counters} must do on every backend, reached through the façade only:
 * count the caller's region between {@code start()} and {@code stop()}, say whether the counts are
 * simulated, agree with {@link Platform#capabilities()} on whether hardware events can be counted,
 * and never pass off an event it cannot count as a zero. Each backend runs it by subclassing (as
 * {@link RecorderContract}): the hardware backend on this machine's kernel, the simulator on its
 * profiles.
 */
public abstract class CountersContract {

    private final List<Platform> opened = new ArrayList<>();

    /** A fresh platform of the backend under test, through {@code Platform.open} or {@code SimulatedPlatform.of}. */
    protected abstract Platform open();

    /**
     * Runs a region of the caller's code that {@link #countedEvent()} counts, {@code size} times
     * as much for a bigger {@code size} (hardware: CPU time on this thread; simulator: instructions
     * retired on the simulated CPU).
     */
    protected abstract void region(Platform p, int size);

    /** An event this backend counts here whatever the hardware (hardware: a software event). */
    protected abstract String countedEvent();

    /** An event this backend can never count (a cause, not a zero, must come back). */
    protected abstract String neverCountedEvent();

    protected final Platform platform() {
        Platform p = open();
        opened.add(p);
        return p;
    }

    @AfterEach
    void closePlatforms() {
        opened.forEach(Platform::close);
    }

    @Test
    void theEventsComeBackAsAskedInOrder() {
        Platform p = platform();
        try (Counters c = p.counters(countedEvent(), "instructions", neverCountedEvent())) {
            assertEquals(List.of(countedEvent(), "instructions", neverCountedEvent()), c.events());
            c.start();
            region(p, 1);
            Counts n = c.stop();
            assertEquals(c.events(), n.counts().stream().map(Count::event).toList());
            assertEquals(p.kind() == Platform.Kind.SIMULATED, n.simulated(), "labelled as what it is: " + p.description());
        }
    }

    @Test
    void aRegionIsCountedAndABiggerOneCountsMore() {
        Platform p = platform();
        try (Counters c = p.counters(countedEvent())) {
            c.start();
            region(p, 1);
            long small = c.stop().value(countedEvent());
            c.start();
            region(p, 4);
            long big = c.stop().value(countedEvent());
            assertTrue(small > 0, "the region was counted: " + small);
            assertTrue(big > small, "start() resets, and four times the region counts more: " + small + " then " + big);
        }
    }

    @Test
    void readDoesNotStopCounting() {
        Platform p = platform();
        try (Counters c = p.counters(countedEvent())) {
            c.start();
            region(p, 1);
            long before = c.read().value(countedEvent());
            region(p, 1);
            long after = c.stop().value(countedEvent());
            assertTrue(before > 0 && after > before, "still counting after read(): " + before + " then " + after);
        }
    }

    @Test
    void hardwareEventsAreCountedExactlyWhereTheVerdictSaysSo() {
        Platform p = platform();
        Verdict v = p.capabilities().verdict(Facility.HW_COUNTERS);
        try (Counters c = p.counters("instructions")) {
            c.start();
            region(p, 1);
            Count ins = c.stop().get("instructions");
            assertEquals(v.usable(), ins.supported(), "counters and capabilities agree: " + ins + " / " + v);
            if (ins.supported()) {
                assertTrue(ins.value() > 0, ins.toString());
            } else {
                HwException e = assertThrows(HwException.class, ins::value);
                assertEquals(v.cause().orElseThrow(), e.cause(), "the verdict's cause: " + e.getMessage());
            }
        }
    }

    @Test
    void anEventThatCannotBeCountedComesWithItsCauseNeverAsZero() {
        Platform p = platform();
        try (Counters c = p.counters(neverCountedEvent(), countedEvent())) {
            c.start();
            region(p, 1);
            Counts n = c.stop();
            Count never = n.get(neverCountedEvent());
            assertFalse(never.supported(), never.toString());
            HwException e = assertThrows(HwException.class, never::value);
            assertTrue(e.getMessage().startsWith(neverCountedEvent() + ": "), e.getMessage());
            assertTrue(never.scaled().isEmpty());
            assertTrue(n.value(countedEvent()) > 0, "the other events still count: " + n);
        }
    }

    @Test
    void aNameThatDoesNotParseIsBadInput() {
        Platform p = platform();
        HwException e = assertThrows(HwException.class, () -> p.counters("no-such-event"));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().contains("no-such-event"), e.getMessage());
    }

    @Test
    void stopWithoutStartIsAnErrorNotZeros() {
        Platform p = platform();
        try (Counters c = p.counters(countedEvent())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, c::stop);
            assertTrue(e.getMessage().startsWith("stop() before start()"), e.getMessage());
            assertThrows(IllegalStateException.class, c::read);
        }
    }

    @Test
    void countersTakenBeforeCloseRefuseAfterIt() {
        Platform p = platform();
        Counters c = p.counters(countedEvent());
        c.start();
        p.close();
        HwException e = assertThrows(HwException.class, c::stop);
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertTrue(e.getMessage().contains("Counters belongs to a closed platform"), e.getMessage());
        c.close();
    }

    @Test
    void aClosedPlatformRefusesAndCloseIsIdempotent() {
        Platform p = platform();
        Counters c = p.counters(countedEvent());
        c.close();
        c.close();
        p.close();
        p.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> p.counters(countedEvent()));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }
}
