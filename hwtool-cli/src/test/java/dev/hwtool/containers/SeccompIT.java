package dev.hwtool.containers;

import dev.hwtool.caps.Capability;
import dev.hwtool.linux.perf.PerfErrors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Docker's default seccomp profile (moby profiles/seccomp/default.json) allows perf_event_open
 * only to a container with CAP_SYS_ADMIN or CAP_PERFMON and answers it, as every call it does
 * not allow, with EPERM (defaultErrnoRet 1): the kernel never sees the call, whatever
 * perf_event_paranoid says. A container with docker's default capabilities and profile, beside
 * the same container with {@code --security-opt seccomp=unconfined}: caps must name the filter
 * (Seccomp: 2 and Seccomp_filters: N in /proc/self/status, fs/proc/array.c task_seccomp) as the
 * cause of every refused perf facility in the first, and must not mention it in the second.
 */
@ExtendWith(DockerDaemon.class)
@Testcontainers
class SeccompIT {

    private static final List<String> PERF = List.of("lbr_perf", "bts_perf", "hw_counters", "rdpmc", "pebs_perf");

    @Container
    static final HwtoolContainer FILTERED = new HwtoolContainer();

    @Container
    static final HwtoolContainer UNCONFINED = new HwtoolContainer().withSecurityOpts("seccomp=unconfined");

    /** The host's (and so every container's) kernel.perf_event_paranoid. */
    private static int hostParanoid() {
        try {
            return Integer.parseInt(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/perf_event_paranoid")).strip());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The container's own view, read by busybox (its filter is inherited by every process in it). */
    private static Map<String, String> status(HwtoolContainer c) {
        ContainerRun cat = c.exec("/bin/busybox", "cat", "/proc/self/status").assertOk();
        Map<String, String> m = new java.util.LinkedHashMap<>();
        cat.out().lines().filter(l -> l.startsWith("Seccomp")).forEach(l -> m.put(l.substring(0, l.indexOf(':')),
                l.substring(l.indexOf(':') + 1).strip()));
        return m;
    }

    @Test
    void dockerFiltersTheDefaultContainerAndNotTheUnconfinedOne() {
        Map<String, String> filtered = status(FILTERED);
        assertEquals("2", filtered.get("Seccomp"), filtered::toString);
        assertTrue(Integer.parseInt(filtered.get("Seccomp_filters")) >= 1, filtered::toString);
        assertEquals("0", status(UNCONFINED).get("Seccomp"));
    }

    @Test
    void capsNamesTheSeccompFilterAsWhyPerfIsRefused() {
        CapsJsonView caps = new CapsJsonView(FILTERED.hwtool("caps", "--json").assertOk().json());
        @SuppressWarnings("unchecked")
        Map<String, Object> creds = (Map<String, Object>) caps.linux().get("credentials");
        String filters = status(FILTERED).get("Seccomp_filters");
        assertEquals(2, ((Number) creds.get("seccomp")).intValue(), creds::toString);
        assertEquals(filters, String.valueOf(creds.get("seccomp_filters")), creds::toString);
        assertFalse(caps.has(Capability.CAP_SYS_ADMIN) || caps.has(Capability.CAP_PERFMON),
                "docker's default capabilities: the profile's perf_event_open rule does not apply");
        for (String f : PERF) {
            Map<String, Object> v = caps.verdict(f);
            @SuppressWarnings("unchecked")
            Map<String, Object> probe = (Map<String, Object>) v.get("probe");
            assertNotNull(probe, () -> f + " carries the probe's result: " + v);
            String what = f + " " + v;
            assertAll(what,
                    () -> assertEquals(false, v.get("usable")),
                    () -> assertEquals(false, probe.get("usable")),
                    () -> assertEquals("PERMISSION_DENIED", probe.get("cause"), "EPERM from the filter"),
                    () -> assertTrue(String.valueOf(probe.get("detail")).contains("seccomp filter mode (" + filters),
                            "the probe's failure names the filter"),
                    () -> assertTrue(String.valueOf(v.get("reason")).contains("refused by this process's seccomp filter mode"),
                            "the reason names it"),
                    () -> assertFalse(String.valueOf(v.get("remedy")).contains("perf_event_paranoid"),
                            "lowering the sysctl would not help"));
        }
    }

    @Test
    void capsTextShowsTheFilterWithTheCredentials() {
        ContainerRun caps = FILTERED.hwtool("caps").assertOk();
        String filters = status(FILTERED).get("Seccomp_filters");
        String text = caps.out().replaceAll("\\s+", " ");
        assertTrue(text.contains(" credentials euid 0; CAP_SYS_RAWIO no, CAP_SYS_ADMIN no, CAP_PERFMON no; seccomp filter mode ("
                + filters + " filter"), caps::toString);
    }

    /** Same image, same capabilities, no filter: the refusals have other causes (here: no PMU in a VM), never seccomp. */
    @Test
    void withoutTheFilterCapsDoesNotBlameSeccomp() {
        CapsJsonView caps = new CapsJsonView(UNCONFINED.hwtool("caps", "--json").assertOk().json());
        @SuppressWarnings("unchecked")
        Map<String, Object> creds = (Map<String, Object>) caps.linux().get("credentials");
        assertEquals(0, ((Number) creds.get("seccomp")).intValue(), creds::toString);
        for (String f : PERF) {
            Map<String, Object> v = caps.verdict(f);
            assertFalse(v.toString().contains("seccomp"), f + " " + v);
        }
    }

    /**
     * A software event of this process only, which perf_event_paranoid 2 (and any level below the
     * Debian 3) allows: refused in the filtered container with the filter named, counted in the
     * unconfined one, so nothing but the filter refused it.
     */
    @Test
    void statOfASoftwareEventIsRefusedByTheFilterAndAllowedWithout() {
        // stat starts its command through /bin/sh; the image has busybox alone
        for (HwtoolContainer c : List.of(FILTERED, UNCONFINED)) {
            c.exec("/bin/busybox", "ln", "-sf", "busybox", "/bin/sh").assertOk();
        }
        ContainerRun unconfined = UNCONFINED.hwtool("stat", "-e", "task-clock", "--", "/bin/busybox", "true");
        if (hostParanoid() <= 2) {
            assertEquals(0, unconfined.exit(), unconfined::toString);
        } else {
            // Debian's level 3 refuses it too (EACCES), without CAP_PERFMON: that is not the filter
            assertFalse((unconfined.out() + unconfined.err()).contains("seccomp"), unconfined::toString);
        }
        ContainerRun filtered = FILTERED.hwtool("stat", "-e", "task-clock", "--", "/bin/busybox", "true");
        String all = filtered.out() + filtered.err();
        assertTrue(all.contains("refused by this process's seccomp filter mode"), filtered::toString);
        assertTrue(all.contains(PerfErrors.SECCOMP_REMEDY), filtered::toString);
        assertFalse(all.contains("sysctl"), "lowering perf_event_paranoid would not help: " + filtered);
    }
}
