package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.RecordBytes;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.elf.ElfSegment;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A synthetic recording of one process running a real executable: COMM, an MMAP2 of the
 * executable's text segment laid out as the kernel maps a PIE (at {@link #BASE}), then records
 * built by the test. sample_type IP|TID|CPU|PERIOD (+ TIME when asked) with sample_id_all.
 */
final class Fixture {

    static final long BASE = 0x555555554000L;
    static final int PID = 4242;
    static final int CPU = 1;
    static final int PROT_READ_EXEC = 5;
    static final int MAP_PRIVATE = 2;

    final Path exe;
    final ElfSegment text;
    final long sampleType;
    final PerfEventAttr attr;
    final long id;

    /**
     * @param id with a non-zero id, sample_type has IDENTIFIER (first in a sample, last in a sample_id),
     *           which perf needs to tell events apart (perf record sets it whenever a file has two or more
     *           events, as intel_bts's decoder makes one)
     */
    Fixture(Path exe, int type, long config, boolean time, long id) {
        this.id = id;
        this.exe = exe;
        try (ElfFile elf = ElfFile.open(exe)) {
            text = elf.segments().stream().filter(s -> s.load() && s.executable()).findFirst().orElseThrow();
        }
        sampleType = PerfSample.IP | PerfSample.TID | PerfSample.CPU | PerfSample.PERIOD | (time ? PerfSample.TIME : 0)
                | (id != 0 ? PerfSample.IDENTIFIER : 0);
        attr = PerfEventAttr.builder().type(type).config(config).samplePeriod(1).sampleType(sampleType)
                .flag(PerfAttrFlag.SAMPLE_ID_ALL, PerfAttrFlag.MMAP, PerfAttrFlag.MMAP2, PerfAttrFlag.COMM,
                        PerfAttrFlag.COMM_EXEC, PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.EXCLUDE_HV)
                .build();
    }

    static Fixture cpuClock(Path exe) {
        return new Fixture(exe, PerfType.SOFTWARE, 0, true, 0);
    }

    RecordingInfo info(String backend, String name, List<Long> ids, Optional<RecordingInfo.AuxPmu> aux) {
        return new RecordingInfo(backend, exe + " 1000", List.of(new RecordingInfo.Event(name, attr, ids)), aux);
    }

    /** The runtime address of ELF virtual address {@code vaddr} of the executable. */
    long runtime(long vaddr) {
        return BASE + vaddr;
    }

    RecordBytes sampleId(RecordBytes b, long time) {
        b.u32(PID).u32(PID);
        if ((sampleType & PerfSample.TIME) != 0) {
            b.u64(time);
        }
        b.u32(CPU).u32(0);
        return id != 0 ? b.u64(id) : b;
    }

    RecordBytes comm(RecordBytes b, String name) {
        return sampleId(b.begin(PerfRecordType.COMM, PerfRecordMisc.COMM_EXEC).u32(PID).u32(PID).string(name), 10).end();
    }

    /** The kernel maps the text PT_LOAD page-aligned: start = base + vaddr & ~4095, pgoff = offset & ~4095. */
    RecordBytes mmap2(RecordBytes b) {
        return mmap2(b, 20);
    }

    /** The MMAP2 of the text, with {@code time} in its sample_id. */
    RecordBytes mmap2(RecordBytes b, long time) {
        long start = runtime(text.vaddr() & ~4095L);
        long end = (runtime(text.vaddr() + text.memSize()) + 4095) & ~4095L;
        b.begin(PerfRecordType.MMAP2, PerfRecordMisc.USER).u32(PID).u32(PID).u64(start).u64(end - start)
                .u64(text.offset() & ~4095L).u32(8).u32(1).u64(123456).u64(0).u32(PROT_READ_EXEC).u32(MAP_PRIVATE)
                .string(exe.toString());
        return sampleId(b, time).end();
    }

    RecordBytes sample(RecordBytes b, long ip, long time, long period) {
        b.begin(PerfRecordType.SAMPLE, PerfRecordMisc.USER);
        if (id != 0) {
            b.u64(id);
        }
        b.u64(ip).u32(PID).u32(PID);
        if ((sampleType & PerfSample.TIME) != 0) {
            b.u64(time);
        }
        return b.u32(CPU).u32(0).u64(period).end();
    }
}
