package dev.hwtool.containers;

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
}
