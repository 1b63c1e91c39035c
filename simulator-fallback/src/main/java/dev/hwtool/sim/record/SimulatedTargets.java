package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.io.BoundedText;
import dev.hwtool.sim.script.Command;
import dev.hwtool.sim.script.Scenarios;
import dev.hwtool.sim.script.Script;
import dev.hwtool.sim.script.ScriptParser;
import dev.hwtool.sim.workload.CallTreeWorkload;
import dev.hwtool.sim.workload.LoopWorkload;
import dev.hwtool.sim.workload.ProgramImage;
import dev.hwtool.sim.workload.Workload;
import dev.hwtool.sim.workload.WorkloadExtent;
import dev.hwtool.sim.workload.Workloads;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a simulated recording or count runs: the workloads a {@link RecordTarget.Workload} names.
 *
 * <ul>
 * <li>{@code builtin:NAME} or {@code FILE.hwsim}: a scenario script; its {@code workload} lines run,
 *     in order, and nothing else does. Its {@code wrmsr}/{@code expect}/{@code handler} lines are the
 *     scenario's own experiment on the registers: here the recorder programs the hardware itself, as
 *     the Linux driver would, so running them would fight it. Its {@code profile}/{@code cpus} lines
 *     are ignored too: the recorder's platform is already chosen. A script without a {@code workload}
 *     line is BAD_INPUT.</li>
 * <li>anything else: one workload in {@link Workloads} grammar ({@code loop ...}, {@code calltree ...},
 *     {@code trace FILE}), relative files against the target's base directory.</li>
 * </ul>
 */
public final class SimulatedTargets {

    /** Usage hint shown when a target is of the wrong kind. */
    public static final String FORMS = "calltree depth=4, loop iterations=1000, trace FILE, builtin:NAME or FILE.hwsim";

    private SimulatedTargets() {
    }

    /** The one-line BAD_INPUT for a command target given to the simulator. */
    static HwException notAWorkload(RecordTarget target) {
        return new HwException(Cause.BAD_INPUT, "the simulator runs workloads, not commands ('" + target.describe()
                + "'): give a workload such as " + FORMS);
    }

    /** The workloads {@code target} runs, in order. */
    public static List<Workload> resolve(RecordTarget target) {
        if (!(target instanceof RecordTarget.Workload w)) {
            throw notAWorkload(target);
        }
        String spec = w.spec().strip();
        if (spec.startsWith(Scenarios.PREFIX)) {
            return workloadsOf(Scenarios.script(spec.substring(Scenarios.PREFIX.length())));
        }
        if (spec.endsWith(Scenarios.EXTENSION) && !spec.contains(" ")) {
            Path file = w.baseDir().resolve(spec).toAbsolutePath();
            return workloadsOf(ScriptParser.parse(file.toString(), BoundedText.read(file)));
        }
        return List.of(Workloads.parse(spec, w.baseDir()));
    }

    private static List<Workload> workloadsOf(Script script) {
        List<Workload> out = new ArrayList<>();
        for (Command c : script.commands()) {
            if (c instanceof Command.RunWorkload r) {
                out.add(r.workload());
            }
        }
        if (out.isEmpty()) {
            throw new HwException(Cause.BAD_INPUT, script.origin() + " has no 'workload' line: the simulator records"
                    + " only a scenario's workloads");
        }
        return List.copyOf(out);
    }

    /**
     * The program the target's workloads are ({@link ProgramImage#of(List)}): what a recording of
     * it maps, rebuilt exactly from the spec. Empty when the code is not known before the run (a
     * trace); BAD_INPUT as {@link #resolve}, or when two workloads put different code at one address.
     */
    public static Optional<ProgramImage> image(RecordTarget target) {
        return ProgramImage.of(resolve(target));
    }

    /** The name a program image of {@code target} goes by when no file holds it: the process name, {@link #comm}. */
    public static String imageName(RecordTarget target) {
        return comm(resolve(target));
    }

    /** Where the first workload starts executing, when its kind says (its code base), else 0. */
    static long entry(List<Workload> workloads) {
        return switch (workloads.getFirst()) {
            case LoopWorkload l -> l.base();
            case CallTreeWorkload c -> c.base();
            default -> 0;
        };
    }

    /** The process name a recording gives the run (perf's COMM): the first word of the first workload, as a 15-byte comm. */
    static String comm(List<Workload> workloads) {
        String first = workloads.getFirst().describe().split(" ", 2)[0];
        String name = "hwsim-" + first;
        return name.length() > 15 ? name.substring(0, 15) : name; // TASK_COMM_LEN 16 with the NUL
    }

    /**
     * The executable mappings of the simulated program, as the kernel would report its exec's mmap
     * (PERF_RECORD_MMAP2): one per generated user-mode workload (calltree, loop), its code from its
     * base, named "[COMM]" as no file holds it; overlapping later workloads and traces (whose
     * addresses are the trace file's) get none. When {@code imageFile} holds the program's image
     * ({@link ProgramImage#elf()}), each mapping names its absolute path, from the file offset of
     * its code ({@link ProgramImage#textOffset()} plus its distance from the image's start), as
     * the kernel's mmap of an ELF PT_LOAD segment would (perf_event_mmap, kernel/events/core.c).
     */
    static List<ProgramMapping> mappings(List<Workload> workloads, Optional<Path> imageFile) {
        List<ProgramMapping> out = new ArrayList<>();
        String name = comm(workloads);
        Optional<ProgramImage> image = imageFile.isPresent() ? ProgramImage.of(workloads) : Optional.empty();
        for (Workload w : workloads) {
            long base = switch (w) {
                case LoopWorkload l when l.cpl() == 3 -> l.base();
                case CallTreeWorkload c when c.cpl() == 3 -> c.base();
                default -> -1;
            };
            if (base == -1) {
                continue;
            }
            long extent = WorkloadExtent.of(w).orElseThrow();
            boolean overlaps = out.stream().anyMatch(m -> Long.compareUnsigned(m.start(), base + extent) < 0
                    && Long.compareUnsigned(base, m.start() + m.length()) < 0);
            if (extent > 0 && !overlaps) {
                out.add(image.map(i -> new ProgramMapping(base, extent, i.textOffset() + (base - i.start()),
                                imageFile.orElseThrow().toAbsolutePath().toString(), Optional.empty()))
                        .orElseGet(() -> ProgramMapping.anonymous(base, extent, name)));
            }
        }
        return out;
    }
}
