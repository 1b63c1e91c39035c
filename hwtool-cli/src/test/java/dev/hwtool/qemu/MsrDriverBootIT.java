package dev.hwtool.qemu;

import dev.hwtool.api.Cause;
import dev.hwtool.cli.Require;
import dev.hwtool.linux.Bindings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Linux msr driver (arch/x86/kernel/msr.c) under QEMU TCG, 2 CPUs, booted without the
 * cpuid and msr modules: hwtool's {@code DeviceMsrAccess} on both bindings before the driver is
 * there, then reading and writing real registers through it, the MsrAccess contract suite on
 * both bindings (run in the guest by {@link GuestContract}), then with CPU 1 offline.
 */
class MsrDriverBootIT {

    private static Observations guest;

    @BeforeAll
    static void boot() throws Exception {
        Kernel kernel = RealKernel.require();
        ModuleDeps deps = ModuleDeps.of(kernel);
        Require.that(!deps.isBuiltin("msr") && !deps.isBuiltin("cpuid"),
                "kernel " + kernel.version() + " has the msr or cpuid driver built in; the driver-absent checks need modules");
        Path cpuid = deps.loadOrder(List.of("cpuid")).getLast();
        Path msr = deps.loadOrder(List.of("msr")).getLast();
        guest = RealKernel.boot(RealKernel.guest("driver", kernel)
                .command(RealKernel.checksCommandWithJUnit("driver", cpuid.toString(), msr.toString())).build());
    }

    @Test
    void theGuestJvmRanToTheEnd() {
        assertEquals(0, guest.run().guestExit().getAsInt(), () -> "guest JVM exit status\n" + guest.run().consoleTail(30));
    }

    @Test
    void withoutTheModuleEveryReadSaysDriverNotLoaded() {
        for (String b : Bindings.names()) {
            String noDevCpu = guest.failure("absent-no-dev-cpu/" + b, Cause.DRIVER_NOT_LOADED);
            // the guest chroots into the host's root, /.dockerenv included: that alone is no container
            assertTrue(noDevCpu.contains("CPU 0 is online but /dev/cpu/0 is missing: the msr driver is not loaded"),
                    noDevCpu);
            assertFalse(noDevCpu.contains("container"), noDevCpu);
            guest.failure("absent/" + b, Cause.DRIVER_NOT_LOADED);
        }
        assertEquals("true", guest.values("insmod-cpuid").get("dir"), "cpuid.ko made /dev/cpu/0");
        assertEquals("true", guest.values("insmod-msr").get("node"), "msr.ko made /dev/cpu/0/msr");
    }

    @Test
    void bothBindingsSeeBothCpus() {
        for (String b : Bindings.names()) {
            assertEquals("0,1", guest.values("cpus/" + b).get("cpus"), b);
        }
    }

    /** SDM Vol. 3A 11.4.4: APIC base 0xFEE00000 in bits 35:12 (Linux keeps the default), EN (bit 11), BSP (bit 8) on CPU 0 only. */
    @Test
    void apicBaseIsTheDefaultBaseEnabledWithTheBspFlagOnCpu0Only() {
        for (String b : Bindings.names()) {
            for (int cpu : List.of(0, 1)) {
                long v = guest.register("read/" + b + "/cpu" + cpu + "/IA32_APIC_BASE");
                String what = b + " cpu" + cpu + " IA32_APIC_BASE 0x" + Long.toHexString(v);
                assertEquals(0xFEE00L, (v >>> 12) & 0xFFFFFL, what + ": base");
                assertEquals(1L, (v >>> 11) & 1, what + ": EN");
                assertEquals(cpu == 0 ? 1L : 0L, (v >>> 8) & 1, what + ": BSP");
            }
        }
    }

    /** Linux writes (node << 12 | cpu) into IA32_TSC_AUX of each CPU (arch/x86/kernel/cpu/common.c setup_getcpu): the read reached that CPU. */
    @Test
    void tscAuxHoldsEachCpusNumber() {
        assertEquals("true", guest.values("cpuinfo").get("rdtscp"), "the TCG CPU model has RDTSCP");
        for (String b : Bindings.names()) {
            for (int cpu : List.of(0, 1)) {
                assertEquals(cpu, guest.register("read/" + b + "/cpu" + cpu + "/IA32_TSC_AUX"), b + " cpu" + cpu);
            }
        }
    }

    @Test
    void ffmAndJnaReadTheSameValues() {
        for (int cpu : List.of(0, 1)) {
            for (GuestMsr r : List.of(GuestMsr.IA32_APIC_BASE, GuestMsr.IA32_MISC_ENABLE, GuestMsr.IA32_PAT, GuestMsr.IA32_TSC_AUX)) {
                String suffix = "/cpu" + cpu + "/" + r;
                assertEquals(guest.value("read/ffm" + suffix), guest.value("read/jna" + suffix), r + " on cpu" + cpu);
            }
        }
    }

