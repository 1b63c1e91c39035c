package dev.hwtool.qemu;

import dev.hwtool.api.Cause;
import dev.hwtool.cli.Require;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.hwtool.qemu.CpuModelsIT.check;
import static dev.hwtool.qemu.CpuModelsIT.map;
import static dev.hwtool.qemu.CpuModelsIT.verdict;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool as a user without root and without capabilities (uid 65534, setpriv from the shared
 * host root; its effective and permitted sets are empty after the uid change, capabilities(7)
 * "Effect of user ID changes on capabilities"), in one TCG guest (2 vCPUs, msr loaded), in two
 * phases of one JVM each:
 * <ul>
 * <li>{@code p2}: perf_event_paranoid 2, the msr nodes as the driver makes them (0600 root): the
 *     VFS refuses the open (EACCES) — PERMISSION_DENIED;</li>
 * <li>{@code p3}: perf_event_paranoid 3 (the Debian patch), the nodes chmod 0666: the mode
 *     passes and msr_open's capable(CAP_SYS_RAWIO) refuses (EPERM) — MISSING_CAPABILITY.</li>
 * </ul>
 * In each: caps and doctor name that cause and the paranoid level; {@code rdmsr} exits and
 * prints as msr-tools' rdmsr does as the same user (127, {@code rdmsr: open: <strerror>}), plus
 * hwtool's fix line; {@code stat -e task-clock} of a command is allowed at 2 and refused at 3
 * with the level named (exit 6, PERMISSION_DENIED).
 */
class UnprivilegedGuestIT {

    static final int NOBODY = 65534;
    private static final List<String> PHASES = List.of("p2", "p3");
    private static GuestRun run;

    @BeforeAll
    static void boot() throws Exception {
        Kernel kernel = RealKernel.require();
        Require.tool(RealKernel.MSR_TOOLS_RDMSR.toString());
        Require.tool(SETPRIV.toString());
        run = RealKernel.guest("unprivileged", kernel).cpus(2).memoryMb(768).modules("cpuid", "msr")
                .command(script()).build().boot().requireCompleted();
        System.out.println("[qemu] guest 'unprivileged' ran " + run.elapsed().toMillis() + " ms (exit "
                + run.guestExit().getAsInt() + "); p2 ms " + run.outFile("p2/millis.txt").strip() + "; p3 ms "
                + run.outFile("p3/millis.txt").strip());
    }

    static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    /**
     * Root sets the sysctl and the node modes, then the commands run as nobody, writing into the
     * guest's own /tmp (the results export is root's); root copies them out afterwards.
     */
    static String script() {
        String o = QemuGuest.GUEST_OUT;
        String asNobody = SETPRIV + " --reuid=" + NOBODY + " --regid=" + NOBODY + " --clear-groups --inh-caps=-all -- ";
        String classes = "/tmp/unpriv-classes";
        StringBuilder s = new StringBuilder("set -u\n").append(GuestCommands.copyClassPath(classes));
        for (String phase : PHASES) {
            String dir = "/tmp/unpriv-" + phase;
            s.append("mkdir -p ").append(dir).append("/msrtools && chmod -R 0777 ").append(dir).append('\n');
            if (phase.equals("p2")) {
                s.append("echo 2 > /proc/sys/kernel/perf_event_paranoid\n");
            } else {
                s.append("echo 3 > /proc/sys/kernel/perf_event_paranoid && chmod 0666 /dev/cpu/0/msr /dev/cpu/1/msr\n");
            }
            s.append("cat /proc/sys/kernel/perf_event_paranoid > ").append(dir).append("/paranoid\n");
            s.append("ls -l /dev/cpu/0/msr > ").append(dir).append("/mode\n");
            s.append(asNobody).append("cat /proc/self/status > ").append(dir).append("/status\n");
            s.append(asNobody).append("env PATH=").append(RealKernel.MSR_TOOLS_RDMSR.getParent()).append(" rdmsr -p 0 0x1b > ")
                    .append(dir).append("/msrtools/rdmsr.out 2> ").append(dir).append("/msrtools/rdmsr.err; echo $? > ")
                    .append(dir).append("/msrtools/rdmsr.rc\n");
            List<GuestCommands.Line> lines = List.of(
                    new GuestCommands.Line("caps-json", List.of("caps", "--json")),
                    new GuestCommands.Line("caps", List.of("caps")),
                    new GuestCommands.Line("doctor-json", List.of("doctor", "--json")),
                    new GuestCommands.Line("rdmsr", List.of("rdmsr", "-p", "0", "0x1b")),
                    new GuestCommands.Line("stat", List.of("stat", "-e", "task-clock", "--", "/bin/true")));
            s.append(asNobody).append(GuestCommands.command(dir, lines, classes)).append('\n');
            s.append("echo $? > ").append(dir).append("/jvm.rc\n");
            s.append("cp -r ").append(dir).append(' ').append(o).append('/').append(phase).append('\n');
        }
        s.append("exit 0\n");
        return s.toString();
    }

