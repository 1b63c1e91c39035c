package dev.hwtool.arch.msr;

import java.util.List;
import java.util.Optional;

/** Last-branch-record registers, legacy and architectural (hardware-facts §3.7). */
final class LbrMsrs {

    private LbrMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of();
    }

    static Optional<String> coreStackName(String upperCaseName) {
        return Optional.empty();
    }
}
