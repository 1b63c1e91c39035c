package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.record.RecordSink;
import dev.hwtool.record.SinkRecorder;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.Recording;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.IdentityDecoder;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordEncoder;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.linux.perf.RecordingAttrs;
import dev.hwtool.report.InMemoryRecording;
import dev.hwtool.sim.cpu.BtsBufferView;
import dev.hwtool.sim.cpu.DsInterruptRoutine;
import dev.hwtool.sim.cpu.LbrSnapshot;
import dev.hwtool.sim.cpu.Pmi;
import dev.hwtool.sim.cpu.SimClock;
import dev.hwtool.sim.cpu.PebsBufferView;
import dev.hwtool.sim.cpu.PebsRecord;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.workload.Workload;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

/**
 * The simulator's {@link Recorder}: runs a workload on the platform's bootstrap CPU while
 * {@link LinuxPerfDriver} programs the simulated PMU, LBR and DS area as Linux would for the same
 * perf_event_attr ({@link SimulatedRecordingAttrs}), and the CPU's DS interrupt routine
 * ({@link DsInterruptRoutine}, the PMI handler Linux's intel_pmu_handle_irq is) writes the same
 * kernel-format PERF_RECORD_SAMPLEs the hardware path reads from its ring buffer.
 *
 * <p>Output: PERF_RECORD_COMM (misc COMM_EXEC, the workload's name) first, then a PERF_RECORD_MMAP2
 * of the program's code ({@link SimulatedTargets#mappings}, as the kernel reports an exec's text
 * mapping when attr.mmap2 is set), then samples in PMI order, then PERF_RECORD_EXIT. The simulated process is pid = tid = {@link #PID}; times are
 * simulated nanoseconds, the SimClock's ticks at the stated nominal {@link #NOMINAL_HZ} (1 GHz:
 * one tick, one ns); the event's id is {@link #EVENT_ID}.
 *
 * <ul>
 * <li>Lbr: a sample every {@code period} branches retired at the requested privilege (cycles for
 *     period 1): IP is the address of the next instruction (after a branch event, the last
 *     branch's target — where the PMI returns to, as the kernel reports the interrupted RIP);
 *     the branch stack newest first with hw_idx = MSR_LASTBRANCH_TOS (0 for arch LBR, whose
 *     newest entry is always IA32_LBR_0), filtered as {@link LbrStackView} says.</li>
 * <li>Bts: one sample per stored BTS record, ip = from, addr = to, period 1, drained at the
 *     threshold PMI and when the event is disabled (intel_pmu_drain_bts_buffer), records with a
 *     kernel address (top bit set) skipped.</li>
 * <li>Sampling: hardware events (cycles, instructions, branches, branch-misses, ref-cycles) and raw
 *     configs; a sample every {@code period} events. Branches with period 1 is BTS, as on Intel
 *     hardware (intel_pmu_has_bts_period), with the Sampling attr's sample_type.</li>
 * </ul>
 * A request the profile cannot serve fails with UNSUPPORTED before {@link RecordSink#begin}; the
 * driver leaves every register it set cleared again when the run ends.
 *
 * <p>A stop request ({@link RecordTarget.Workload#stop()}: the CLI's Ctrl-C) ends the workload at
 * the next retirement boundary, as
 * SIGINT ends a command on hardware: the recording is finished as after a complete run (BTS
 * drained, PERF_RECORD_EXIT) and its exit status is 130, a death by SIGINT (128 + 2).
 */
public final class SimulatedRecorder implements SinkRecorder {

    /** How every simulated recording's backend begins ({@link #backend()}): the mark readers know it by ({@link RecordingInfo#simulated()}). */
    static final String BACKEND_PREFIX = RecordingInfo.SIMULATED + " (profile ";

    /** The simulated process's pid and tid. */
    public static final int PID = 4242;
    /** Its parent, as PERF_RECORD_EXIT names it. */
    public static final int PPID = 1;
    /** The stated frequency of the simulated TSC, for sample times: one tick per nanosecond. */
    public static final long NOMINAL_HZ = 1_000_000_000L;
    /** The id of the one simulated event. */
    public static final long EVENT_ID = 1;

    /** mmap(2)'s PROT_READ, PROT_EXEC and MAP_PRIVATE (include/uapi/asm-generic/mman-common.h, mman.h). */
    private static final int PROT_READ = 0x1;
    private static final int PROT_EXEC = 0x4;
    private static final int MAP_PRIVATE = 0x2;

    /** The exit status of a workload ended by a stop request: 128 + SIGINT, as a shell reports it. */
    public static final int STOPPED_STATUS = 128 + 2;

    private final SimulatedSystem platform;

    public SimulatedRecorder(SimulatedSystem platform) {
        this.platform = platform;
    }

