package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commands that read "this machine" run in a cpuset without its first CPU, as under
 * {@code taskset -c}, in a container with a CPU set, or in a pod with a static CPU policy
 * (issue 24: caps, cpuid and msr decode failed whole there). hwtool runs as a process of its own
 * under util-linux's {@code taskset}, fenced to the last CPU this test may run on.
 *
 * <p>Whether the fenced-off CPU can still be read is a host fact, taken from the host's own
 * claim: its {@code /dev/cpu/N/cpuid} node is readable by this user, or not.
 */
class CpusetCommandsTest {

    private static int in;
    private static int out;

    @BeforeAll
    static void cpus() {
        Preconditions.tool("/usr/bin/taskset", "util-linux");
        Preconditions.hostHas(Preconditions.Hardware.SECOND_CPU_IN_MASK);
        List<Integer> allowed = Preconditions.cpusInMask();
        out = allowed.getFirst();
        in = allowed.getLast();
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static Result fenced(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/taskset", "-c", Integer.toString(in)));
        cmd.addAll(HwtoolProcess.command(args));
        Process p = HwtoolProcess.builder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        byte[] o = p.getInputStream().readAllBytes();
        byte[] e = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hang guard");
        return new Result(p.exitValue(), new String(o, StandardCharsets.UTF_8), new String(e, StandardCharsets.UTF_8));
    }

    private static Map<?, ?> firstCpu(String json) throws IOException {
        return (Map<?, ?>) ((List<?>) JSON.std.mapFrom(json).get("cpus")).getFirst();
    }

    private static boolean outsideReadable() {
        return Files.isReadable(Path.of("/dev/cpu/" + out + "/cpuid"));
    }

    @Test
    void capsReadsTheFirstCpuItMayRunOnAndSaysWhy() throws Exception {
        Result r = fenced("caps");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("hwtool caps - CPU " + in + ":"), r.toString());
        assertTrue(r.out().contains("CPU " + in + ": the first CPU this process may run on"), r.toString());
        assertTrue(r.out().contains("CPUID paths (this machine)"), r.toString());
        if (!outsideReadable()) {
            assertTrue(r.out().contains("CPU " + out + " out of reach"), r.toString());
        }
    }

    @Test
    void capsJsonNamesTheCpuItsReasonAndWhatIsOutOfReach() throws Exception {
        Result r = fenced("caps", "--json");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> j = JSON.std.mapFrom(r.out());
        assertEquals(in, j.get("cpu"));
        Map<?, ?> choice = (Map<?, ?>) j.get("cpu_choice");
        assertEquals(in, choice.get("cpu"));
        assertEquals("instruction", choice.get("path"));
        assertTrue(((String) choice.get("why")).startsWith("the first CPU this process may run on"), choice.toString());
        boolean listed = ((List<?>) choice.get("out_of_reach")).stream().anyMatch(n -> ((Map<?, ?>) n).get("cpu").equals(out));
        assertEquals(!outsideReadable(), listed, r.toString());
        assertEquals(in, ((Map<?, ?>) j.get("cpuid_paths")).get("cpu"));
    }

    @Test
    void cpuidReadsEveryCpuItCanReachAndNamesTheRest() throws Exception {
        Result r = fenced("cpuid", "-l", "0");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("CPU " + in + ":"), r.toString());
        if (outsideReadable()) {
            assertTrue(r.out().contains("CPU " + out + ":"), "read through /dev/cpu/" + out + "/cpuid: " + r);
        } else {
            assertFalse(r.out().contains("CPU " + out + ":"), r.toString());
            assertTrue(r.err().contains("hwtool: note: CPU " + out + " not read: "), r.toString());
        }
    }

    @Test
    void cpuidOfOneCpuIsTheFirstItMayRunOn() throws Exception {
        Result one = fenced("cpuid", "-1", "-l", "1", "--json");
        assertEquals(0, one.exit(), one.toString());
        Map<?, ?> cpu = firstCpu(one.out());
        assertEquals(in, cpu.get("cpu"));
        assertEquals("instruction", cpu.get("path"));
    }

    @Test
    void aCpuNamedOutsideTheMaskIsReadThroughTheDeviceOrRefusedWithAnExitCode() throws Exception {
        Result r = fenced("cpuid", "-p", Integer.toString(out), "-l", "0", "--json");
        if (outsideReadable()) {
            assertEquals(0, r.exit(), r.toString());
            assertEquals("device", firstCpu(r.out()).get("path"));
        } else {
            assertNotEquals(0, r.exit(), "an error is never followed by exit 0: " + r);
            assertTrue(r.err().contains("outside this process's CPU affinity"), r.toString());
            assertEquals("", r.out(), r.toString());
        }
    }

    @Test
    void msrDecodeAndDoctorWork() throws Exception {
        Result d = fenced("msr", "decode", "IA32_DEBUGCTL", "0");
        assertEquals(0, d.exit(), d.toString());
        assertTrue(d.out().contains("as on CPU " + in + " of this machine"), d.toString());
        Result doc = fenced("doctor", "--json");
        boolean paths = false;
        for (Object o : (List<?>) JSON.std.mapFrom(doc.out()).get("checks")) {
            Map<?, ?> c = (Map<?, ?>) o;
            if (c.get("name").equals("cpuid_paths")) {
                paths = true;
                assertTrue(((String) c.get("detail")).startsWith("CPU " + in + " (the first CPU this process may run on"),
                        c.toString());
            }
        }
        assertTrue(paths, doc.toString());
    }
}
