package dev.hwtool.containers;

import dev.hwtool.api.Cause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code docker run --read-only --tmpfs /tmp}, as hardened deployments run containers
 * (Kubernetes readOnlyRootFilesystem): nowhere to write a file that may be executed. The FFM
 * binding needs none: its CPUID stub is mapped anonymously (bind.MachineCode), not loaded
 * from a file.
 */
@ExtendWith(DockerDaemon.class)
@Testcontainers
class ReadOnlyRootIT {

    @Container
    static final HwtoolContainer CONTAINER = new HwtoolContainer().withReadOnlyRoot();

    @Test
    void theRootIsReadOnlyAndTmpIsNoexec() {
        ContainerRun touch = CONTAINER.exec("/bin/busybox", "touch", "/hwtool-probe");
        assertNotEquals(0, touch.exit(), touch::toString);
        assertTrue(touch.err().contains("Read-only file system"), touch::toString);
        ContainerRun mounts = CONTAINER.exec("/bin/busybox", "grep", " /tmp ", "/proc/self/mounts");
        assertEquals(0, mounts.exit(), mounts::toString);
        assertTrue(mounts.out().matches("(?s)tmpfs /tmp tmpfs \\S*noexec.*"), mounts::toString);
    }

    @Test
    void theFfmBindingNeedsNoWritableFile() {
        ContainerRun cpuid = CONTAINER.hwtool("cpuid", "--binding", "ffm", "-1", "-l", "0").assertOk();
        assertTrue(cpuid.out().startsWith("CPU:\n   0x00000000 0x00: eax="), cpuid::toString);
        CapsJsonView caps = new CapsJsonView(CONTAINER.hwtool("caps", "--json").assertOk().json());
        assertTrue(((String) caps.root().get("source_detail")).endsWith("(ffm binding)"), caps.root()::toString);
        assertTrue(caps.usable("cpuid"), caps.reason("cpuid"));
    }

    /**
     * JNA unpacks libjnidispatch.so into a temporary directory and maps it executable; here the
     * only writable one is the noexec /tmp, so the load fails ("failed to map segment from shared
     * object"). hwtool says so in one line with the remedy, exit 11, no stack trace.
     */
    @Test
    void theJnaBindingCannotLoadFromANoexecTmpAndSaysWhatToDo() {
        ContainerRun jna = CONTAINER.hwtool("cpuid", "--binding", "jna", "-1", "-l", "0");
        String error = jna.assertFailedWith(Cause.UNSUPPORTED);
        assertTrue(error.startsWith("hwtool: the jna binding cannot run here: JNA cannot map libjnidispatch.so from its"
                + " temporary directory, which is mounted noexec ("), error);
        assertTrue(error.endsWith("failed to map segment from shared object)"), error);
        String fix = jna.err().lines().toList().get(1);
        assertTrue(fix.startsWith("hwtool: fix: use --binding ffm") && fix.contains("-Djna.tmpdir=DIR"), fix);

        ContainerRun doctor = CONTAINER.hwtool("doctor", "--binding", "jna", "--json");
        assertEquals("", doctor.err(), "doctor reports the binding in its checks, not as a crash: " + doctor);
    }
}