    @Override
    public String backend() {
        return BACKEND_PREFIX + platform.profileName() + ")";
    }

    /**
     * The simulated machine as perf record's header would describe it had it run there: its CPUID
     * vendor and signature in perf's get_cpuid form, its brand string (else the profile's processor),
     * its CPU count; no TOTAL_MEM, as the simulator has no memory size.
     */
    RecordingInfo.Machine machine(LogicalProcessor cpu) {
        Identity id = IdentityDecoder.decode(platform.cpuid().reader(cpu.number()));
        String desc = id.brand().isBlank() ? platform.processor() : id.brand();
        int cpus = platform.machine().cpus().size();
        return new RecordingInfo.Machine("x86_64", cpus, cpus, RecordingInfo.Machine.squash(desc),
                RecordingInfo.Machine.perfCpuid(id.vendor(), id.signature()), 0);
    }

    /** Simulated nanoseconds of a SimClock time. */
    static long nanos(long ticks) {
        return ticks * (1_000_000_000L / NOMINAL_HZ);
    }

    /**
     * The recording in memory; its addresses are named from the simulated program's own image,
     * rebuilt from the workload as it ran (a workload whose code is not known before it runs, a
     * trace from standard input, is named from the recording's mappings, else in hex).
     */
    @Override
    public Recording record(RecordRequest request, RecordTarget target) {
        return InMemoryRecording.record(this, request, target, symbols -> SimulatedImages.add(target, symbols));
    }

    @Override
    public RecordingSummary record(RecordRequest request, RecordTarget target, RecordSink sink) {
        platform.requireOpen("Recorder");
        if (!(target instanceof RecordTarget.Workload workload)) {
            throw SimulatedTargets.notAWorkload(target);
        }
        List<Workload> workloads = SimulatedTargets.resolve(target);
        LogicalProcessor cpu = platform.machine().cpus().getFirst();
        LinuxPerfDriver driver = new LinuxPerfDriver(cpu, platform.profileName());
        ProgramText text = new ProgramText();
        Run run = plan(request, driver, text);   // every refusal happens here, before begin()

        PerfEventAttr attr = SimulatedRecordingAttrs.of(request);
        sink.begin(new RecordingInfo(backend(), target.describe(),
                List.of(new RecordingInfo.Event(SimulatedRecordingAttrs.name(request), attr, List.of(EVENT_ID))),
                Optional.empty(), Optional.of(machine(cpu))));
        SimClock clock = platform.clock();
        long start = clock.now();
        TrackingRetirement tracker = new TrackingRetirement(cpu, text, cpu.stats().instructions(),
                SimulatedTargets.entry(workloads));
        tracker.stopWhen(workload.stop());
        Output out = new Output(sink, new PerfRecordEncoder(PerfRecordFormat.of(attr)), clock, cpu.number());
        out.send(out.encoder.comm(PerfRecordMisc.COMM_EXEC, PID, PID, SimulatedTargets.comm(workloads),
                nanos(clock.now()), EVENT_ID, cpu.number()));
        for (ProgramMapping m : SimulatedTargets.mappings(workloads, workload.image())) {
            out.send(out.encoder.mmap2(PerfRecordMisc.USER, PID, PID, m.start(), m.length(), m.pgoff(), 0, 0, 0, 0,
                    PROT_READ | PROT_EXEC, MAP_PRIVATE, m.filename(), nanos(clock.now()), EVENT_ID, cpu.number()));
        }

        Handler handler = new Handler(run, driver, tracker, out, request);
        cpu.setPmiHandler(new DsInterruptRoutine(handler));
        boolean ran = false;
        int status = 0;
        try {
            run.enable(driver);
            try {
                for (Workload w : workloads) {
                    w.run(tracker);
                }
            } catch (TrackingRetirement.Stopped stopped) {
                status = STOPPED_STATUS;
            }
            ran = true;
        } finally {
            run.disable(driver); // also when the workload failed: leave no counter or LBR/BTS enable behind
            if (ran && run instanceof Run.Bts) {
                handler.drainAtDisable(cpu);
            }
            if (ran && run instanceof Run.Pebs) {
                handler.drainPebsAtDisable(cpu);
            }
            cpu.setPmiHandler(null);
        }
        long end = clock.now();
        out.send(out.encoder.exit(PID, PPID, PID, PPID, nanos(end), EVENT_ID, cpu.number()));
        return new RecordingSummary(out.records, out.samples, 0, 0, 0, false, status, nanos(end - start));
    }

    /** What a request programs, decided (and refused) before anything runs. */
    sealed interface Run {
        void enable(LinuxPerfDriver d);

        void disable(LinuxPerfDriver d);

