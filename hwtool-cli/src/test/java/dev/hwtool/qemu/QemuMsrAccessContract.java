package dev.hwtool.qemu;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.MsrAccessContract;
import dev.hwtool.api.Platform;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.linux.DeviceMsrAccess;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link MsrAccessContract} on the hardware backend, reached through the façade
 * ({@code Platform.open} with one binding): {@link DeviceMsrAccess} over the real msr driver, with
 * the CPUID instruction of the same machine. The two overrides
 * declare the two places where QEMU's TCG CPU, not the driver, departs from hardware; each
 * still asserts exactly what TCG does. It only makes sense where /dev/cpu/N/msr exists, so its
 * subclasses are not named *Test or *IT and no host build runs them: {@link GuestContract}
 * runs them inside the {@code MsrDriverBootIT} guest after msr.ko is loaded, and the host IT
 * asserts on the results.
 */
abstract class QemuMsrAccessContract extends MsrAccessContract {

    /** One platform per test (JUnit makes an instance per test), closed after it. */
    private final Platform platform;

    QemuMsrAccessContract(String bindingName) {
        this.platform = Platform.open(Platform.Options.defaults().binding(bindingName));
    }

    @Override
    protected MsrAccess msr() {
        return platform.msr();
    }

    @Override
    protected CpuidReading cpuid() {
        return CpuidReading.of(platform.cpuid());
    }

    /**
     * False under QEMU 7.2's TCG (the only accelerator these guests use): its RDMSR helper
     * (target/i386/tcg/sysemu/misc_helper.c) has no case for IA32_TIME_STAMP_COUNTER and answers
     * 0, like msr-tools' {@code rdmsr 0x10} in the same guest, while the RDTSC instruction
     * advances ({@code MsrDriverBootIT.theTimeStampCounterRunsButTcgReadsTheMsrAsZero}). The
     * contract then requires exactly 0 on every CPU. If a newer QEMU implements the MSR, the
     * contract fails here with the running values: delete this override.
     */
    @Override
    protected boolean tscAdvancesThroughTheRegister() {
        return false;
    }

    /**
     * False under QEMU 7.2's TCG: its WRMSR helper (target/i386/tcg/sysemu/misc_helper.c,
     * {@code case MSR_TSC_AUX: env->tsc_aux = val;}) stores all 64 bits, where Intel raises
     * #GP(0) for bits 63:32 and AMD ignores them; measured in the guest, CPU 0 read back
     * 0x10000000000 after writing bit 40. If a newer QEMU faults or drops the bits, the contract
     * fails here: delete this override.
     */
    @Override
    protected boolean tscAuxReservedBitsAreHonoured() {
        return false;
    }

    @AfterEach
    void closePlatform() {
        platform.close();
    }
}
