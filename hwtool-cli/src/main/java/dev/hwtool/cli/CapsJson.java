package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;

import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Features;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.caps.Probe;
import dev.hwtool.api.Verdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of {@code hwtool caps}. The keys are a documented interface (README.md,
 * "JSON fields"): they are spelled out here, one by one, rather than derived from Java names.
 */
final class CapsJson {

    private CapsJson() {
    }

    static Map<String, Object> cpuChoice(CpuChoice ch) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", ch.cpu());
        m.put("path", ch.path());
        m.put("why", ch.why());
        List<Object> out = new ArrayList<>();
        ch.outOfReach().forEach((cpu, why) -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("cpu", cpu);
            o.put("reason", why);
            out.add(o);
        });
        m.put("out_of_reach", out);
        return m;
    }

    /** The check as JSON: outcome, summary, detail, and each differing register with its bits. */
    static Map<String, Object> cpuidPaths(dev.hwtool.linux.CpuidPathCheck check) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", check.cpu());
        m.put("outcome", check.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
        m.put("used", "instruction");
        m.put("summary", check.summary());
        m.put("detail", check.detail());
        List<Object> diffs = new ArrayList<>();
        for (var d : check.differences()) {
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("leaf", Numbers.hex32(d.leaf()));
            dm.put("subleaf", Numbers.hex32(d.subleaf()));
            dm.put("register", d.reg().name().toLowerCase(java.util.Locale.ROOT));
            dm.put("where", d.where());
            dm.put("user", Numbers.hex32(d.user()));
            dm.put("kernel", Numbers.hex32(d.kernel()));
            dm.put("bits", Numbers.hex32(d.bits()));
            dm.put("unstable_bits", Numbers.hex32(d.unstable()));
            dm.put("names", d.names());
            diffs.add(dm);
        }
        m.put("differences", diffs);
        return m;
    }

    static Map<String, Object> of(CapsReport r) {
        CpuCapabilities c = r.caps();
        Identity id = c.identity();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hwtool_version", Version.current());
        m.put("source", r.source());
        m.put("source_detail", r.sourceDetail());
        m.put("simulated", r.simulated());
        m.put("cpu", r.cpu());
        m.put("cpu_choice", cpuChoice(r.cpuChoice()));
        m.put("vendor", id.vendor());
        m.put("brand", id.brand());
        m.put("family", id.family());
        m.put("model", id.model());
        m.put("stepping", id.stepping());
        m.put("signature", Numbers.hex32(id.signature()));
        m.put("microarchitecture", c.microarchitecture().name());
        m.put("core_names", c.microarchitecture().coreNames());
        m.put("hybrid", c.hybrid());
        m.put("core_type", c.coreType());
        Map<String, Object> types = new LinkedHashMap<>();
        r.coreTypes().forEach((cpu, t) -> types.put(Integer.toString(cpu), t));
        m.put("core_types", types);
        Map<String, Object> hv = new LinkedHashMap<>();
        hv.put("present", c.hypervisor().present());
        hv.put("vendor", c.hypervisor().vendor());
        hv.put("name", c.hypervisor().name());
        m.put("hypervisor", hv);
        m.put("features", features(c.features()));
        m.put("arch_perfmon", perfmon(c.archPerfmon()));
        m.put("arch_lbr", archLbr(c.archLbr()));
        m.put("lbr", lbr(c.legacyLbr()));
        m.put("amd", amd(c.amd()));
        Map<String, Object> linux = new LinkedHashMap<>();
        linux.put("describes", "this machine");
        Object facts = Json.tree(r.linux());
        if (facts instanceof Map<?, ?> fm) {
            fm.forEach((k, v) -> linux.put(String.valueOf(k), v));
        }
        m.put("linux", linux);
        m.put("verdicts_describe", r.verdictsDescribe());
        if (r.verdictsUnavailable() != null) {
            m.put("verdicts_unavailable", r.verdictsUnavailable());
        }
        List<Object> verdicts = new ArrayList<>();
        for (Verdict v : r.verdicts()) {
            Map<String, Object> vm = new LinkedHashMap<>();
            vm.put("facility", CapsText.facilityKey(v.facility()));
            vm.put("usable", v.usable());
            vm.put("cause", v.cause().map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).orElse(null));
            vm.put("reason", v.message());
            vm.put("remedy", v.remedy().orElse(""));
            Probe probe = r.probes().get(v.facility());
            if (probe != null) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("usable", probe.usable());
                pm.put("detail", probe.detail());
                probe.failure().ifPresent(f -> pm.put("cause", f.cause().name()));
                vm.put("probe", pm);
            }
            verdicts.add(vm);
        }
        m.put("verdicts", verdicts);
        m.put("cpuid_paths", r.cpuidPaths() == null ? null : cpuidPaths(r.cpuidPaths()));
        return m;
    }

    private static Map<String, Object> features(Features f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("msr", f.msr());
        m.put("ds", f.ds());
        m.put("dtes64", f.dtes64());
        m.put("ds_cpl", f.dsCpl());
        m.put("pdcm", f.pdcm());
        m.put("arch_lbr", f.archLbr());
        m.put("pt", f.pt());
        m.put("tsc", f.tsc());
        m.put("rdtscp", f.rdtscp());
        m.put("bus_lock_detect", f.busLockDetect());
        m.put("rtm", f.rtm());
        return m;
    }

    private static Map<String, Object> perfmon(ArchPerfmon p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", p.version());
        m.put("gp_counters", p.gpCounters());
        m.put("gp_width", p.gpWidth());
        m.put("fixed_counters", p.fixedCounters());
        m.put("fixed_width", p.fixedWidth());
        m.put("events", new LinkedHashMap<>(p.events()));
        return m;
    }

    private static Map<String, Object> archLbr(ArchLbr a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("supported", a.supported());
        m.put("depths", a.depths());
        m.put("cpl_filter", a.cplFilter());
        m.put("branch_filter", a.branchFilter());
        m.put("call_stack", a.callStack());
        m.put("mispredict", a.mispredict());
        m.put("timed", a.timed());
        m.put("branch_type", a.branchType());
        m.put("deep_c_reset", a.deepCReset());
        m.put("lip", a.lip());
        return m;
    }

    private static Map<String, Object> lbr(LegacyLbr l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", l.format());
        m.put("depth", l.depth());
        m.put("from_msr", l.fromMsr() < 0 ? null : Numbers.hex32(l.fromMsr()));
        m.put("to_msr", l.toMsr() < 0 ? null : Numbers.hex32(l.toMsr()));
        m.put("info_msr", l.infoMsr() < 0 ? null : Numbers.hex32(l.infoMsr()));
        m.put("call_stack", l.callStack());
        m.put("source", l.source());
        return m;
    }

    /** AMD's perfmon flags (AmdPerf): all false/0 on other vendors. */
    private static Map<String, Object> amd(dev.hwtool.arch.decode.AmdPerf a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("present", a.present());
        m.put("perf_ctr_ext_core", a.perfCtrExtCore());
        m.put("perfmon_v2", a.perfMonV2());
        m.put("core_counters", a.coreCounters());
        m.put("lbr_v2", a.lbrExtV2());
        m.put("lbr_v2_depth", a.lbrV2Depth());
        m.put("lbr_pmc_freeze", a.lbrPmcFreeze());
        m.put("brs", a.brs());
        m.put("ibs", a.ibs());
        m.put("ibs_features", Numbers.hex32(a.ibsFeatures()));
        return m;
    }
}
