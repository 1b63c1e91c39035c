package dev.hwtool.record;

/**
 * The layout of a perf.data file, version 2 (tools/perf/util/header.h struct perf_file_header,
 * tools/perf/Documentation/perf.data-file-format.txt):
 *
 * <pre>
 * struct perf_file_header {            // 104 bytes
 *     u64 magic;                       // "PERFILE2" little-endian
 *     u64 size;                        // sizeof(struct perf_file_header)
 *     u64 attr_size;                   // size of one attrs entry: perf_event_attr + perf_file_section ids
 *     struct perf_file_section attrs;  // { u64 offset; u64 size; }
 *     struct perf_file_section data;
 *     struct perf_file_section event_types;  // unused since 2012, zero
 *     u64 adds_features[4];            // HEADER_FEAT_BITS = 256
 * };
 * </pre>
 * The feature sections follow the data section: one perf_file_section per set feature bit, in
 * bit order, at {@code data.offset + data.size}.
 */
final class PerfFileFormat {

    /** "PERFILE2" read as a little-endian u64. */
    static final long MAGIC = 0x32454c4946524550L;
    /** The same bytes written by a big-endian host. */
    static final long MAGIC_SWAPPED = Long.reverseBytes(MAGIC);
    /** "PERFFILE": version 1, before 2011. */
    static final long MAGIC_V1 = 0x454c494646524550L;

    static final int HEADER_SIZE = 104;
    /**
     * struct perf_pipe_file_header { u64 magic; u64 size; }: {@code perf record -o -}. The attrs,
     * features and event types then come as records before the kernel's (header.c
     * perf_file_header__read_pipe, perf.data-file-format.txt "Pipe-mode data").
     */
    static final int PIPE_HEADER_SIZE = 16;
    /** offsetof(struct perf_file_header, adds_features): files of perf before feature bits. */
    static final int HEADER_SIZE_NO_FEATURES = 72;
    static final int OFF_SIZE = 8;
    static final int OFF_ATTR_SIZE = 16;
    static final int OFF_ATTRS = 24;
    static final int OFF_DATA = 40;
    static final int OFF_EVENT_TYPES = 56;
    static final int OFF_FEATURES = 72;
    static final int FEATURE_BITS = 256;
    /** struct perf_file_section. */
    static final int SECTION_SIZE = 16;

    /** Records perf itself synthesizes have types from PERF_RECORD_USER_TYPE_START (tools/lib/perf/include/perf/event.h). */
    static final int USER_TYPE_START = 64;
    /** struct perf_record_header_attr: header, perf_event_attr (attr.size bytes, 0: VER0), u64 id[]. */
    static final int RECORD_HEADER_ATTR = 64;
    /** Old pipe files: struct perf_trace_event_type { u64 event_id; char name[64]; }. */
    static final int RECORD_HEADER_EVENT_TYPE = 65;
    /**
     * struct perf_record_header_tracing_data { header; u32 size; u32 pad; }, followed by {@code size}
     * bytes of tracing data padded to 8 that header.size does not count (session.c
     * perf_session__process_user_event, trace-event-read.c).
     */
    static final int RECORD_HEADER_TRACING_DATA = 66;
    /** struct perf_record_header: perf's mark that the records before it can be sorted (session.c). */
    static final int RECORD_FINISHED_ROUND = 68;
    static final int RECORD_AUXTRACE_INFO = 70;
    static final int RECORD_AUXTRACE = 71;
    /** struct perf_record_header_feature { header; u64 feat_id; char data[]; }: a feature section as a record. */
    static final int RECORD_HEADER_FEATURE = 80;
    /** struct perf_record_compressed { header; char data[]; }: zstd frames of records (util/zstd.c). */
    static final int RECORD_COMPRESSED = 81;
    /** struct perf_record_compressed2 { header; u64 data_size; char data[]; } (perf 6.15+), padded to 8. */
    static final int RECORD_COMPRESSED2 = 83;
    /** struct perf_record_auxtrace: header, u64 size, offset, reference, u32 idx, tid, cpu, reserved. */
    static final int AUXTRACE_HEADER_SIZE = 48;
    /** AUX payloads are padded to PERF_AUXTRACE_RECORD_ALIGNMENT (tools/perf/util/auxtrace.c). */
    static final int AUXTRACE_ALIGN = 8;

    /** enum auxtrace_type (tools/perf/util/auxtrace.h): UNKNOWN 0, INTEL_PT 1, INTEL_BTS 2. */
    static final int AUXTRACE_INTEL_BTS = 2;
    /**
     * struct perf_record_auxtrace_info: header, u32 type, u32 reserved, then u64 priv[] indexed as
     * tools/perf/util/intel-bts.h: INTEL_BTS_PMU_TYPE 0, TIME_SHIFT 1, TIME_MULT 2, TIME_ZERO 3,
     * CAP_USER_TIME_ZERO 4, SNAPSHOT_MODE 5.
     */
    static final int BTS_PMU_TYPE = 0;
    static final int BTS_TIME_SHIFT = 1;
    static final int BTS_TIME_MULT = 2;
    static final int BTS_TIME_ZERO = 3;
    static final int BTS_CAP_USER_TIME_ZERO = 4;
    static final int BTS_SNAPSHOT_MODE = 5;
    static final int BTS_PRIV_MAX = 6;
    static final int AUXTRACE_INFO_PRIV_OFFSET = 16;

    /** Strings in feature sections are u32 len + NUL-terminated bytes padded to NAME_ALIGN (header.c do_write_string). */
    static final int NAME_ALIGN = 64;

    private PerfFileFormat() {
    }
}
