package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfEventNames;

/**
 * perf's name of an event whose file has no HEADER_EVENT_DESC (perf before 3.6, some pipe files):
 * tools/perf/util/evsel.c evsel__name, the generic name of type and config, then the modifiers of
 * evsel__add_modifiers (":u", ":k", ":ppp", ":H"/":G").
 */
final class EventNames {

    private EventNames() {
    }

    static String of(PerfEventAttr a) {
        StringBuilder mods = new StringBuilder();
        boolean excludeGuestDefault = false;
        boolean exK = a.has(PerfAttrFlag.EXCLUDE_KERNEL);
        boolean exU = a.has(PerfAttrFlag.EXCLUDE_USER);
        boolean exH = a.has(PerfAttrFlag.EXCLUDE_HV);
        if (exK || exU || exH) {
            if (!exK) {
                mods.append('k');
            }
            if (!exU) {
                mods.append('u');
            }
            if (!exH) {
                mods.append('h');
            }
            excludeGuestDefault = true;
        }
        if (a.preciseIp() > 0) {
            mods.append("ppp", 0, Math.min(3, a.preciseIp()));
            excludeGuestDefault = true;
        }
        if (a.has(PerfAttrFlag.EXCLUDE_HOST) || a.has(PerfAttrFlag.EXCLUDE_GUEST) == excludeGuestDefault) {
            if (!a.has(PerfAttrFlag.EXCLUDE_HOST)) {
                mods.append('H');
            }
            if (!a.has(PerfAttrFlag.EXCLUDE_GUEST)) {
                mods.append('G');
            }
        }
        String base = PerfEventNames.of(a.type(), a.config());
        return mods.isEmpty() ? base : base + ":" + mods;
    }
}
