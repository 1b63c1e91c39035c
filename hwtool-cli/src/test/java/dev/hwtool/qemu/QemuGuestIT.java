package dev.hwtool.qemu;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness itself, on boots without a JVM (a few seconds each). */
class QemuGuestIT {

    @Test
    void theCommandRunsInTheHostRootAndItsOutputAndStatusComeBack() throws Exception {
        Kernel kernel = RealKernel.require();
        GuestRun run = RealKernel.guest("plain", kernel).cpus(1).kernelArgs("hwtool.marker=42")
                .command("echo \"kernel $(uname -r)\"; grep -o 'hwtool.marker=42' /proc/cmdline > \"$HWTOOL_OUT/seen\";"
                        + " test -x " + RealKernel.ROOT.resolve("hwtool") + " && echo host-root-visible; exit 3")
                .build().boot().requireCompleted();
        assertEquals(3, run.guestExit().getAsInt(), run.consoleTail(20));
        assertTrue(run.console().contains("kernel " + kernel.version()), run.consoleTail(20));
        assertTrue(run.console().contains("host-root-visible"), run.consoleTail(20));
        assertEquals("hwtool.marker=42\n", run.outFile("seen"));
    }

    /** A bool parameter given "maybe" (param_set_bool: EINVAL) fails the insmod; init says so and powers off. */
    @Test
    void aGuestWhoseInitFailsIsReportedWithTheReason() throws Exception {
        Kernel kernel = RealKernel.require();
        GuestRun run = RealKernel.guest("init-fails", kernel).cpus(1).kernelArgs("virtio_pci.force_legacy=maybe")
                .command("echo should-not-run").build().boot();
        assertTrue(run.guestExit().isEmpty());
        IllegalStateException e = assertThrows(IllegalStateException.class, run::requireCompleted);
        assertTrue(e.getMessage().startsWith("QEMU guest 'init-fails' ended (qemu exit 0) before its command finished"), e.getMessage());
        assertTrue(e.getMessage().contains(GuestRun.INIT_MARK + " failed: insmod virtio_pci.ko"), e.getMessage());
        assertTrue(!e.getMessage().contains("should-not-run"), e.getMessage());
    }

    @Test
    void aGuestThatDoesNotFinishIsReportedWithTheConsoleTail() throws Exception {
        Kernel kernel = RealKernel.require();
        GuestRun run = RealKernel.guest("hung", kernel).cpus(1).command("echo going-to-sleep; sleep 600")
                .timeout(Duration.ofSeconds(25)).build().boot();
        assertTrue(run.timedOut());
        IllegalStateException e = assertThrows(IllegalStateException.class, run::requireCompleted);
        assertTrue(e.getMessage().startsWith("QEMU guest 'hung' did not power off within 2"), e.getMessage());
        assertTrue(e.getMessage().contains("--- last console lines\n"), e.getMessage());
        assertTrue(e.getMessage().contains(GuestRun.INIT_MARK + " running the command"), "the tail shows how far it got: " + e.getMessage());
    }
}
