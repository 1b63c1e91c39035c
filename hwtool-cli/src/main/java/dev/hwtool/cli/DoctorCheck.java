package dev.hwtool.cli;

import dev.hwtool.api.Cause;

/**
 * One precondition {@code hwtool doctor} checked.
 *
 * @param name   stable key for scripts (JSON "name"), e.g. "msr_driver"
 * @param label  what the text report calls it, e.g. "msr driver"
 * @param detail what was found, concretely (paths, values)
 * @param fix    the command or setting that would make it pass; "" when there is none
 * @param cause  the error an operation would fail with because of this, or null when none
 */
record DoctorCheck(String name, String label, Status status, String detail, String fix, Cause cause) {

    /** ok: met; warn: met with a restriction or consequence, or cannot tell; fail: not met. */
    enum Status { OK, WARN, FAIL }

    DoctorCheck {
        if (detail == null || detail.isBlank()) {
            throw new IllegalArgumentException("check " + name + " needs a detail");
        }
        fix = fix == null ? "" : fix;
        if (status == Status.FAIL && cause == null) {
            throw new IllegalArgumentException("failing check " + name + " needs a cause (it decides the exit code)");
        }
    }

    static DoctorCheck ok(String name, String label, String detail) {
        return new DoctorCheck(name, label, Status.OK, detail, "", null);
    }

    static DoctorCheck warn(String name, String label, String detail, String fix, Cause cause) {
        return new DoctorCheck(name, label, Status.WARN, detail, fix, cause);
    }

    static DoctorCheck fail(String name, String label, String detail, String fix, Cause cause) {
        return new DoctorCheck(name, label, Status.FAIL, detail, fix, cause);
    }
}
