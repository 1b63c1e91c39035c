package dev.hwtool.qemu;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.cli.Require;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool on other CPUs than this host's: one QEMU TCG guest per {@code -cpu} model of
 * {@link #MODELS}, each booted once (1 vCPU, the cpuid and msr drivers loaded) to run, as root,
 * Todd Allen's {@code cpuid -r}, msr-tools' {@code rdmsr -a} of a few architectural MSRs and
 * {@code /proc/cpuinfo}, then in one JVM ({@link GuestCommands}) {@code hwtool caps},
 * {@code caps --json}, {@code doctor --json}, {@code cpuid} and the same {@code rdmsr} lines.
 * Two guests boot at a time (one per host core; {@code -Dhwtool.qemu.parallel=N}).
 *
 * <p>Asserted per model: the guest's CPUID identity is the one QEMU's model table defines (so the
 * expected names below are for that signature); hwtool's vendor, family, model and stepping equal
 * /proc/cpuinfo's; its microarchitecture name and legacy LBR depth are those of the signature
 * (SDM Vol. 4 Table 2-1 and Vol. 3B 18.x/Table 18-4; AMD family 17H/19H model ranges as Linux
 * amd.c); {@code hwtool cpuid} prints byte for byte what {@code cpuid -r} prints; each
 * {@code rdmsr} prints and exits as msr-tools' does (IA32_TIME_STAMP_COUNTER only the exit
 * status and the width: it moves on real hardware); doctor's verdicts are caps' verdicts.
 */
class CpuModelsIT {

    /**
     * A QEMU CPU model and what its CPUID must say. Family/model/stepping from QEMU 7.2
     * target/i386/cpu.c builtin_x86_defs (the v1 definitions, which the unversioned names
     * resolve to on the default machine); names from the SDM's signature table.
     *
     * @param lbrDepth the legacy LBR stack depth of the signature (SDM Vol. 3B, Table 18-4 and
     *                 18.x per microarchitecture), 0 for none (AMD before Zen 4)
     */
    record Model(String qemu, String vendor, int family, int model, int stepping, String microarchitecture,
                 int lbrDepth) {
        @Override
        public String toString() {
            return qemu;
        }

        boolean intel() {
            return vendor.equals("GenuineIntel");
        }
    }

    static final List<Model> MODELS = List.of(
            // 06_0FH Merom: Core 2 Duo T7700 ("Intel Core 2 Duo processor", SDM Table 2-1); 4 LBRs (Table 18-4)
            new Model("core2duo", "GenuineIntel", 6, 15, 11, "Core", 4),
            // 06_1AH Nehalem-EP (Core i7 9xx)
            new Model("Nehalem", "GenuineIntel", 6, 26, 3, "Nehalem", 16),
            // 06_2CH Westmere-EP (Xeon 56xx)
            new Model("Westmere", "GenuineIntel", 6, 44, 1, "Westmere", 16),
            // 06_2AH Sandy Bridge (Xeon E3-12xx)
            new Model("SandyBridge", "GenuineIntel", 6, 42, 1, "Sandy Bridge", 16),
            // 06_3AH Ivy Bridge
            new Model("IvyBridge", "GenuineIntel", 6, 58, 9, "Ivy Bridge", 16),
            // 06_3CH Haswell client
            new Model("Haswell", "GenuineIntel", 6, 60, 4, "Haswell", 16),
            // 06_3DH Broadwell client
            new Model("Broadwell", "GenuineIntel", 6, 61, 2, "Broadwell", 16),
            // 06_55H stepping 4: Xeon Scalable (Skylake-SP); 32 LBRs
            new Model("Skylake-Server", "GenuineIntel", 6, 85, 4, "Skylake-X", 32),
            // 06_55H stepping 6: 2nd gen Xeon Scalable, Cascade Lake: the same model as Skylake-SP
            new Model("Cascadelake-Server", "GenuineIntel", 6, 85, 6, "Skylake-X", 32),
            // 06_55H stepping 10 (0AH): 3rd gen Xeon Scalable, Cooper Lake
            new Model("Cooperlake", "GenuineIntel", 6, 85, 10, "Skylake-X", 32),
            // 06_86H: Atom server core, Tremont (Snow Ridge / Jacobsville); 32 LBRs
            new Model("Snowridge", "GenuineIntel", 6, 134, 1, "Tremont", 32),
            // 06_5FH: Goldmont (Denverton); 32 LBRs
            new Model("Denverton", "GenuineIntel", 6, 95, 1, "Goldmont", 32),
            // QEMU's "Icelake-Server" presents model 134 (86H), the Tremont server SoC, not Ice Lake-SP
            // (06_6AH): hwtool must name what the CPUID says
            new Model("Icelake-Server", "GenuineIntel", 6, 134, 0, "Tremont", 32),
            // 17H model 31H: Zen 2 (Rome); no LBR
            new Model("EPYC-Rome", "AuthenticAMD", 23, 49, 0, "Zen 2", 0),
            // 19H model 01H: Zen 3 (Milan)
            new Model("EPYC-Milan", "AuthenticAMD", 25, 1, 1, "Zen 3", 0));

