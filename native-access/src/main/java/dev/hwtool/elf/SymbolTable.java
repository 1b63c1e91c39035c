package dev.hwtool.elf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A DSO's symbols as perf report resolves addresses against them (tools/perf/util/symbol.c, as in
 * perf 6.1, the perf this project's CI runs): symbols are inserted in table order (an equal start
 * goes after those already there), then {@code symbols__fixup_end} gives every sizeless symbol the
 * start of the one after it (the last one, the end of the page after its own), then
 * {@code symbols__fixup_duplicate} keeps one symbol of each start, chosen by
 * {@code choose_best_symbol}. An ELF DSO does this twice, for .symtab and then .dynsym
 * (symbol-elf.c dso__load_sym); kallsyms once, with its module rule.
 *
 * <p>Later perf releases no longer extend a sizeless STT_NOTYPE label; perf 6.1 does,
 * and so does this table, so that a hand-written function with neither .type nor .size is named.
 *
 * <p>{@link #find} is {@code symbols__find}: a symbol holds [start, end), a sizeless one only its
 * start. Where symbols overlap, perf's answer depends on its red-black tree's shape; here the
 * symbol holding the address with the highest start wins.
 */
public final class SymbolTable {

    /**
     * One symbol.
     *
     * @param start  its first address in the DSO's address space (a file offset for ELF DSOs)
     * @param end    one past its last byte; equal to {@code start} for a sizeless symbol
     * @param module for kallsyms, the module it belongs to ("" for the kernel itself)
     */
    public record Entry(String name, ElfSymbol.Kind kind, int binding, long start, long end, String module) {

        /** A symbol of {@code size} bytes at {@code start} ({@code symbol__new}: end = start + len). */
        public static Entry sized(String name, ElfSymbol.Kind kind, int binding, long start, long size, String module) {
            return new Entry(name, kind, binding, start, start + size, module);
        }

        public long length() {
            return end - start;
        }

        /** {@code symbols__find}'s test: [start, end), or the start alone when sizeless. */
        public boolean contains(long addr) {
            return start == end ? addr == start
                    : Long.compareUnsigned(addr, start) >= 0 && Long.compareUnsigned(addr, end) < 0;
        }

        Entry withEnd(long e) {
            return new Entry(name, kind, binding, start, e, module);
        }
    }

    private static final long PAGE = 4096;
    private static final Comparator<Entry> BY_START = Comparator.comparing(Entry::start, Long::compareUnsigned);

    private final Entry[] entries;
    private final long maxLength;

    private SymbolTable(List<Entry> sorted) {
        entries = sorted.toArray(Entry[]::new);
        long max = 0;
        for (Entry e : entries) {
            max = Math.max(max, e.length());
        }
        maxLength = max;
    }

    /**
     * An ELF DSO's table: each list of entries (sized by st_size, see {@link Entry#sized}) is
     * inserted, then fixed up, in turn, as dso__load_sym loads .symtab and then .dynsym.
     */
    public static SymbolTable ofElf(List<List<Entry>> passes) {
        List<Entry> tree = new ArrayList<>();
        for (List<Entry> pass : passes) {
            if (pass.isEmpty()) {
                continue;
            }
            tree.addAll(pass);
            tree.sort(BY_START); // stable: an equal start goes after the ones inserted before it
            tree = fixupDuplicate(fixupEnd(tree, false));
        }
        return new SymbolTable(tree);
    }

    /** kallsyms' table: the sizeless symbols in file order, fixed up once with the module rule. */
    public static SymbolTable ofKallsyms(List<Entry> symbols) {
        List<Entry> tree = new ArrayList<>(symbols);
        tree.sort(BY_START);
        return new SymbolTable(fixupDuplicate(fixupEnd(tree, true)));
    }

    /** The symbols, by start, one per start. */
    public List<Entry> entries() {
        return List.of(entries);
    }

    /** The symbol holding {@code addr}, if any. */
    public Optional<Entry> find(long addr) {
        int lo = 0;
        int hi = entries.length;
        while (lo < hi) { // first entry with start > addr
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(entries[mid].start(), addr) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int i = lo - 1; i >= 0; i--) {
            Entry e = entries[i];
            if (e.contains(addr)) {
                return Optional.of(e);
            }
            if (Long.compareUnsigned(addr - e.start(), maxLength) > 0) {
                break;
            }
        }
        return Optional.empty();
    }

    /**
     * {@code symbols__fixup_end}: a sizeless symbol ends where the next one (in tree order) starts;
     * in kallsyms, the last symbol of the kernel or of a module ends at the page boundary after the
     * next page instead (module text lies far from the kernel's). The very last sizeless one ends
     * one page past its start's page boundary, rounded up.
     */
    static List<Entry> fixupEnd(List<Entry> sorted, boolean kallsyms) {
        List<Entry> out = new ArrayList<>(sorted);
        for (int i = 0; i + 1 < out.size(); i++) {
            Entry prev = out.get(i);
            Entry curr = out.get(i + 1);
            if (prev.end() != prev.start()) {
                continue;
            }
            long end;
            boolean prevMod = !prev.module().isEmpty();
            boolean currMod = !curr.module().isEmpty();
            if (kallsyms && (prevMod != currMod || prevMod && !prev.module().equals(curr.module()))) {
                end = roundUp(prev.end() + PAGE);
            } else {
                end = curr.start();
            }
            out.set(i, prev.withEnd(end));
        }
        if (!out.isEmpty()) {
            Entry last = out.getLast();
            if (last.end() == last.start()) {
                out.set(out.size() - 1, last.withEnd(roundUp(last.start()) + PAGE));
            }
        }
        return out;
    }

    /**
     * {@code symbols__fixup_duplicate}: of symbols sharing a start, the one {@code choose_best_symbol}
     * prefers stays, walking the tree in order and comparing each survivor with the next.
     */
    static List<Entry> fixupDuplicate(List<Entry> sorted) {
        List<Entry> out = new ArrayList<>(sorted.size());
        for (Entry e : sorted) {
            if (!out.isEmpty() && out.getLast().start() == e.start()) {
                if (!prefersFirst(out.getLast(), e)) {
                    out.set(out.size() - 1, e);
                }
            } else {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * {@code choose_best_symbol(a, b) == SYMBOL_A}: a sized symbol over a sizeless one, then not weak
     * over weak, global over not global, fewer leading underscores, the longer name; on a full tie
     * the first, unless its name begins with "SyS" or "compat_SyS" ({@code arch__choose_best_symbol}).
     */
    static boolean prefersFirst(Entry a, Entry b) {
        long la = a.length();
        long lb = b.length();
        if (lb == 0 && la > 0) {
            return true;
        }
        if (la == 0 && lb > 0) {
            return false;
        }
        boolean wa = a.binding() == ElfSymbol.STB_WEAK;
        boolean wb = b.binding() == ElfSymbol.STB_WEAK;
        if (wa != wb) {
            return wb;
        }
        boolean ga = a.binding() == ElfSymbol.STB_GLOBAL;
        boolean gb = b.binding() == ElfSymbol.STB_GLOBAL;
        if (ga != gb) {
            return ga;
        }
        int ua = underscores(a.name());
        int ub = underscores(b.name());
        if (ua != ub) {
            return ua < ub;
        }
        int na = a.name().getBytes(StandardCharsets.UTF_8).length; // strlen
        int nb = b.name().getBytes(StandardCharsets.UTF_8).length;
        if (na != nb) {
            return na > nb;
        }
        return !a.name().startsWith("SyS") && !a.name().startsWith("compat_SyS");
    }

    private static int underscores(String name) {
        int i = 0;
        while (i < name.length() && name.charAt(i) == '_') {
            i++;
        }
        return i;
    }

    private static long roundUp(long addr) {
        return (addr + PAGE - 1) & -PAGE;
    }
}
