/**
 * hwtool's hardware backend against the real Linux msr driver (arch/x86/kernel/msr.c), in
 * throw-away QEMU guests under software emulation (TCG; KVM hangs on the build machine).
 *
 * <p>{@link dev.hwtool.qemu.QemuGuest} boots the newest installed Debian kernel with an initramfs
 * it builds in target/qemu/NAME/ (static busybox, the modules that are not built in, resolved
 * through modules.dep, and an init script); the host root is shared read-only over 9p and the
 * guest command runs chrooted into it, so the guest runs this build's jar and test classes with
 * the host's JDK at their usual paths. Results come back through a second, writable 9p export
 * (results.jsonl, one {@link dev.hwtool.qemu.Observation} per check); the serial console is
 * kept in console.log and its tail is shown when a guest does not boot or finish.
 *
 * <p>One JVM per boot ({@link dev.hwtool.qemu.GuestChecks}) does all checks of that boot, in order,
 * without forking: it loads modules itself (finit_module) where a check needs the driver absent
 * first, and gives up root itself (glibc setresuid, all threads) for the unprivileged checks,
 * which therefore run last. The host ITs assert:
 * <ul>
 * <li>{@code MsrDriverBootIT} (2 CPUs, no cpuid/msr module): DRIVER_NOT_LOADED without /dev/cpu and
 *     with /dev/cpu/N but no msr node; after loading msr, real reads on both CPUs and both bindings
 *     (APIC base layout, IA32_TSC_AUX = CPU number, FFM = JNA), a write of IA32_TSC_AUX read back and
 *     restored, the TSC (which TCG's RDMSR answers as 0), the careful write path
 *     ({@code MsrAccess.write(WriteRequest)} through {@code Platform.open()} on both bindings,
 *     {@link dev.hwtool.qemu.GuestCarefulWrites}): IA32_TSC_AUX.AUX on both CPUs journaled as "hw" in
 *     the guest, verified and undone by batch, a dry run and two refusals that write nothing, and two
 *     real rollbacks across CPUs (TCG's #GP on IA32_PKRS bit 32, and its dropping of IA32_DEBUGCTL
 *     writes as a read-back mismatch), the CLI's wrmsr and msr restore --last and the library undoing
 *     each other's batches in one journal, the whole {@code MsrAccessContract} (the
 *     suite the simulator passes) on both bindings, run in the guest JVM by the JUnit Platform
 *     launcher ({@link dev.hwtool.qemu.GuestContract}; every @Test of the contract × 2 bindings must
 *     pass), CPU 1 offline → NO_SUCH_CPU through a fresh open and through a descriptor opened before,
 *     and back online.</li>
 * <li>{@code MsrWritesOffBootIT} ({@code msr.allow_writes=off}): reads equal msr-tools' rdmsr,
 *     writes → WRITES_DISABLED and change nothing; hwtool rdmsr vs msr-tools rdmsr on
 *     {@link dev.hwtool.qemu.RdmsrCases}.</li>
 * <li>{@code MsrLockdownBootIT} ({@code lockdown=integrity}): reads work, writes → LOCKDOWN; then as
 *     uid 65534 with no capabilities: a 0666 node → MISSING_CAPABILITY, a 0600 node → PERMISSION_DENIED.</li>
 * <li>{@code CpuModelsIT}: 15 QEMU {@code -cpu} models (Core 2 to Cooper Lake, Goldmont and Tremont
 *     servers, QEMU's Icelake-Server with its 06_86H signature, EPYC-Rome and -Milan), one boot each:
 *     caps, doctor, cpuid and rdmsr in one guest JVM ({@link dev.hwtool.qemu.GuestCommands}) against
 *     /proc/cpuinfo, {@code cpuid -r}, msr-tools' rdmsr and a table of the signatures' names.</li>
 * <li>{@code UnprivilegedGuestIT}: as uid 65534 without capabilities at perf_event_paranoid 2 and 3:
 *     PERMISSION_DENIED and MISSING_CAPABILITY, the level named, rdmsr's exit 127.</li>
 * <li>{@code QemuGuestIT}: the harness itself (command, exit status, results directory, time limit).</li>
 * </ul>
 * Missing qemu, kernel, busybox-static or msr-tools skip locally and fail under HWTOOL_REQUIRE_ALL=1.
 */
package dev.hwtool.qemu;
