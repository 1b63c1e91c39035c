package dev.hwtool.arch.perf.abi;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The records of a perf ring buffer (enum perf_event_type, include/uapi/linux/perf_event.h), as
 * values. Convenient but allocating; the hot path is {@link PerfRecordCursor}. Non-sample records
 * carry the sample_id trailer ({@link SampleId#NONE} without sample_id_all).
 */
public sealed interface PerfRecord {

    int type();

    int misc();

    /** The trailer of a non-sample record: fields present per sample_type (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). */
    record SampleId(int pid, int tid, long time, long id, long streamId, int cpu) {
        public static final SampleId NONE = new SampleId(-1, -1, 0, 0, 0, -1);
    }

    /** The branch stack of a sample: hw_idx only with BRANCH_HW_INDEX, counters only with BRANCH_COUNTERS. */
    record BranchStack(List<PerfBranchEntry> entries, OptionalLong hwIndex, List<Long> counters) {
        public BranchStack {
            entries = List.copyOf(entries);
            counters = List.copyOf(counters);
        }
    }

    /**
     * PERF_RECORD_SAMPLE. Fields not in the sample_type are 0 (pid, tid, cpu: -1); the lists are empty.
     */
    record Sample(int misc, long identifier, long ip, int pid, int tid, long time, long addr, long id, long streamId,
                  int cpu, long period, Optional<PerfCounts> read, List<Long> callchain, byte[] raw,
                  Optional<BranchStack> branchStack, long[] regsUser, byte[] stackUser, long weight, long dataSrc,
                  long transaction, long[] regsIntr, long physAddr, long cgroup, long dataPageSize,
                  long codePageSize, byte[] aux) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.SAMPLE;
        }

        /** PERF_RECORD_MISC_CPUMODE: KERNEL 1, USER 2, HYPERVISOR 3, ... */
        public int cpumode() {
            return misc & PerfRecordMisc.CPUMODE_MASK;
        }
    }

    /** PERF_RECORD_MMAP: an executable mapping (data ones with MMAP_DATA). */
    record Mmap(int misc, int pid, int tid, long addr, long len, long pgoff, String filename, SampleId sampleId)
            implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.MMAP;
        }
    }

    /** PERF_RECORD_MMAP2: with device/inode, or a build id when misc has MMAP_BUILD_ID. */
    record Mmap2(int misc, int pid, int tid, long addr, long len, long pgoff, int maj, int min, long ino,
                 long inoGeneration, byte[] buildId, int prot, int flags, String filename, SampleId sampleId)
            implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.MMAP2;
        }
    }

    /** PERF_RECORD_COMM; {@link #exec()} when the name changed through exec. */
    record Comm(int misc, int pid, int tid, String comm, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.COMM;
        }

        public boolean exec() {
            return (misc & PerfRecordMisc.COMM_EXEC) != 0;
        }
    }

    /** PERF_RECORD_EXIT and PERF_RECORD_FORK (same body). */
    record Task(int type, int misc, int pid, int ppid, int tid, int ptid, long time, SampleId sampleId)
            implements PerfRecord {
    }

    /** PERF_RECORD_LOST: the kernel dropped {@code lost} records because the ring was full. */
    record Lost(int misc, long id, long lost, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.LOST;
        }
    }

    /** PERF_RECORD_LOST_SAMPLES: samples lost in hardware or in the PMU driver (e.g. PEBS, BTS). */
    record LostSamples(int misc, long lost, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.LOST_SAMPLES;
        }
    }

    /** PERF_RECORD_THROTTLE: interrupt rate too high, the event was throttled. */
    record Throttle(int misc, long time, long id, long streamId, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.THROTTLE;
        }
    }

    /** PERF_RECORD_UNTHROTTLE. */
    record Unthrottle(int misc, long time, long id, long streamId, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.UNTHROTTLE;
        }
    }

    /** PERF_RECORD_AUX: new data in the AUX area at [auxOffset, auxOffset + auxSize). */
    record Aux(int misc, long auxOffset, long auxSize, long flags, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.AUX;
        }

        public boolean truncated() {
            return (flags & PerfAuxFlag.TRUNCATED) != 0;
        }

        public boolean overwrite() {
            return (flags & PerfAuxFlag.OVERWRITE) != 0;
        }

        public boolean partial() {
            return (flags & PerfAuxFlag.PARTIAL) != 0;
        }

        public boolean collision() {
            return (flags & PerfAuxFlag.COLLISION) != 0;
        }
    }

    /** PERF_RECORD_ITRACE_START: an instruction-trace (AUX) event started in this task. */
    record ItraceStart(int misc, int pid, int tid, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.ITRACE_START;
        }
    }

    /** PERF_RECORD_SWITCH: the monitored task switched in or {@link #out()}. */
    record Switch(int misc, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.SWITCH;
        }

        public boolean out() {
            return (misc & PerfRecordMisc.SWITCH_OUT) != 0;
        }

        public boolean preempted() {
            return out() && (misc & PerfRecordMisc.SWITCH_OUT_PREEMPT) != 0;
        }
    }

    /** PERF_RECORD_SWITCH_CPU_WIDE: a switch on a CPU, with the other task's pid/tid. */
    record SwitchCpuWide(int misc, int nextPrevPid, int nextPrevTid, SampleId sampleId) implements PerfRecord {
        @Override
        public int type() {
            return PerfRecordType.SWITCH_CPU_WIDE;
        }

        public boolean out() {
            return (misc & PerfRecordMisc.SWITCH_OUT) != 0;
        }
    }

    /** Any other type: kept by header only (its size was used to skip it). */
    record Unknown(int type, int misc, int size) implements PerfRecord {
    }
}
