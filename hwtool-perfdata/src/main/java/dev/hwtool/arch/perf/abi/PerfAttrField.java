package dev.hwtool.arch.perf.abi;

/**
 * The fields of {@code struct perf_event_attr} (include/uapi/linux/perf_event.h) as data: byte
 * offset, width and the C name. Unions appear once, under the name of their first member; the
 * aliases are in {@link PerfEventAttr}'s builder. {@link #end()} of the last field of a
 * PERF_ATTR_SIZE_VERn is that version's size.
 */
public enum PerfAttrField {
    TYPE(0, 4, "type"),
    SIZE(4, 4, "size"),
    CONFIG(8, 8, "config"),
    /** union { sample_period; sample_freq; } — which one is the FREQ flag's choice. */
    SAMPLE_PERIOD(16, 8, "sample_period"),
    SAMPLE_TYPE(24, 8, "sample_type"),
    READ_FORMAT(32, 8, "read_format"),
    /** The bitfield word: {@link PerfAttrFlag} and precise_ip. */
    FLAGS(40, 8, null),
    /** union { wakeup_events; wakeup_watermark; } — the WATERMARK flag chooses. */
    WAKEUP_EVENTS(48, 4, "wakeup_events"),
    BP_TYPE(52, 4, "bp_type"),
    /** union { bp_addr; kprobe_func; uprobe_path; config1; } */
    CONFIG1(56, 8, "config1"),
    /** union { bp_len; kprobe_addr; probe_offset; config2; } — end of PERF_ATTR_SIZE_VER1. */
    CONFIG2(64, 8, "config2"),
    BRANCH_SAMPLE_TYPE(72, 8, "branch_sample_type"),
    SAMPLE_REGS_USER(80, 8, "sample_regs_user"),
    SAMPLE_STACK_USER(88, 4, "sample_stack_user"),
    /** s32. */
    CLOCKID(92, 4, "clockid"),
    SAMPLE_REGS_INTR(96, 8, "sample_regs_intr"),
    AUX_WATERMARK(104, 4, "aux_watermark"),
    SAMPLE_MAX_STACK(108, 2, "sample_max_stack"),
    RESERVED_2(110, 2, "__reserved_2"),
    AUX_SAMPLE_SIZE(112, 4, "aux_sample_size"),
    /** __reserved_3 before 6.13; since then union aux_action {aux_start_paused:1, aux_pause:1, aux_resume:1}. */
    AUX_ACTION(116, 4, null),
    SIG_DATA(120, 8, "sig_data"),
    /** End of PERF_ATTR_SIZE_VER8 (136). */
    CONFIG3(128, 8, "config3"),
    /**
     * PERF_ATTR_SIZE_VER9 (144), proposed in 2025 (ARM SPE series) and not in every kernel: a
     * kernel without it answers E2BIG to an attr that sets it (docs/facts.md §1.1).
     */
    CONFIG4(136, 8, "config4");

    private final int offset;
    private final int width;
    private final String cName;

    PerfAttrField(int offset, int width, String cName) {
        this.offset = offset;
        this.width = width;
        this.cName = cName;
    }

    public int offset() {
        return offset;
    }

    /** Bytes: 2, 4 or 8. */
    public int width() {
        return width;
    }

    public int end() {
        return offset + width;
    }

    /** The member name for {@code offsetof}, or null for a bitfield word. */
    public String cName() {
        return cName;
    }
}