    private static String file(String phase, String name) {
        return run.outFile(phase + "/" + name);
    }

    private static int rc(String phase, String id) {
        String rc = file(phase, id + ".rc").strip();
        assertTrue(rc.matches("\\d+"), () -> phase + " " + id + " did not run\n" + run.consoleTail(40));
        return Integer.parseInt(rc);
    }

    private static Map<String, Object> json(String phase, String id) throws Exception {
        return com.fasterxml.jackson.jr.ob.JSON.std.mapFrom(file(phase, id + ".out"));
    }

    @Test
    void bothPhasesRanAsNobodyWithoutCapabilities() {
        for (String phase : PHASES) {
            String status = file(phase, "status");
            assertAll(phase + " " + status,
                    () -> assertEquals("0", file(phase, "jvm.rc").strip(), run.consoleTail(40)),
                    () -> assertTrue(status.contains("Uid:\t65534\t65534\t65534\t65534"), "uid"),
                    () -> assertTrue(status.contains("CapEff:\t0000000000000000"), "no effective capabilities"),
                    () -> assertTrue(status.contains("CapPrm:\t0000000000000000"), "no permitted capabilities"),
                    () -> assertEquals(phase.substring(1), file(phase, "paranoid").strip()));
        }
        assertTrue(file("p2", "mode").startsWith("crw-------"), file("p2", "mode"));
        assertTrue(file("p3", "mode").startsWith("crw-rw-rw-"), file("p3", "mode"));
    }

    /** The cause each phase is built to show, and the errno behind it. */
    private static Cause msrCause(String phase) {
        return phase.equals("p2") ? Cause.PERMISSION_DENIED : Cause.MISSING_CAPABILITY;
    }

    @Test
    void capsNamesTheMsrCauseAndTheParanoidLevel() throws Exception {
        for (String phase : PHASES) {
            Map<String, Object> caps = json(phase, "caps-json");
            Map<String, Object> creds = map(map(caps, "linux"), "credentials");
            String cause = msrCause(phase).name().toLowerCase(java.util.Locale.ROOT);
            Map<String, Object> read = verdict(caps, "msr_read");
            String what = phase + " " + read + " " + creds;
            assertAll(what,
                    () -> assertEquals(0, rc(phase, "caps-json"), file(phase, "caps-json.err")),
                    () -> assertEquals(NOBODY, ((Number) creds.get("euid")).intValue()),
                    () -> assertEquals(0L, ((Number) creds.get("cap_eff")).longValue()),
                    () -> assertEquals(Integer.parseInt(phase.substring(1)), ((Number) map(caps, "linux").get("perf_event_paranoid")).intValue()),
                    () -> assertEquals(false, read.get("usable")),
                    () -> assertEquals(cause, read.get("cause")),
                    () -> assertEquals(true, verdict(caps, "cpuid").get("usable"), "the instruction needs no privilege"));
            if (phase.equals("p3")) {
                assertTrue(String.valueOf(read.get("reason")).contains("CAP_SYS_RAWIO"), what);
                for (String f : List.of("lbr_perf", "bts_perf", "hw_counters", "rdpmc", "pebs_perf")) {
                    Map<String, Object> v = verdict(caps, f);
                    assertEquals(false, v.get("usable"), f + " " + v);
                    assertTrue(String.valueOf(v).contains("perf_event_paranoid=3") || String.valueOf(v).contains("perf_event_paranoid is 3"),
                            "level 3 named: " + f + " " + v);
                }
            } else {
                assertTrue(String.valueOf(read.get("reason")).contains("EACCES") || String.valueOf(read.get("reason")).contains("not readable"),
                        what);
            }
            String text = file(phase, "caps.out");
            assertEquals(0, rc(phase, "caps"), file(phase, "caps.err"));
            assertTrue(text.lines().anyMatch(l -> l.matches("\\s+credentials\\s+euid 65534; CAP_SYS_RAWIO no, CAP_SYS_ADMIN no, CAP_PERFMON no.*")),
                    phase + "\n" + text);
        }
    }

