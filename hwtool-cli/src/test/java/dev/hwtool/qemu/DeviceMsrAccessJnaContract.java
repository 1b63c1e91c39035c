package dev.hwtool.qemu;

/**
 * The MsrAccess contract on {@code DeviceMsrAccess} over the jna binding. Needs the real msr
 * driver: run only inside the QEMU guest by {@link GuestContract}, never by surefire or
 * failsafe on the host (hence not named *Test or *IT).
 */
class DeviceMsrAccessJnaContract extends QemuMsrAccessContract {

    DeviceMsrAccessJnaContract() {
        super("jna");
    }
}