    /** Architectural MSRs both rdmsr's read on every CPU ({@code -a -0 -x}); MISC_ENABLE only on Intel. */
    static List<String> registers(Model m) {
        List<String> r = new ArrayList<>(List.of("0x10", "0x1b", "0x277", "0xc0000080", "0xc0000081", "0xc0000103"));
        if (m.intel()) {
            r.add("0x1a0");
        }
        return r;
    }

    private static final String TSC = "0x10";
    private static final String HWTOOL_DIR = "hwtool";
    private static final Map<String, GuestRun> RUNS = new LinkedHashMap<>();
    private static long started;

    @BeforeAll
    static void bootEveryModel() throws Exception {
        Kernel kernel = RealKernel.require();
        Require.tool(RealKernel.MSR_TOOLS_RDMSR.toString());
        Require.tool(CPUID_TOOL.toString());
        started = System.nanoTime();
        int parallel = Integer.getInteger("hwtool.qemu.parallel", 2);
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            Map<String, Future<GuestRun>> futures = new LinkedHashMap<>();
            for (Model m : models()) {
                QemuGuest guest = RealKernel.guest("cpu-" + m.qemu(), kernel).cpuModel(m.qemu()).cpus(1).memoryMb(768)
                        .modules("cpuid", "msr").command(script(m)).build();
                futures.put(m.qemu(), pool.submit(guest::boot));
            }
            for (var e : futures.entrySet()) {
                GuestRun run = e.getValue().get();
                System.out.println("[qemu] -cpu " + e.getKey() + ": guest ran " + run.elapsed().toMillis() + " ms"
                        + (run.guestExit().isPresent() ? " (exit " + run.guestExit().getAsInt() + ")" : " (did not finish)")
                        + "; hwtool commands ms: " + run.outFile(HWTOOL_DIR + "/millis.txt").strip());
                RUNS.put(e.getKey(), run);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @AfterAll
    static void wallTime() {
        System.out.println("[qemu] CPU model matrix: " + RUNS.size() + " guests in "
                + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s wall");
    }

    static final Path CPUID_TOOL = Path.of("/usr/bin/cpuid");

    /** The guest's script: the reference tools first, then one JVM for every hwtool command. */
    static String script(Model m) {
        String o = "$HWTOOL_OUT";
        StringBuilder s = new StringBuilder();
        s.append("cat /proc/cpuinfo > ").append(o).append("/cpuinfo\n");
        s.append(CPUID_TOOL).append(" -r > ").append(o).append("/cpuid-r.out 2> ").append(o).append("/cpuid-r.err; echo $? > ")
                .append(o).append("/cpuid-r.rc\n");
        s.append("mkdir -p ").append(o).append("/msrtools\n");
        List<GuestCommands.Line> lines = new ArrayList<>(List.of(
                new GuestCommands.Line("caps", List.of("caps")),
                new GuestCommands.Line("caps-json", List.of("caps", "--json")),
                new GuestCommands.Line("doctor-json", List.of("doctor", "--json")),
                new GuestCommands.Line("cpuid", List.of("cpuid"))));
        for (String r : registers(m)) {
            // found through PATH, so that its messages name plain "rdmsr" as hwtool's do
            s.append("PATH=").append(RealKernel.MSR_TOOLS_RDMSR.getParent()).append(" rdmsr -a -0 -x ").append(r).append(" > ")
                    .append(o).append("/msrtools/rdmsr-").append(r).append(".out 2> ").append(o).append("/msrtools/rdmsr-")
                    .append(r).append(".err; echo $? > ").append(o).append("/msrtools/rdmsr-").append(r).append(".rc\n");
            lines.add(new GuestCommands.Line("rdmsr-" + r, List.of("rdmsr", "-a", "-0", "-x", r)));
        }
        s.append("exec ").append(GuestCommands.command(QemuGuest.GUEST_OUT + "/" + HWTOOL_DIR, lines)).append('\n');
        return s.toString();
    }

    /** {@link #MODELS}, or those named in {@code -Dhwtool.qemu.models=A,B} (to look at a few by hand). */
    static List<Model> models() {
        String only = System.getProperty("hwtool.qemu.models", "");
        return only.isBlank() ? MODELS : MODELS.stream().filter(m -> List.of(only.split(",")).contains(m.qemu())).toList();
    }

    private static GuestRun run(Model m) {
        return RUNS.get(m.qemu()).requireCompleted();
    }

    @ParameterizedTest
    @MethodSource("models")
    void theGuestRanEveryCommand(Model m) {
        GuestRun run = run(m);
        assertEquals(0, run.guestExit().getAsInt(), () -> "guest JVM exit status\n" + run.consoleTail(30));
        assertTrue(Files.exists(run.outDir().resolve(HWTOOL_DIR + "/millis.txt")), () -> run.consoleTail(30));
    }

    /** QEMU presents the model's signature: guards the expectations of the other tests. */
    @ParameterizedTest
    @MethodSource("models")
    void theGuestSeesTheSignatureOfQemusModelTable(Model m) {
        Map<String, String> cpuinfo = cpuinfo(run(m));
        assertAll(m + " /proc/cpuinfo " + cpuinfo,
                () -> assertEquals(m.vendor(), cpuinfo.get("vendor_id")),
                () -> assertEquals(Integer.toString(m.family()), cpuinfo.get("cpu family")),
                () -> assertEquals(Integer.toString(m.model()), cpuinfo.get("model")),
                () -> assertEquals(Integer.toString(m.stepping()), cpuinfo.get("stepping")));
    }

    @ParameterizedTest
    @MethodSource("models")
    void capsReportsTheIdentityAndMicroarchitectureThatTheCpuidPresents(Model m) throws IOException {
        GuestRun run = run(m);
        Map<String, String> cpuinfo = cpuinfo(run);
        Map<String, Object> caps = json(run, "caps-json");
        Map<String, Object> lbr = map(caps, "lbr");
        @SuppressWarnings("unchecked")
        Map<String, Object> features = (Map<String, Object>) caps.get("features");
        assertAll(m + " caps --json (exit " + rc(run, "caps-json") + ", stderr: " + err(run, "caps-json") + ")",
                () -> assertEquals(0, rc(run, "caps-json")),
                () -> assertEquals(cpuinfo.get("vendor_id"), caps.get("vendor")),
                () -> assertEquals(cpuinfo.get("cpu family"), String.valueOf(caps.get("family"))),
                () -> assertEquals(cpuinfo.get("model"), String.valueOf(caps.get("model"))),
                () -> assertEquals(cpuinfo.get("stepping"), String.valueOf(caps.get("stepping"))),
                () -> assertEquals(cpuinfo.get("model name"), caps.get("brand")),
                () -> assertEquals(m.microarchitecture(), caps.get("microarchitecture"), "microarchitecture of "
                        + m.family() + "/" + m.model() + "/" + m.stepping()),
                () -> assertEquals(m.lbrDepth(), ((Number) lbr.get("depth")).intValue(), "legacy LBR depth " + lbr),
                () -> assertEquals(Boolean.TRUE, map(caps, "hypervisor").get("present")),
                () -> assertEquals(Boolean.TRUE, features.get("msr")),
                () -> assertEquals("false", String.valueOf(caps.get("simulated"))));
        String text = out(run, "caps");
        assertAll(m + " caps\n" + text + err(run, "caps"),
                () -> assertEquals(0, rc(run, "caps")),
                () -> assertEquals("", err(run, "caps")),
                () -> assertTrue(text.contains(m.microarchitecture()), "names the microarchitecture"),
                () -> assertTrue(text.contains(cpuinfo.get("model name")), "names the brand"));
    }

    /** As root with the driver loaded, CPUID and MSR reads are usable; doctor's verdicts are caps'. */
    @ParameterizedTest
    @MethodSource("models")
    void doctorAgreesWithCapsAndFindsTheMsrDriver(Model m) throws IOException {
        GuestRun run = run(m);
        Map<String, Object> caps = json(run, "caps-json");
        Map<String, Object> doctor = json(run, "doctor-json");
        Map<String, Object> summary = map(doctor, "summary");
        assertAll(m + " doctor --json\n" + out(run, "doctor-json") + err(run, "doctor-json"),
                () -> assertEquals("", err(run, "doctor-json")),
                () -> assertEquals(((Number) summary.get("exit_code")).intValue(), rc(run, "doctor-json"), "summary.exit_code"),
                () -> assertEquals("ok", check(doctor, "cpu_msr").get("status")),
                () -> assertEquals("ok", check(doctor, "msr_driver").get("status")),
                () -> assertEquals("ok", check(doctor, "cap_sys_rawio").get("status")),
                () -> assertEquals("ok", check(doctor, "msr_read").get("status")),
                () -> assertEquals(verdicts(caps), verdicts(doctor), "doctor's verdicts are caps' verdicts"));
        assertAll(m + " verdicts " + caps.get("verdicts"),
                () -> assertEquals(true, verdict(caps, "cpuid").get("usable")),
                () -> assertEquals(true, verdict(caps, "msr_read").get("usable")));
    }

    @ParameterizedTest
    @MethodSource("models")
    void hwtoolCpuidPrintsWhatCpuidMinusRPrints(Model m) {
        GuestRun run = run(m);
        assertEquals("0", run.outFile("cpuid-r.rc").strip(), () -> "cpuid -r: " + run.outFile("cpuid-r.err"));
        assertEquals(0, rc(run, "cpuid"), () -> err(run, "cpuid"));
        assertEquals(run.outFile("cpuid-r.out"), out(run, "cpuid"), m + ": hwtool cpuid vs cpuid -r");
    }

    @ParameterizedTest
    @MethodSource("models")
    void hwtoolRdmsrPrintsWhatMsrToolsRdmsrPrints(Model m) {
        GuestRun run = run(m);
        List<Executable> checks = new ArrayList<>();
        for (String r : registers(m)) {
            String id = "rdmsr-" + r;
            String theirs = run.outFile("msrtools/" + id + ".out");
            String ours = out(run, id);
            String what = m + " rdmsr -a -0 -x " + r + " (msr-tools stderr: " + run.outFile("msrtools/" + id + ".err").strip()
                    + " | hwtool stderr: " + err(run, id).strip() + ")";
            checks.add(() -> assertEquals(run.outFile("msrtools/" + id + ".rc").strip(), Integer.toString(rc(run, id)), what));
            checks.add(() -> assertEquals("0", run.outFile("msrtools/" + id + ".rc").strip(), what));
            if (r.equals(TSC)) {
                // a counter: equal only in shape (one zero-padded 64-bit value per CPU)
                checks.add(() -> assertEquals(shape(theirs), shape(ours), what));
            } else {
                checks.add(() -> assertEquals(theirs, ours, what));
            }
        }
        assertAll(checks);
    }

    /** The first processor block of /proc/cpuinfo, key → value. */
    static Map<String, String> cpuinfo(GuestRun run) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : run.outFile("cpuinfo").lines().toList()) {
            if (line.isBlank()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        assertTrue(m.containsKey("vendor_id"), () -> "no /proc/cpuinfo from the guest\n" + run.consoleTail(30));
        return m;
    }

    private static String shape(String rdmsrOutput) {
        return rdmsrOutput.replaceAll("[0-9a-f]", "h");
    }

    static String out(GuestRun run, String id) {
        return run.outFile(HWTOOL_DIR + "/" + id + ".out");
    }

    static String err(GuestRun run, String id) {
        return run.outFile(HWTOOL_DIR + "/" + id + ".err");
    }

    static int rc(GuestRun run, String id) {
        String rc = run.outFile(HWTOOL_DIR + "/" + id + ".rc").strip();
        assertTrue(rc.matches("\\d+"), () -> "hwtool " + id + " did not run in guest " + run.name() + "\n" + run.consoleTail(30));
        return Integer.parseInt(rc);
    }

    static Map<String, Object> json(GuestRun run, String id) throws IOException {
        String text = out(run, id);
        try {
            return JSON.std.mapFrom(text);
        } catch (IOException e) {
            throw new IOException("hwtool " + id + " printed no JSON in guest " + run.name() + " (exit " + rc(run, id)
                    + ", stderr " + err(run, id) + "):\n" + text, e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> m, String key) {
        Object v = m.get(key);
        assertTrue(v instanceof Map<?, ?>, () -> "'" + key + "' is not an object: " + v);
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Map<String, Object> m, String key) {
        Object v = m.get(key);
        assertTrue(v instanceof List<?>, () -> "'" + key + "' is not an array: " + v);
        return (List<Map<String, Object>>) v;
    }

    static Map<String, Object> check(Map<String, Object> doctor, String name) {
        return list(doctor, "checks").stream().filter(c -> name.equals(c.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no doctor check " + name + " in " + doctor.get("checks")));
    }

    static Map<String, Object> verdict(Map<String, Object> report, String facility) {
        return list(report, "verdicts").stream().filter(v -> facility.equals(v.get("facility"))).findFirst()
                .orElseThrow(() -> new AssertionError("no verdict for " + facility + " in " + report.get("verdicts")));
    }

    /** facility → usable and cause, the part of a verdict that does not depend on the moment. */
    static Map<String, String> verdicts(Map<String, Object> report) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Map<String, Object> v : list(report, "verdicts")) {
            m.put((String) v.get("facility"), v.get("usable") + " " + v.get("cause"));
        }
        return m;
    }

    @Test
    void everyModelWasBooted() {
        assertEquals(models().stream().map(Model::qemu).toList(), List.copyOf(RUNS.keySet()));
    }
}
