package dev.hwtool.examples;

import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;

/** Task 1: can this machine give me LBRs through perf, and if not, why not and what is the fix? */
public final class CanIGetLbrs {
    public static void main(String[] args) {
        try (Platform p = Platform.open()) {
            Verdict v = p.capabilities().verdict(Facility.LBR_PERF);
            System.out.println((v.usable() ? "LBR: yes, " : "LBR: no, ") + v.message() + v.remedy().map(r -> "; fix: " + r).orElse(""));
        }
    }
}
