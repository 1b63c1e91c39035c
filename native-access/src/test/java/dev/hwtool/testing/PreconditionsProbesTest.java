package dev.hwtool.testing;

import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.io.CpuList;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The helper's probes of the host against a second way of asking the same thing, so that a skip
 * stands on a probe that reads the host right. Here, not beside the helper in hwtool-api: the
 * second ways of asking (sched_getaffinity, the CPUID instruction, perf_event_open) are this
 * module's binding, and the helper's native probes (NativeBindingProbe) are this module's too.
 */
class PreconditionsProbesTest {

    @Test
    void theMaskIsWhatSchedGetaffinityGivesWithinTheOnlineCpus() {
        NativeBinding b = Bindings.openDefault();
        BitSet mask = b.schedGetaffinity(); // the calling thread's: JUnit's, never pinned between tests
        List<Integer> online = CpuList.online();
        assertEquals(mask.stream().boxed().filter(online::contains).toList(), Preconditions.cpusInMask());
        assertEquals(Preconditions.cpusInMask().getFirst(), Preconditions.firstCpuInMask());
        assertEquals(Preconditions.cpusInMask().size() >= 2, Preconditions.Hardware.SECOND_CPU_IN_MASK.present());
    }

    @Test
    void rdtscpIsTheCpuinfoFlag() throws IOException {
        // The kernel's "rdtscp" flag is X86_FEATURE_RDTSCP, CPUID.80000001H:EDX[27]
        // (arch/x86/include/asm/cpufeatures.h), unless the kernel cleared it.
        String flags = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("flags"))
                .findFirst().orElseThrow();
        boolean cpuinfo = (" " + flags.substring(flags.indexOf(':') + 1) + " ").contains(" rdtscp ");
        if (cpuinfo) {
            assertTrue(Preconditions.Hardware.RDTSCP.present(), "cpuinfo says rdtscp, the probe does not");
        }
    }

    @Test
    void theSeccompProbeReachesTheKernelWhereNoFilterIsInstalled() throws IOException {
        String seccomp = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Seccomp:"))
                .findFirst().orElseThrow().substring("Seccomp:".length()).strip();
        if (seccomp.equals("0")) {
            // No filter: the call must pass (a NULL attr is the kernel's EFAULT, never a refusal).
            Preconditions.perfEventOpenReachesTheKernel();
        }
        assertTrue(List.of("0", "1", "2").contains(seccomp), seccomp);
    }

    @Test
    void theThpModeIsTheBracketedOne() throws IOException {
        Path enabled = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        Preconditions.Thp mode = Preconditions.Thp.host();
        if (Files.exists(enabled)) {
            assertTrue(Files.readString(enabled).contains("[" + mode.name().toLowerCase() + "]"), mode.name());
        } else {
            assertEquals(Preconditions.Thp.NEVER, mode);
        }
        assertEquals(4096, Preconditions.Thp.NEVER.fewestFaults(16L << 20));
        assertEquals(4096, Preconditions.Thp.MADVISE.fewestFaults(16L << 20));
        assertEquals((16L << 20) / Preconditions.Thp.pmdSize(), Preconditions.Thp.ALWAYS.fewestFaults(16L << 20));
    }

    @Test
    void libcIsFoundBySonameAndIsAnElfFile() throws IOException {
        Path libc = Preconditions.library("libc.so.6", "libc6");
        byte[] magic = new byte[4];
        try (var in = Files.newInputStream(libc)) {
            assertEquals(4, in.read(magic));
        }
        assertEquals("\u007fELF", new String(magic, java.nio.charset.StandardCharsets.ISO_8859_1), libc.toString());
        assertTrue(Preconditions.findLibrary("libhwtool-no-such-library.so.0").isEmpty());
    }

    @Test
    void rootIsUidZeroAsTheJvmSeesIt() {
        assertEquals("root".equals(System.getProperty("user.name")), Preconditions.isRoot());
    }

    @Test
    void theCorePmuIsOneOfTheEventSources() {
        Preconditions.corePmu().ifPresent(name ->
                assertTrue(Files.isDirectory(Path.of("/sys/bus/event_source/devices", name)), name));
        assertEquals(Preconditions.Hardware.CORE_PMU.present(), Preconditions.corePmu().isPresent());
    }

    @Test
    void theIa32ProbeAgreesWithAProgramGccBuilds(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        // The hand-written ELF32 against one the toolchain links (-m32: Debian's gcc-multilib,
        // which .ci/run installs): the kernel runs both or neither.
        Preconditions.tool("/usr/bin/gcc", "gcc");
        Files.writeString(dir.resolve("exit42.c"), "int main(void) { return 42; }\n");
        Process cc = new ProcessBuilder("/usr/bin/gcc", "-m32", "-o", "exit42", "exit42.c").directory(dir.toFile())
                .redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        Preconditions.that(cc.waitFor() == 0, "gcc -m32 failed (apt-get install gcc-multilib): " + ccOut);
        boolean gccBuiltRuns;
        try {
            Process p = new ProcessBuilder(dir.resolve("exit42").toString()).start();
            gccBuiltRuns = p.waitFor() == 42;
        } catch (IOException e) {
            assertTrue(e.getMessage().contains("error=8"), "ENOEXEC, or a reason to look at: " + e.getMessage());
            gccBuiltRuns = false;
        }
        assertEquals(gccBuiltRuns, Preconditions.Hardware.IA32_EXECUTION.present(),
                "probe: " + Preconditions.Hardware.ia32Refusal().orElse("it ran"));
    }
}
