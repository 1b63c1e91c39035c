package dev.hwtool.bench;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.cli.Main;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.DeviceMsrAccess;
import dev.hwtool.linux.LinuxPlatform;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * hwtool's MSR read path, timed in one JVM: the Java side of {@code benchmarks/src/main/c/msr_read_loop.c}.
 * It needs the msr driver, which the build machine lacks, so MsrReadBenchIT (hwtool-cli) runs it
 * in a QEMU guest, between two passes of the C loop, in the same boot.
 *
 * <p>Not JMH: under TCG every guest instruction is emulated, so JMH's forked JVM per benchmark
 * (each start-up takes seconds of emulated time) and its time-based iterations would stretch the
 * run to many minutes for nothing a plain loop does not show here; what matters is a steady state
 * reached by warm-up runs, and C and Java in the same boot.
 *
 * <p>Operations, with the C operation each is compared with (the thread is pinned to CPU 0, as
 * the C loop pins itself, so CPU 0's reads are local calls in the kernel, not IPIs):
 * <ul>
 * <li>{@code ffmRead}, {@code jnaRead}: {@code DeviceMsrAccess.read(0, msr)} on each binding — msrRead;</li>
 * <li>{@code ffmPread}, {@code jnaPread}: {@code NativeBinding.pread} of 8 bytes on an open fd — msrRead;</li>
 * <li>{@code ffmTmpPread}, {@code jnaTmpPread}: the same pread on an 8-byte temp file — tmpPread (the
 *     host benchmarks' row, to see how far TCG moves a ratio);</li>
 * <li>{@code ffmReadAll}: {@code DeviceMsrAccess.read(cpu, msr)} for every online CPU, nodes held open — msrReadAll;</li>
 * <li>{@code ffmSessionAll}: what {@code rdmsr -a} does without its command line — {@code LinuxPlatform.open},
 *     {@code cpuid()}, {@code msr().read} on every CPU (each node opened), {@code close} — msrReadAllOnline
 *     (which reads the online list first, as this does) and msrReadAllOpen (handed the list);</li>
 * <li>{@code rdmsrAll}: hwtool's {@code rdmsr -a MSR} in this process ({@code Main.run}, output discarded) —
 *     msrReadAll and msrReadAllOpen.</li>
 * </ul>
 * The *All operations are reported per read: time per pass divided by the number of CPUs.
 *
 * <p>Usage: {@code MsrReadLoop <msr> [scale] [runs] [warm-up runs]}; lines as the C loop's on
 * standard output, comments ({@code #}) with the JVM, every warm-up run and rdmsr's output;
 * progress on standard error.
 */
public final class MsrReadLoop {

    /** Per run, as the same operations in msr_read_loop.c, so that runs are the same size. */
    private static final long READS = 200_000;
    private static final long ALL_PASSES = 5_000;
    private static final long ALL_OPEN_PASSES = 2_000;
    /** One invocation costs tens of ms of emulated time: picocli's model, the platform, opens. */
    private static final long RDMSR_INVOCATIONS = 12;

    private static final int MSR_BYTES = 8;

    private final int msr;
    private final double scale;
    private final TimedLoop loop;
    private final List<TimedLoop.Result> results = new ArrayList<>();

    private MsrReadLoop(int msr, double scale, TimedLoop loop) {
        this.msr = msr;
        this.scale = scale;
        this.loop = loop;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 4) {
            System.err.println("usage: MsrReadLoop <msr> [scale] [runs] [warm-up runs]");
            System.exit(2);
        }
        int msr = (int) Long.decode(args[0]).longValue();
        double scale = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int warmups = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        pinToCpu0();
        MsrReadLoop bench = new MsrReadLoop(msr, scale, new TimedLoop(warmups, runs, System.err::println));
        for (String b : Bindings.names()) {
            bench.singleCpu(b);
        }
        int cpus = bench.allCpus();
        String[] rdmsr = {"rdmsr", "-a", "0x" + Integer.toHexString(msr)};
        String rdmsrOutput = rdmsrOnce(rdmsr, cpus);
        bench.rdmsr(rdmsr, cpus);

        System.out.println("# java: " + System.getProperty("java.vm.name") + " " + Runtime.version() + ", flags "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        System.out.println("# msr 0x" + Integer.toHexString(msr) + ", " + cpus + " CPUs, " + warmups + " warm-up runs, "
                + runs + " timed runs, thread pinned to CPU 0");
        System.out.println("# hwtool " + String.join(" ", rdmsr) + ": " + rdmsrOutput);
        for (TimedLoop.Result r : bench.results) {
            System.out.println("# warm-up " + r.name() + ": " + TimedLoop.Result.join(r.warmupNs()));
        }
        for (TimedLoop.Result r : bench.results) {
            System.out.println(r.tsv());
        }
        System.out.println("# sink " + bench.loop.sink());
        System.out.flush();
    }

    /** CPU 0's register through DeviceMsrAccess and through the bare binding; then a temp file. */
    private void singleCpu(String b) throws IOException {
        long offset = Integer.toUnsignedLong(msr);
        try (NativeBinding nb = Bindings.open(b); MsrAccess m = new DeviceMsrAccess(nb)) {
            results.add(loop.measure(b + "Read", n(READS), 1, passes -> {
                long s = 0;
                for (long i = 0; i < passes; i++) {
                    s += m.read(0, msr);
                }
                return s;
            }));
            preadLoop(nb, b + "Pread", DeviceMsrAccess.node(DeviceMsrAccess.DEV, 0), offset);
            Path tmp = Files.createTempFile("msr-read-loop", ".bin");
            try {
                Files.write(tmp, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
                preadLoop(nb, b + "TmpPread", tmp, 0);
            } finally {
                Files.delete(tmp);
            }
        }
    }

    private void preadLoop(NativeBinding nb, String name, Path file, long offset) {
        int fd = nb.open(file.toString(), NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
        try {
            byte[] buf = new byte[MSR_BYTES];
            results.add(loop.measure(name, n(READS), 1, passes -> {
                long s = 0;
                for (long i = 0; i < passes; i++) {
                    s += nb.pread(fd, buf, MSR_BYTES, offset) + buf[0];
                }
                return s;
            }));
        } finally {
            nb.close(fd);
        }
    }

    /** Every online CPU in turn: nodes held open, then a whole platform per pass as rdmsr -a has. */
    private int allCpus() {
        int[] cpus;
        try (NativeBinding nb = Bindings.open("ffm"); MsrAccess m = new DeviceMsrAccess(nb)) {
            cpus = m.cpus().stream().mapToInt(Integer::intValue).toArray();
            results.add(loop.measure("ffmReadAll", n(ALL_PASSES), cpus.length, passes -> {
                long s = 0;
                for (long i = 0; i < passes; i++) {
                    for (int cpu : cpus) {
                        s += m.read(cpu, msr);
                    }
                }
                return s;
            }));
        }
        results.add(loop.measure("ffmSessionAll", n(ALL_OPEN_PASSES), cpus.length, passes -> {
            long s = 0;
            for (long i = 0; i < passes; i++) {
                // As rdmsr's MsrSession: the platform, its CPUID source (for the catalog's contexts), the MSRs.
                try (LinuxPlatform p = LinuxPlatform.open("ffm")) {
                    s += p.cpuid().hashCode();
                    MsrAccess m = p.msr();
                    for (int cpu : m.cpus()) {
                        s += m.read(cpu, msr);
                    }
                }
            }
            return s;
        }));
        return cpus.length;
    }

    private void rdmsr(String[] rdmsr, int cpus) {
        PrintWriter discard = new PrintWriter(Writer.nullWriter());
        results.add(loop.measure("rdmsrAll", n(RDMSR_INVOCATIONS), cpus, passes -> {
            for (long i = 0; i < passes; i++) {
                int rc = Main.run("hwtool", rdmsr, discard, discard);
                if (rc != 0) {
                    throw new IllegalStateException("hwtool " + String.join(" ", rdmsr) + " exited " + rc + " in the timed loop");
                }
            }
            return passes;
        }));
    }

    /** One untimed {@code rdmsr -a}: it must succeed and print one line per CPU, or its timing means nothing. */
    private static String rdmsrOnce(String[] rdmsr, int cpus) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int rc = Main.run("hwtool", rdmsr, new PrintWriter(o), new PrintWriter(e));
        List<String> lines = o.toString().lines().toList();
        if (rc != 0 || lines.size() != cpus) {
            throw new IllegalStateException("hwtool " + String.join(" ", rdmsr) + " exited " + rc + " with " + lines.size()
                    + " lines for " + cpus + " CPUs: " + o + e);
        }
        return String.join(", ", lines);
    }

    /** The C loop pins itself to CPU 0 too: reads of CPU 0 are then local calls, not IPIs. */
    private static void pinToCpu0() {
        try (NativeBinding nb = Bindings.open("ffm")) {
            BitSet cpu0 = new BitSet();
            cpu0.set(0);
            nb.schedSetaffinity(cpu0);
        }
    }

    private long n(long count) {
        return Math.max(1, Math.round(count * scale));
    }
}
