package dev.hwtool.arch.msr;

import java.util.List;

/** Non-debug architectural registers hwtool shows and the simulator models. */
final class PlatformMsrs {

    private PlatformMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of();
    }
}