    @Test
    void doctorFailsTheRightChecksWithTheirCauses() throws Exception {
        Map<String, Object> p2 = json("p2", "doctor-json");
        Map<String, Object> p3 = json("p3", "doctor-json");
        assertAll("p2 " + p2.get("checks"),
                () -> assertEquals(((Number) map(p2, "summary").get("exit_code")).intValue(), rc("p2", "doctor-json")),
                () -> assertEquals("fail", check(p2, "msr_devices").get("status")),
                () -> assertEquals("permission_denied", check(p2, "msr_devices").get("cause")),
                () -> assertEquals("fail", check(p2, "cap_sys_rawio").get("status")),
                () -> assertEquals("missing_capability", check(p2, "cap_sys_rawio").get("cause")),
                () -> assertEquals("ok", check(p2, "perf_event_paranoid").get("status")));
        assertAll("p3 " + p3.get("checks"),
                () -> assertEquals(((Number) map(p3, "summary").get("exit_code")).intValue(), rc("p3", "doctor-json")),
                () -> assertTrue(List.of("ok", "warn").contains(check(p3, "msr_devices").get("status")), "0666: the mode lets nobody open"),
                () -> assertEquals("fail", check(p3, "cap_sys_rawio").get("status")),
                () -> assertEquals("missing_capability", check(p3, "cap_sys_rawio").get("cause")),
                () -> assertEquals("fail", check(p3, "perf_event_paranoid").get("status")),
                () -> assertEquals("permission_denied", check(p3, "perf_event_paranoid").get("cause")));
    }

    /** README exit codes for rdmsr: msr-tools' 127 for an open that fails, its message, then hwtool's fix. */
    @Test
    void rdmsrExitsAndPrintsAsMsrToolsDoesAsTheSameUser() {
        for (String phase : PHASES) {
            String theirs = file(phase, "msrtools/rdmsr.err");
            String ours = file(phase, "rdmsr.err");
            String strerror = phase.equals("p2") ? "Permission denied" : "Operation not permitted";
            List<String> ourLines = new ArrayList<>(ours.lines().toList());
            assertAll(phase + "\n--- msr-tools\n" + theirs + "--- hwtool\n" + ours,
                    () -> assertEquals("127", file(phase, "msrtools/rdmsr.rc").strip()),
                    () -> assertEquals(127, rc(phase, "rdmsr")),
                    () -> assertEquals("rdmsr: open: " + strerror + "\n", theirs),
                    () -> assertEquals("", file(phase, "rdmsr.out")),
                    () -> assertEquals(theirs.strip(), ourLines.getFirst()),
                    () -> assertTrue(ourLines.size() == 2 && ourLines.get(1).startsWith("hwtool: fix: "), "one fix line"));
        }
    }

    @Test
    void statOfItsOwnCommandIsAllowedAtTwoAndRefusedAtThree() {
        assertEquals(0, rc("p2", "stat"), () -> file("p2", "stat.err"));
        String err = file("p3", "stat.err");
        assertEquals(Cause.PERMISSION_DENIED.exitCode(), rc("p3", "stat"), err);
        assertTrue(err.contains("perf_event_paranoid is 3"), err);
        assertFalse(err.contains("seccomp"), err);
    }
}