    /**
     * The counter runs (RDTSC advances across the two reads), but QEMU's TCG RDMSR (7.2,
     * target/i386/tcg/sysemu/misc_helper.c) has no case for IA32_TIME_STAMP_COUNTER and answers
     * 0, as for every MSR it does not know (msr-tools' {@code rdmsr 0x10} reads 0 there too,
     * measured). These guests always run under TCG, so through the driver the MSR must read
     * exactly that. "Advances between reads" cannot be shown through RDMSR on this emulator.
     */
    @Test
    void theTimeStampCounterRunsButTcgReadsTheMsrAsZero() {
        for (String b : Bindings.names()) {
            for (int cpu : List.of(0, 1)) {
                Map<String, String> tsc = guest.values("tsc/" + b + "/cpu" + cpu);
                String what = b + " cpu" + cpu + " IA32_TIME_STAMP_COUNTER " + tsc;
                assertTrue(Long.compareUnsigned(Long.parseUnsignedLong(tsc.get("rdtsc_second")),
                        Long.parseUnsignedLong(tsc.get("rdtsc_first"))) > 0, what + ": RDTSC advances");
                assertEquals("0", tsc.get("first"), what + ": TCG's RDMSR of 0x10 answers 0 (if it advances now, QEMU"
                        + " implements the MSR: assert second > first here instead)");
                assertEquals("0", tsc.get("second"), what);
            }
        }
    }

    @Test
    void aWriteReadsBackAndTheOldValueIsRestored() {
        for (String b : Bindings.names()) {
            Map<String, String> w = guest.values("write/" + b);
            assertNotEquals(w.get("old"), w.get("written"), b + " wrote a different value " + w);
            assertEquals(w.get("written"), w.get("read_back"), b + " IA32_TSC_AUX read back " + w);
            assertEquals(w.get("old"), w.get("restored"), b + " IA32_TSC_AUX restored " + w);
        }
    }

    /**
     * DESIGN.md: one contract suite, two backends. The simulator runs MsrAccessContract in
     * surefire; here every one of its @Test methods ran on DeviceMsrAccess over the real driver,
     * once per binding, and passed. The expected set comes from reflection on the contract.
     */
    @Test
    void theMsrAccessContractPassesOnTheRealDriverWithBothBindings() {
        Map<String, String> summary = guest.values("contract");
        List<String> expected = GuestContract.expectedChecks(Bindings.names());
        Map<String, Observation> ran = guest.startingWith(GuestContract.TEST_PREFIX);
        List<String> notPassed = ran.values().stream().filter(o -> !o.succeeded()).map(Observation::toString).toList();
        System.out.println("[qemu] MsrAccessContract in the guest: " + (ran.size() - notPassed.size()) + " of "
                + expected.size() + " passed (" + GuestContract.contractTestMethods().size() + " tests x "
                + Bindings.names().size() + " bindings) " + summary);
        assertAll(
                () -> assertEquals(List.of(), guest.startingWith(GuestContract.CONTAINER_PREFIX).values().stream()
                        .map(Observation::toString).toList(), "contract classes that failed in the guest"),
                () -> assertEquals(new TreeSet<>(expected), new TreeSet<>(ran.keySet()),
                        "contract tests run in the guest vs the contract's @Test methods x bindings"),
                () -> assertEquals(List.of(), notPassed, "contract tests that did not pass in the guest"),
                () -> assertEquals(Integer.toString(expected.size()), summary.get("tests_succeeded"),
                        "the launcher's own count of passed tests " + summary));
    }

    @Test
    void anOfflineCpuIsNoSuchCpuAndComesBackOnline() {
        Map<String, String> offline = guest.values("offline");
        assertEquals("0", offline.get("online"), "online CPUs after echo 0 > cpu1/online");
        assertEquals("false", offline.get("node"), "/dev/cpu/1/msr is removed with the CPU");
        for (String b : Bindings.names()) {
            String before = guest.value("before-offline/" + b);
            assertEquals("0", guest.values("offline/" + b + "/cpus").get("cpus"), b);
            guest.failure("offline/" + b + "/opened-before", Cause.NO_SUCH_CPU);
            guest.failure("offline/" + b + "/fresh", Cause.NO_SUCH_CPU);
            assertEquals(before, guest.value("online/" + b + "/opened-before"), b + " after online, the old descriptor");
            assertEquals(before, guest.value("online/" + b + "/fresh"), b + " after online, a new open");
        }
        assertEquals(Map.of("online", "0-1", "node", "true"), guest.values("online"));
    }
}
