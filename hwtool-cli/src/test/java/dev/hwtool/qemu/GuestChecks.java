package dev.hwtool.qemu;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.cli.Main;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.DeviceMsrAccess;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * The guest side of the real-kernel tests: one JVM per boot, run as root in the guest by
 * {@link QemuGuest}, that performs the checks of one boot against the real msr driver and
 * writes one {@link Observation} per check to {@code $HWTOOL_OUT/results.jsonl} (flushed line
 * by line, so a crash leaves everything before it). It observes and never judges: the host's
 * ITs assert. Only {@link GuestContract} uses JUnit (its launcher), in the driver boot only,
 * whose class path adds the JUnit jars ({@link RealKernel#checksCommandWithJUnit}).
 *
 * <p>Usage: {@code GuestChecks driver <path of cpuid.ko> <path of msr.ko>} | {@code writes-off [rdmsr]} | {@code lockdown}.
 */
public final class GuestChecks {

    static final String RESULTS = "results.jsonl";
    /** Where hwtool's rdmsr outputs go in the results directory, beside msr-tools' in {@link #MSR_TOOLS_DIR}. */
    static final String HWTOOL_DIR = "rdmsr-hwtool";
    static final String MSR_TOOLS_DIR = "rdmsr-msrtools";
    /** The unprivileged user: "nobody" on Debian. */
    static final int NOBODY = 65534;

    private static final List<GuestMsr> READ_SET =
            List.of(GuestMsr.IA32_APIC_BASE, GuestMsr.IA32_MISC_ENABLE, GuestMsr.IA32_PAT, GuestMsr.IA32_TSC_AUX);
    private static final Path SYS_CPU = Path.of("/sys/devices/system/cpu");

    private final OutputStream results;
    private final Path outDir;

    private GuestChecks(Path outDir, OutputStream results) {
        this.outDir = outDir;
        this.results = results;
    }

    public static void main(String[] args) throws IOException {
        System.out.println("HWTOOL-CHECKS " + String.join(" ", args) + " main() at +"
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + "ms");
        Path out = Path.of(System.getenv("HWTOOL_OUT"));
        try (OutputStream results = Files.newOutputStream(out.resolve(RESULTS), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            GuestChecks checks = new GuestChecks(out, results);
            switch (args[0]) {
                case "driver" -> checks.driverBoot(Path.of(args[1]), Path.of(args[2]));
                case "writes-off" -> checks.writesOffBoot(List.of(args).contains("rdmsr"));
                case "lockdown" -> checks.lockdownBoot();
                default -> throw new IllegalArgumentException("unknown batch " + args[0]);
            }
        }
    }

    /**
     * Boot with neither cpuid nor msr loaded: reads without any /dev/cpu, then with /dev/cpu/N
     * made by the cpuid driver but no msr node; then msr loaded: reads, TSC, a write, the
     * careful write path ({@link GuestCarefulWrites}), the MsrAccess contract suite
     * ({@link GuestContract}), an offline CPU.
     */
    private void driverBoot(Path cpuidModule, Path msrModule) throws IOException {
        observe("cpuinfo", () -> Map.of("rdtscp", String.valueOf(cpuFlags().contains("rdtscp"))));
        absent("absent-no-dev-cpu");
        observe("insmod-cpuid", () -> {
            GuestSyscalls.loadModule(cpuidModule);
            return Map.of("dir", String.valueOf(Files.isDirectory(Path.of("/dev/cpu/0"))));
        });
        absent("absent");
        observe("insmod-msr", () -> {
            GuestSyscalls.loadModule(msrModule);
            return Map.of("node", String.valueOf(Files.exists(Path.of("/dev/cpu/0/msr"))));
        });
        for (String b : Bindings.names()) {
            try (MsrAccess m = open(b)) {
                reads(b, m);
                for (int cpu : List.of(0, 1)) {
                    observe("tsc/" + b + "/cpu" + cpu, () -> tscTwice(b, m, cpu));
                }
                observe("write/" + b, () -> writeAndRestore(m));
            }
        }
        // The careful write path (MsrAccess.write(WriteRequest)) through Platform.open(), journal in the guest's /tmp.
        GuestCarefulWrites.run(this::observe, Path.of(System.getProperty("java.io.tmpdir")));
        // The whole MsrAccess contract, as on the simulator, while both CPUs are online.
        observe("contract", () -> GuestContract.run(this::recordUnchecked));
        offlineCpu();
    }

    private void absent(String check) throws IOException {
        for (String b : Bindings.names()) {
            observe(check + "/" + b, () -> {
                try (MsrAccess m = open(b)) {
                    return hex(m.read(0, GuestMsr.IA32_APIC_BASE.index));
                }
            });
        }
    }

    /**
     * IA32_TIME_STAMP_COUNTER read twice through the driver, each bracketed by the RDTSC
     * instruction on this thread: the instruction shows whether the counter runs even where the
     * emulator's RDMSR does not implement the MSR.
     */
    private static Map<String, String> tscTwice(String b, MsrAccess m, int cpu) {
        try (var binding = Bindings.open(b)) {
            long rdtsc1 = binding.rdtsc();
            long first = m.read(cpu, GuestMsr.IA32_TIME_STAMP_COUNTER.index);
            long second = m.read(cpu, GuestMsr.IA32_TIME_STAMP_COUNTER.index);
            long rdtsc2 = binding.rdtsc();
            return Map.of("first", Long.toUnsignedString(first), "second", Long.toUnsignedString(second),
                    "rdtsc_first", Long.toUnsignedString(rdtsc1), "rdtsc_second", Long.toUnsignedString(rdtsc2));
        }
    }

    /** IA32_TSC_AUX on CPU 0: write a different low half, read back, restore, read again. */
    private static Map<String, String> writeAndRestore(MsrAccess m) {
        int aux = GuestMsr.IA32_TSC_AUX.index;
        long old = m.read(0, aux);
        long written = (old ^ 0x5a5) & 0xffff_ffffL;
        m.write(0, aux, written);
        long back = m.read(0, aux);
        m.write(0, aux, old);
        long restored = m.read(0, aux);
        return Map.of("old", hx(old), "written", hx(written),
                "read_back", hx(back), "restored", hx(restored));
    }

    /**
     * CPU 1 taken offline: msr.c's hotplug callback removes /dev/cpu/1/msr (a fresh open finds
     * no node), and a descriptor opened before answers ENXIO (rdmsr_safe_on_cpu on an offline
     * CPU). Brought back online, the node returns.
     */
    private void offlineCpu() throws IOException {
        Map<String, MsrAccess> held = new LinkedHashMap<>();
        for (String b : Bindings.names()) {
            MsrAccess m = open(b);
            held.put(b, m);
            observe("before-offline/" + b, () -> hex(m.read(1, GuestMsr.IA32_APIC_BASE.index)));
        }
        observe("offline", () -> {
            Files.writeString(SYS_CPU.resolve("cpu1/online"), "0");
            return cpuState();
        });
        for (String b : Bindings.names()) {
            observe("offline/" + b + "/cpus", () -> Map.of("cpus", join(held.get(b).cpus())));
            observe("offline/" + b + "/opened-before", () -> hex(held.get(b).read(1, GuestMsr.IA32_APIC_BASE.index)));
            observe("offline/" + b + "/fresh", () -> {
                try (MsrAccess m = open(b)) {
                    return hex(m.read(1, GuestMsr.IA32_APIC_BASE.index));
                }
            });
        }
        observe("online", () -> {
            Files.writeString(SYS_CPU.resolve("cpu1/online"), "1");
            return cpuState();
        });
        for (String b : Bindings.names()) {
            observe("online/" + b + "/opened-before", () -> hex(held.get(b).read(1, GuestMsr.IA32_APIC_BASE.index)));
            observe("online/" + b + "/fresh", () -> {
                try (MsrAccess m = open(b)) {
                    return hex(m.read(1, GuestMsr.IA32_APIC_BASE.index));
                }
            });
            held.get(b).close();
        }
    }

    /** Boot with msr.allow_writes=off: reads, a refused write, and hwtool rdmsr beside msr-tools' output. */
    private void writesOffBoot(boolean rdmsr) throws IOException {
        observe("allow_writes", () -> Map.of("value", Files.readString(Path.of("/sys/module/msr/parameters/allow_writes")).strip()));
        refusedWrites();
        if (rdmsr) {
            observe("rdmsr", this::rdmsrCases);
        }
    }

    /** Boot with lockdown=integrity: reads, a refused write; then as a user without CAP_SYS_RAWIO. */
    private void lockdownBoot() throws IOException {
        observe("lockdown", () -> Map.of("value", Files.readString(Path.of("/sys/kernel/security/lockdown")).strip()));
        refusedWrites();
        unprivileged();
    }

    private void refusedWrites() throws IOException {
        for (String b : Bindings.names()) {
            try (MsrAccess m = open(b)) {
                reads(b, m);
                long before = m.read(0, GuestMsr.IA32_TSC_AUX.index);
                observe("write/" + b, () -> {
                    m.write(0, GuestMsr.IA32_TSC_AUX.index, (before ^ 0x5a5) & 0xffff_ffffL);
                    // Not expected to get here; put the register back if the kernel let the write through.
                    m.write(0, GuestMsr.IA32_TSC_AUX.index, before);
                    return Map.of("written", "true");
                });
                observe("after-write/" + b, () -> Map.of("before", hx(before),
                        "after", hx(m.read(0, GuestMsr.IA32_TSC_AUX.index))));
            }
        }
    }

    /**
     * Gives up root for good, so it runs last: /dev/cpu/0/msr made world read-writable (the
     * file mode passes, then msr_open's capable(CAP_SYS_RAWIO) refuses: EPERM), /dev/cpu/1/msr
     * left 0600 root (the VFS refuses first: EACCES). One JVM drops its own credentials through
     * glibc's setresuid rather than a second JVM under setpriv/su: no fork, and half the boot time.
     */
    private void unprivileged() throws IOException {
        observe("chmod", () -> {
            Files.setPosixFilePermissions(Path.of("/dev/cpu/0/msr"), PosixFilePermissions.fromString("rw-rw-rw-"));
            return Map.of("cpu0", mode(0), "cpu1", mode(1));
        });
        observe("drop", () -> {
            GuestSyscalls.dropTo(NOBODY, NOBODY);
            Map<String, String> status = new LinkedHashMap<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:") || line.startsWith("CapEff:") || line.startsWith("CapPrm:")) {
                    status.put(line.substring(0, line.indexOf(':')), line.substring(line.indexOf(':') + 1).strip());
                }
            }
            return status;
        });
        for (String b : Bindings.names()) {
            for (int cpu : List.of(0, 1)) {
                observe("unprivileged/" + b + "/cpu" + cpu, () -> {
                    try (MsrAccess m = open(b)) {
                        return hex(m.read(cpu, GuestMsr.IA32_APIC_BASE.index));
                    }
                });
            }
        }
    }

    private void reads(String b, MsrAccess m) throws IOException {
        observe("cpus/" + b, () -> Map.of("cpus", join(m.cpus())));
        for (int cpu : List.of(0, 1)) {
            for (GuestMsr r : READ_SET) {
                observe("read/" + b + "/cpu" + cpu + "/" + r, () -> hex(m.read(cpu, r.index)));
            }
        }
    }

    /** hwtool's rdmsr, in this JVM, for every case; output as bytes (-r is binary) beside msr-tools'. */
    private Map<String, String> rdmsrCases() throws IOException {
        Path dir = Files.createDirectories(outDir.resolve(HWTOOL_DIR));
        for (RdmsrCases.Case c : RdmsrCases.all()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            // ISO-8859-1: one byte per char, so the 8 raw bytes of -r arrive unchanged; the rest is ASCII.
            PrintWriter o = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.ISO_8859_1));
            PrintWriter e = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8));
            int rc = Main.run("rdmsr", c.args().toArray(String[]::new), o, e);
            o.flush();
            e.flush();
            Files.write(dir.resolve(c.id() + ".out"), out.toByteArray());
            Files.write(dir.resolve(c.id() + ".err"), err.toByteArray());
            Files.writeString(dir.resolve(c.id() + ".rc"), rc + "\n");
        }
        return Map.of("cases", Integer.toString(RdmsrCases.all().size()));
    }

    private static MsrAccess open(String binding) {
        return new DeviceMsrAccess(Bindings.open(binding));
    }

    private void observe(String check, Callable<Map<String, String>> body) throws IOException {
        Observation o;
        try {
            o = Observation.ok(check, body.call());
        } catch (Throwable t) {
            o = Observation.failed(check, t);
        }
        record(o);
    }

    private void recordUnchecked(Observation o) {
        try {
            record(o);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + RESULTS, e);
        }
    }

    private void record(Observation o) throws IOException {
        results.write((o.toJson() + "\n").getBytes(StandardCharsets.UTF_8));
        results.flush();
        // The time since the JVM started, to see on the console where emulated time goes.
        System.out.println("HWTOOL-CHECK +" + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + "ms " + o);
    }

    private static Map<String, String> hex(long value) {
        return Map.of("value", hx(value));
    }

    private static String hx(long value) {
        return String.format("0x%016x", value);
    }

    private static String join(List<Integer> cpus) {
        return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static Map<String, String> cpuState() throws IOException {
        return Map.of("online", Files.readString(SYS_CPU.resolve("online")).strip(),
                "node", String.valueOf(Files.exists(Path.of("/dev/cpu/1/msr"))));
    }

    private static String mode(int cpu) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of("/dev/cpu/" + cpu + "/msr")));
    }

    private static List<String> cpuFlags() throws IOException {
        return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("flags"))
                .findFirst().map(l -> List.of(l.substring(l.indexOf(':') + 1).strip().split(" "))).orElse(List.of());
    }
}