        record Lbr(LinuxPerfDriver.Armed counter, LinuxPerfDriver.LbrSetup setup, LbrStackView stack) implements Run {
            public void enable(LinuxPerfDriver d) {
                d.enableLbr(setup);
                d.enable(counter);
            }

            public void disable(LinuxPerfDriver d) {
                d.disable(counter);
                d.disableLbr(setup);
            }
        }

        record Bts() implements Run {
            public void enable(LinuxPerfDriver d) {
                d.enableBts();
            }

            public void disable(LinuxPerfDriver d) {
                d.disableBts();
            }
        }

        /**
         * A precise event: PEBS on PMC0 (ds.c intel_pmu_pebs_enable). The samples come from the
         * PEBS records the interrupt routine drains, not from the counter's overflow.
         *
         * @param precise precise_ip; at 2 and above the sample IP is the record's eventing IP
         *                (format 2+ real_ip), flagged exact, as setup_pebs_fixed_sample_data does
         * @param format  IA32_PERF_CAPABILITIES.PEBS_FMT
         */
        record Pebs(LinuxPerfDriver.Armed counter, int precise, int format) implements Run {
            public void enable(LinuxPerfDriver d) {
                d.enablePebs(counter);
            }

            public void disable(LinuxPerfDriver d) {
                d.disablePebs(counter);
            }

            boolean exact() {
                return precise >= 2 && format >= 2;
            }
        }

        record Sampling(LinuxPerfDriver.Armed counter) implements Run {
            public void enable(LinuxPerfDriver d) {
                d.enable(counter);
            }

            public void disable(LinuxPerfDriver d) {
                d.disable(counter);
            }
        }
    }

    private static Run plan(RecordRequest request, LinuxPerfDriver driver, ProgramText text) {
        return switch (request) {
            case RecordRequest.Lbr l -> {
                long bst = RecordingAttrs.branchSampleType(l);
                LinuxPerfDriver.LbrSetup setup = driver.lbr(bst);
                long config = RecordingAttrs.lbrEventConfig(l);
                LinuxPerfDriver.Armed counter = driver.place(EventCode.of(PerfType.HARDWARE, config,
                        RecordingAttrs.eventName(PerfType.HARDWARE, config)), l.privilege(), l.period(), true);
                boolean mispredict = "architectural".equals(driver.cpu().lbrKind())
                        ? driver.capabilities().archLbr().mispredict()
                        : LbrFormat.hasMispredict(driver.capabilities().legacyLbr().format());
                yield new Run.Lbr(counter, setup, new LbrStackView(text, l.privilege(), bst, mispredict));
            }
            case RecordRequest.Bts b -> {
                driver.checkBts(b.privilege());
                yield new Run.Bts();
            }
            case RecordRequest.Sampling s when isBtsPeriod(s) -> {
                // intel_pmu_has_bts_period: branch instructions with period 1 is BTS, whatever asked for it.
                driver.checkBts(s.privilege());
                yield new Run.Bts();
            }
            case RecordRequest.Sampling s -> {
                if (s.type() != PerfType.HARDWARE && s.type() != PerfType.RAW) {
                    throw new HwException(Cause.UNSUPPORTED, SimulatedRecordingAttrs.name(s) + ": "
                            + (s.type() == PerfType.SOFTWARE ? "the simulator has no software events (it runs no kernel)"
                            : "the simulator samples hardware and raw events only"));
                }
                if (s.precise() > 0) {
                    EventCode code = EventCode.of(s.type(), s.config(), SimulatedRecordingAttrs.name(s));
                    driver.checkPebs(s.precise(), code);
                    yield new Run.Pebs(driver.placePebs(code, s.privilege(), s.period()), s.precise(),
                            driver.pebsFormat());
                }
                yield new Run.Sampling(driver.place(EventCode.of(s.type(), s.config(),
                        SimulatedRecordingAttrs.name(s)), s.privilege(), s.period(), true));
            }
        };
    }

    /** The {@code branches} event (HARDWARE config 4, or RAW 0xC4 in the low 16 bits) with period 1. */
    static boolean isBtsPeriod(RecordRequest.Sampling s) {
        boolean branches = (s.type() == PerfType.HARDWARE && s.config() == PerfCount.HW_BRANCH_INSTRUCTIONS)
                || (s.type() == PerfType.RAW && (s.config() & 0xFFFF) == 0x00C4);
        return branches && s.period() == 1;
    }

    /** Where records go: encoded into one buffer, passed on, counted. */
    static final class Output {
        final RecordSink sink;
        final PerfRecordEncoder encoder;
        final SimClock clock;
        final int cpu;
        long records;
        long samples;

        Output(RecordSink sink, PerfRecordEncoder encoder, SimClock clock, int cpu) {
            this.sink = sink;
            this.encoder = encoder;
            this.clock = clock;
            this.cpu = cpu;
        }

