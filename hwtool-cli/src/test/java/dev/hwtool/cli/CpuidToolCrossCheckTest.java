package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.sim.Profiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool's decoding against Todd Allen's {@code cpuid} (Debian package cpuid), which decodes
 * a saved {@code cpuid -r} dump with {@code cpuid -1 -f FILE}. For every shipped dump, the
 * dump hwtool writes is fed to cpuid, and the family, model, stepping, DS/DTES64/DS-CPL/PDCM
 * and leaf 0AH values hwtool reports must equal cpuid's decode. Also checks this machine:
 * the instruction, the device and {@code cpuid -r} must agree to the byte.
 */
class CpuidToolCrossCheckTest {

    private static final String CPUID = "/usr/bin/cpuid";

    /** cpuid's leaf 0AH event lines → hwtool's architectural event names (SDM order). */
    private static final Map<String, String> EVENTS = new LinkedHashMap<>();

    static {
        EVENTS.put("core cycle event", "core cycles");
        EVENTS.put("instruction retired event", "instructions retired");
        EVENTS.put("reference cycles event", "reference cycles");
        EVENTS.put("last-level cache ref event", "LLC references");
        EVENTS.put("last-level cache miss event", "LLC misses");
        EVENTS.put("branch inst retired event", "branch instructions retired");
        EVENTS.put("branch mispred retired event", "branch mispredicts retired");
        EVENTS.put("top-down slots event", "top-down slots");
    }

    static List<String> profiles() {
        return Profiles.builtIn().stream().map(Profiles.Entry::name).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("profiles")
    void decodingAgreesWithTheCpuidTool(String profile, @TempDir Path dir) throws Exception {
        Require.tool(CPUID);
        Run dump = Run.of("cpuid", "-1", "--profile", profile);
        assertEquals(0, dump.exit(), dump.toString());
        Path file = dir.resolve(profile + ".cpuid-r");
        Files.writeString(file, dump.out());
        String decoded = run(CPUID, "-1", "-f", file.toString());

        Run caps = Run.of("caps", "--json", "--profile", profile, "--cpu",
                Integer.toString(Profiles.resolve(profile).cpuid().cpus().getFirst().cpu()));
        assertEquals(0, caps.exit(), caps.toString());
        Map<String, Object> ours = JSON.std.mapFrom(caps.out());

        assertEquals(number(decoded, "\\(family synth\\)"), ours.get("family"), "family");
        assertEquals(number(decoded, "\\(model synth\\)"), ours.get("model"), "model");
        assertEquals(number(decoded, "stepping id"), ours.get("stepping"), "stepping");

        Map<?, ?> f = (Map<?, ?>) ours.get("features");
        assertEquals(flag(decoded, "DS: debug store"), f.get("ds"), "DS");
        assertEquals(flag(decoded, "DTES64: 64-bit debug store"), f.get("dtes64"), "DTES64");
        assertEquals(flag(decoded, "CPL-qualified debug store"), f.get("ds_cpl"), "DS-CPL");
        assertEquals(flag(decoded, "PDCM: perfmon and debug"), f.get("pdcm"), "PDCM");

        Map<?, ?> pm = (Map<?, ?>) ours.get("arch_perfmon");
        int maxBasic = (int) Long.parseLong(dump.out().lines().skip(1).findFirst().orElseThrow()
                .replaceAll(".*eax=0x([0-9a-f]{8}).*", "$1"), 16);
        if (maxBasic < 0xA) {
            assertEquals(0, pm.get("version"), "no leaf 0AH, no perfmon");
            return;
        }
        int version = number(decoded, "version ID");
        assertEquals(version, pm.get("version"), "perfmon version");
        if (version == 0) {
            return;
        }
        assertEquals(number(decoded, "number of counters per logical processor"), pm.get("gp_counters"), "GP counters");
        assertEquals(number(decoded, "bit width of counter"), pm.get("gp_width"), "GP width");
        Map<?, ?> events = (Map<?, ?>) pm.get("events");
        int vectorLength = number(decoded, "length of EBX bit vector");
        int i = 0;
        for (Map.Entry<String, String> e : EVENTS.entrySet()) {
            // cpuid decodes each EBX bit whatever the vector length says; hwtool (like Linux)
            // only trusts bits within it. Compare where both speak.
            if (i++ < vectorLength) {
                assertEquals(availability(decoded, e.getKey()), events.get(e.getValue()), e.getValue());
            }
        }
        if (version > 1) {
            int contiguous = number(decoded, "number of contiguous fixed counters");
            int fixed = (int) pm.get("fixed_counters");
            assertTrue(fixed >= contiguous && (version >= 5 || fixed == contiguous),
                    "fixed counters " + fixed + " vs cpuid's contiguous " + contiguous);
            assertEquals(number(decoded, "bit width of fixed counters"), pm.get("fixed_width"), "fixed width");
        }
    }

    @Test
    void thisMachineInstructionDeviceAndCpuidToolAgree() throws Exception {
        Require.tool(CPUID);
        for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++) {
            Run instruction = Run.of("cpuid", "-p", Integer.toString(cpu), "--source", "instruction");
            Run device = Run.of("cpuid", "-p", Integer.toString(cpu), "--source", "device");
            Run jna = Run.of("cpuid", "-p", Integer.toString(cpu), "--binding", "jna");
            assertEquals(0, instruction.exit(), instruction.toString());
            assertEquals(0, device.exit(), device.toString());
            assertEquals(instruction.out(), device.out(), "instruction vs device, CPU " + cpu);
            assertEquals(instruction.out(), jna.out(), "FFM vs JNA, CPU " + cpu);
        }
        // cpuid -r walks every CPU; hwtool cpuid (no -p) must print the very same bytes.
        Run all = Run.of("cpuid");
        assertEquals(run(CPUID, "-r"), all.out());
        Run one = Run.of("cpuid", "-1");
        String tool = run("/usr/bin/taskset", "-c", "0", CPUID, "-1", "-r");
        assertEquals(tool, one.out(), "cpuid -1 -r on CPU 0");
    }

    private static int number(String decoded, String label) {
        Matcher m = Pattern.compile("^\\s*" + label + "\\s*= 0x([0-9a-f]+) \\(", Pattern.MULTILINE).matcher(decoded);
        assertTrue(m.find(), "cpuid printed no '" + label + "' line");
        return Integer.parseInt(m.group(1), 16);
    }

    private static boolean flag(String decoded, String label) {
        Matcher m = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s*= (true|false)$", Pattern.MULTILINE).matcher(decoded);
        assertTrue(m.find(), "cpuid printed no '" + label + "' line");
        return m.group(1).equals("true");
    }

    private static boolean availability(String decoded, String label) {
        Matcher m = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s*= (available|not available)$", Pattern.MULTILINE)
                .matcher(decoded);
        assertTrue(m.find(), "cpuid printed no '" + label + "' line");
        return m.group(1).equals("available");
    }

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed: " + err);
        return out;
    }
}
