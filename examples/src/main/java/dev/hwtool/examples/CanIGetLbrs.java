package dev.hwtool.examples;

import dev.hwtool.caps.Facility;
import dev.hwtool.caps.Verdict;
import dev.hwtool.linux.LinuxPlatform;

/** Task 1: can this machine give me LBRs through perf, and if not, why not and what is the fix? */
public final class CanIGetLbrs {
    public static void main(String[] args) {
        try (LinuxPlatform p = LinuxPlatform.open()) {
            Verdict v = p.verdict(Facility.LBR_PERF);
            System.out.println(v.usable() ? "LBR: yes, " + v.reason() : "LBR: no, " + v.reason() + "; fix: " + v.remedy());
        }
    }
}
