package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.HwException;
import dev.hwtool.linux.LinuxPlatform;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Platform.counters on this kernel: real perf counting events of this thread and of the process. */
class PerfCountersTest {

    /**
     * Every test here opens perf events of this process: a host must let a process count itself
     * (perf_event_paranoid 2 or less, or CAP_PERFMON) and no seccomp filter may refuse the call
     * (Docker's default profile does). Fixable: skipped locally with the reason, failed in CI.
     */
    @org.junit.jupiter.api.BeforeEach
    void perfEventOpenAllowed() {
        dev.hwtool.testing.Preconditions.perfCountsOwnProcesses();
    }

    /**
     * Spins until this thread has run {@code nanos} of CPU time (what task-clock counts), however
     * busy the machine is: a wall-clock spin on a loaded host may get a fraction of that.
     */
    static long spin(long nanos) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + nanos;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 1000; i++) {
                x += x * 31 + 7;
            }
        }
        return x;
    }

    @Test
    void softwareEventsCountTheRegionAndHardwareOnesSayWhyNot() {
        try (LinuxPlatform p = LinuxPlatform.open();
             Counters c = p.counters("task-clock", "page-faults", "instructions")) {
            assertEquals(List.of("task-clock", "page-faults", "instructions"), c.events());
            c.start();
            byte[][] touch = new byte[64][];
            for (int i = 0; i < touch.length; i++) {
                touch[i] = new byte[1 << 16];
                touch[i][i] = 1;
            }
            spin(20_000_000);
            Counts n = c.stop();
            assertFalse(n.simulated());
            assertTrue(n.value("task-clock") > 1_000_000, "at least 1 ms of this thread's CPU time: " + n);
            assertTrue(n.value("page-faults") >= 0, n.toString());
            // units: task-clock is in nanoseconds (PERF_COUNT_SW_TASK_CLOCK), the others count events
            assertEquals(Count.Unit.NANOSECONDS, n.get("task-clock").unit());
            assertTrue(n.get("task-clock").toString().matches("task-clock = [0-9]+ ns"), n.get("task-clock").toString());
            assertEquals(Count.Unit.EVENTS, n.get("page-faults").unit());
            assertTrue(n.get("page-faults").toString().matches("page-faults = [0-9]+"), n.get("page-faults").toString());
            assertEquals(Count.Unit.NANOSECONDS, Count.Unit.of("cpu-clock:u"));
            assertEquals(Count.Unit.EVENTS, Count.Unit.of("r01c2"));
            Count ins = n.get("instructions");
            // A core PMU is "cpu", or "cpu_core" and "cpu_atom" on hybrid parts.
            if (dev.hwtool.testing.Preconditions.corePmu().isPresent()) {
                assertTrue(ins.value() > 1_000_000, "a hardware PMU counts the spin: " + ins);
            } else {
                assertFalse(ins.supported(), ins.toString());
                HwException e = assertThrows(HwException.class, ins::value);
                assertEquals(Cause.UNSUPPORTED, e.cause());
                assertTrue(e.getMessage().contains("no hardware PMU"), e.getMessage());
                assertTrue(e.remedy().isPresent());
            }
            // stopped: nothing more is counted
            long before = n.value("task-clock");
            spin(5_000_000);
            assertEquals(before, c.read().value("task-clock"));
        }
    }

    @Test
    void processScopeCountsOtherThreadsThatExistAtOpen() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            spin(30_000_000);
            done.countDown();
        });
        t.start();
        try (LinuxPlatform p = LinuxPlatform.open();
             Counters proc = p.counters(Counters.Scope.PROCESS, List.of("task-clock"));
             Counters self = p.counters("task-clock")) {
            proc.start();
            self.start();
            go.countDown();
            done.await();
            long mine = self.stop().value("task-clock");
            long all = proc.stop().value("task-clock");
            assertTrue(all >= mine + 20_000_000, "the other thread's 30 ms of CPU are in the process count: all "
                    + all + " ns, this thread " + mine + " ns");
        } finally {
            t.join();
        }
    }

    @Test
    void whatWasTakenFromAClosedPlatformIsRefusedWithItsCause() {
        LinuxPlatform p = LinuxPlatform.open();
        Counters c = p.counters("task-clock");
        dev.hwtool.api.Recorder rec = p.recorder();
        dev.hwtool.api.MsrAccess msr = p.msr();
        c.start();
        p.close();
        HwException counters = assertThrows(HwException.class, c::stop);
        assertEquals(Cause.UNSUPPORTED, counters.cause());
        assertEquals("this Counters belongs to a closed platform (Linux hardware backend): nothing done", counters.getMessage());
        HwException recorder = assertThrows(HwException.class, () -> dev.hwtool.record.SinkRecorder.of(rec).record(new dev.hwtool.api.RecordRequest.Bts(
                dev.hwtool.api.RecordRequest.Privilege.USER), new dev.hwtool.api.RecordTarget.Command(List.of("true")),
                new CollectingSink()));
        assertEquals(Cause.UNSUPPORTED, recorder.cause());
        assertTrue(recorder.getMessage().startsWith("this Recorder belongs to a closed platform"), recorder.getMessage());
        HwException registers = assertThrows(HwException.class, () -> msr.read(0, 0x10));
        assertEquals(Cause.UNSUPPORTED, registers.cause());
        c.close();
    }

    @Test
    void badUseGetsClearExceptions() {
        LinuxPlatform p = LinuxPlatform.open();
        HwException e = assertThrows(HwException.class, () -> p.counters("instructions:q"));
        assertEquals(Cause.BAD_INPUT, e.cause());
        Counters c = p.counters("task-clock");
        c.close();
        assertThrows(IllegalStateException.class, c::start);
        p.close();
        assertThrows(IllegalStateException.class, () -> p.counters("task-clock"));
    }
}
