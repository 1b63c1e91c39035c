package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * FFM and JNA agree on each path, {@code cpuid -r} agrees with hwtool's instruction, and the
 * instruction agrees with the device where this host's paths answer alike.
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
                Integer.toString(SimulatedPlatform.of(profile).cpuid().cpus().getFirst()));
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

    /** The CPUs of a 'cpuid -r' layout dump, by CPU number. */
    private static Map<Integer, CpuidSnapshot> parse(String origin, String text) {
        Map<Integer, CpuidSnapshot> m = new LinkedHashMap<>();
        for (CpuidSnapshot s : CpuidDumpParser.parse(origin, text).cpus()) {
            m.put(s.cpu(), s);
        }
        return m;
    }

    /**
     * Leaf 1 EBX[31:24] and leaf 0BH/1FH EDX are APIC IDs, the answering CPU's name (SDM Vol. 2A,
     * CPUID); a hypervisor may vary them between calls even on a pinned thread (bhyve does).
     */
    private static CpuidRegs withoutApicIds(int leaf, CpuidRegs r) {
        return switch (leaf) {
            case 1 -> new CpuidRegs(r.eax(), r.ebx() & 0x00ff_ffff, r.ecx(), r.edx());
            case 0xb, 0x1f -> new CpuidRegs(r.eax(), r.ebx(), r.ecx(), 0);
            default -> r;
        };
    }

    /**
     * Two readings of one CPU through the same path agree: every (leaf, subleaf) both list, APIC
     * IDs apart; and the basic leaves 0..max all appear in both. APIC ID differences are returned.
     */
    private static List<String> assertSamePath(CpuidSnapshot a, CpuidSnapshot b, String what) {
        List<String> apicIds = new ArrayList<>();
        int maxBasic = a.cpuid(0, 0).eax();
        for (int leaf = 0; leaf <= maxBasic; leaf++) {
            assertTrue(a.has(leaf, 0) && b.has(leaf, 0), what + ": leaf 0x" + Integer.toHexString(leaf) + " in both");
        }
        int shared = 0;
        for (CpuidLeaf l : a.leaves()) {
            if (!b.has(l.leaf(), l.subleaf())) {
                continue;
            }
            shared++;
            CpuidRegs other = b.cpuid(l.leaf(), l.subleaf());
            String where = what + ", leaf 0x" + Integer.toHexString(l.leaf()) + "." + l.subleaf();
            assertEquals(withoutApicIds(l.leaf(), l.regs()), withoutApicIds(l.leaf(), other), where);
            if (!l.regs().equals(other)) {
                apicIds.add(where + ": " + l.regs() + " vs " + other);
            }
        }
        assertTrue(shared > maxBasic, what + ": only " + shared + " leaves in common");
        return apicIds;
    }

    /** APIC IDs differing on a pinned thread are held against the host's own claim of steady CPUID. */
    private static void assertApicIdsAgree(List<String> differences) {
        if (!differences.isEmpty()) {
            Preconditions.cpuidPathsAgree();
        }
        assertEquals(List.of(), differences, "APIC IDs on a pinned thread");
    }

    @Test
    void thisMachineFfmAndJnaAgreeOnTheInstruction() {
        // Law: the two bindings run the same stub on the same pinned CPU. CPUs of the affinity
        // mask only: the instruction runs on a thread pinned there.
        List<String> apicIds = new ArrayList<>();
        for (int cpu : Preconditions.cpusInMask()) {
            String p = Integer.toString(cpu);
            Run ffm = Run.of("cpuid", "-p", p, "--source", "instruction", "--binding", "ffm");
            Run jna = Run.of("cpuid", "-p", p, "--source", "instruction", "--binding", "jna");
            assertEquals(0, ffm.exit(), ffm.toString());
            assertEquals(0, jna.exit(), jna.toString());
            apicIds.addAll(assertSamePath(parse("ffm", ffm.out()).get(cpu), parse("jna", jna.out()).get(cpu),
                    "instruction, ffm vs jna, CPU " + cpu));
        }
        assertApicIdsAgree(apicIds);
    }

    @Test
    void thisMachineFfmAndJnaAgreeOnTheDevice() {
        // Law: both bindings pread the same node, which the kernel answers on that CPU. The
        // device needs no affinity, but which CPUs hwtool reads outside the mask is another test's.
        Preconditions.cpuidDevice();
        List<String> apicIds = new ArrayList<>();
        for (int cpu : Preconditions.cpusInMask()) {
            String p = Integer.toString(cpu);
            Run ffm = Run.of("cpuid", "-p", p, "--source", "device", "--binding", "ffm");
            Run jna = Run.of("cpuid", "-p", p, "--source", "device", "--binding", "jna");
            assertEquals(0, ffm.exit(), ffm.toString());
            assertEquals(0, jna.exit(), jna.toString());
            apicIds.addAll(assertSamePath(parse("ffm", ffm.out()).get(cpu), parse("jna", jna.out()).get(cpu),
                    "device, ffm vs jna, CPU " + cpu));
        }
        assertApicIdsAgree(apicIds);
    }

    @Test
    void thisMachineInstructionAndDeviceAgreeWhereTheHostSaysTheyDo() {
        // Host fact: user space and the kernel get the same answers only where the hypervisor
        // (if any) answers them alike; the helper reads both paths and checks that first.
        Preconditions.cpuidPathsAgree();
        for (int cpu : Preconditions.cpusInMask()) {
            Run instruction = Run.of("cpuid", "-p", Integer.toString(cpu), "--source", "instruction");
            Run device = Run.of("cpuid", "-p", Integer.toString(cpu), "--source", "device");
            assertEquals(0, instruction.exit(), instruction.toString());
            assertEquals(0, device.exit(), device.toString());
            assertEquals(instruction.out(), device.out(), "instruction vs device, CPU " + cpu);
        }
    }

    @Test
    void thisMachineCpuidToolAndHwtoolReadTheSameInstruction() throws Exception {
        Require.tool(CPUID);
        // cpuid -r runs the instruction on each CPU (its default -i); hwtool cpuid does too. Both
        // readings are compared leaf by leaf where both list the leaf: which leaves and subleaves
        // a cpuid version walks grows with its version, and the layout is its own.
        List<Integer> cpus = Preconditions.cpusInMask();
        Map<Integer, CpuidSnapshot> tool = parse("cpuid -r", run(CPUID, "-r"));
        List<String> apicIds = new ArrayList<>();
        for (int cpu : cpus) {
            Run ours = Run.of("cpuid", "-p", Integer.toString(cpu), "--source", "instruction");
            assertEquals(0, ours.exit(), ours.toString());
            assertTrue(tool.containsKey(cpu), "cpuid -r read CPU " + cpu + " of the mask: " + tool.keySet());
            apicIds.addAll(assertSamePath(tool.get(cpu), parse("hwtool", ours.out()).get(cpu), "cpuid -r vs hwtool, CPU " + cpu));
        }
        // One CPU: the tool pinned to the first CPU of the mask by taskset, hwtool told which.
        int first = cpus.getFirst();
        Map<Integer, CpuidSnapshot> one = parse("cpuid -1 -r", run("/usr/bin/taskset", "-c", Integer.toString(first), CPUID, "-1", "-r"));
        Run ours = Run.of("cpuid", "-1", "-p", Integer.toString(first));
        assertEquals(0, ours.exit(), ours.toString());
        CpuidSnapshot theirs = one.values().iterator().next();
        apicIds.addAll(assertSamePath(theirs, parse("hwtool", ours.out()).values().iterator().next(), "cpuid -1 -r on CPU " + first));
        assertApicIdsAgree(apicIds);
    }

    /*
     * cpuid's decoded lines are "   label   = value", its labels and spacing those of one
     * version (written against 20230120). The matches below take the label case-insensitively
     * with any spacing, and a number in hex with or without its decimal echo, so that a version
     * that only respaces or recases still reads; a missing label names the installed version, so
     * the fix is a label of that version, never a skip.
     */

    private static final Pattern HEX_OR_DECIMAL = Pattern.compile("(?:0x([0-9a-f]+)|([0-9]+))");

    private static Matcher line(String decoded, String label, String value) {
        Matcher m = Pattern.compile("^\\s*" + label + "\\s*=\\s*" + value + "\\s*(?:\\(.*\\))?\\s*$",
                Pattern.MULTILINE | Pattern.CASE_INSENSITIVE).matcher(decoded);
        assertTrue(m.find(), "cpuid (" + cpuidVersion() + ") printed no '" + label + "' line");
        return m;
    }

    private static int number(String decoded, String label) {
        Matcher m = line(decoded, label, HEX_OR_DECIMAL.pattern());
        return m.group(1) != null ? Integer.parseInt(m.group(1), 16) : Integer.parseInt(m.group(2));
    }

    private static boolean flag(String decoded, String label) {
        return line(decoded, Pattern.quote(label), "(true|false)").group(1).equalsIgnoreCase("true");
    }

    private static boolean availability(String decoded, String label) {
        return line(decoded, Pattern.quote(label), "(available|not available)").group(1).equalsIgnoreCase("available");
    }

    private static String cpuidVersion() {
        try {
            return run(CPUID, "--version").strip();
        } catch (Exception | AssertionError e) {
            return "version unknown: " + e.getMessage();
        }
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