        void send(MemorySegment record) {
            records++;
            sink.record(record);
        }

        void sendSample(MemorySegment record) {
            samples++;
            send(record);
        }
    }

    /** The driver's half of the PMI handler: what intel_pmu_handle_irq does with what the routine collected. */
    static final class Handler implements DsInterruptRoutine.Listener {
        private final Run run;
        private final LinuxPerfDriver driver;
        private final TrackingRetirement tracker;
        private final Output out;
        private final boolean excludeKernel;

        Handler(Run run, LinuxPerfDriver driver, TrackingRetirement tracker, Output out, RecordRequest request) {
            this.run = run;
            this.driver = driver;
            this.tracker = tracker;
            this.out = out;
            this.excludeKernel = !request.privilege().kernel();
        }

        @Override
        public void overflow(LogicalProcessor cpu, Pmi pmi, long globalStatus, LbrSnapshot lbr) {
            LinuxPerfDriver.Armed a = switch (run) {
                case Run.Lbr l -> l.counter();
                case Run.Sampling s -> s.counter();
                case Run.Bts b -> null;
                case Run.Pebs p -> null; // a PEBS counter's samples are its records (pebs below)
            };
            if (a == null || (globalStatus & a.statusBit()) == 0 || !driver.saveAndRestart(a)) {
                return;
            }
            PerfRecordEncoder.BranchStack stack = PerfRecordEncoder.NO_BRANCHES;
            if (run instanceof Run.Lbr l) {
                boolean arch = "architectural".equals(cpu.lbrKind());
                l.stack().fill(lbr, arch ? 0 : driver.lbrTos());
                stack = l.stack();
            }
            int misc = tracker.cpl() == 0 ? PerfRecordMisc.KERNEL : PerfRecordMisc.USER;
            out.sendSample(out.encoder.sample(misc, tracker.nextIp(pmi.instruction()), PID, PID,
                    nanos(out.clock.now()), 0, EVENT_ID, cpu.number(), a.period, stack));
        }

        @Override
        public void bts(LogicalProcessor cpu, BtsBufferView records) {
            for (int i = 0; i < records.count(); i++) {
                btsSample(cpu, records.from(i), records.to(i));
            }
        }

        /**
         * intel_pmu_drain_pebs_nhm/icl: one sample per record, with the record's IP (precise_ip 1:
         * the IP after the instruction, as the assist saw it) or its eventing IP, flagged
         * PERF_RECORD_MISC_EXACT_IP (precise_ip 2+ on format 2 and later), and the event's period.
         */
        @Override
        public void pebs(LogicalProcessor cpu, PebsBufferView records) {
            if (!(run instanceof Run.Pebs p)) {
                return;
            }
            for (int i = 0; i < records.count(); i++) {
                pebsSample(cpu, p, p.exact() ? records.eventingIp(i) : records.ip(i));
            }
        }

        /** The records left below the threshold when the event is disabled (intel_pmu_drain_pebs_buffer). */
        void drainPebsAtDisable(LogicalProcessor cpu) {
            Run.Pebs p = (Run.Pebs) run;
            for (PebsRecord r : cpu.pebsRecords()) {
                pebsSample(cpu, p, p.exact() ? r.eventingIp() : r.ip());
            }
            driver.resetPebsIndex();
        }

        private void pebsSample(LogicalProcessor cpu, Run.Pebs p, long ip) {
            boolean kernel = ip < 0; // kernel_ip(): the top half of the address space
            if (kernel && excludeKernel) {
                return;
            }
            int misc = (kernel ? PerfRecordMisc.KERNEL : PerfRecordMisc.USER) | (p.exact() ? PerfRecordMisc.EXACT_IP : 0);
            out.sendSample(out.encoder.sample(misc, ip, PID, PID, nanos(out.clock.now()), 0, EVENT_ID, cpu.number(),
                    p.counter().period, PerfRecordEncoder.NO_BRANCHES));
        }

        /** The drain at disable: base up to the index, then the index back to the base. */
        void drainAtDisable(LogicalProcessor cpu) {
            long index = driver.btsIndex();
            for (long p = LinuxPerfDriver.BTS_BUFFER; p + 24 <= index; p += 24) {
                btsSample(cpu, cpu.memory().read64(p), cpu.memory().read64(p + 8));
            }
            driver.resetBtsIndex();
        }

        private void btsSample(LogicalProcessor cpu, long from, long to) {
            if (excludeKernel && (from < 0 || to < 0)) { // kernel_ip(): the top half of the address space
                return;
            }
            out.sendSample(out.encoder.sample(PerfRecordMisc.USER, from, PID, PID, nanos(out.clock.now()), to,
                    EVENT_ID, cpu.number(), 1, PerfRecordEncoder.NO_BRANCHES));
        }
    }
}
