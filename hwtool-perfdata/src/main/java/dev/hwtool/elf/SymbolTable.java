package dev.hwtool.elf;

import java.nio.charset.StandardCharsets;
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
 * start. Where symbols overlap, perf's answer depends on its red-black tree's shape, which
 * {@link PerfSymbolTree} builds as perf does.
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

    private final PerfSymbolTree tree;
    private final Entry[] entries;

    private SymbolTable(PerfSymbolTree tree) {
        this.tree = tree;
        this.entries = tree.entries().toArray(Entry[]::new);
    }

    /**
     * An ELF DSO's table: each list of entries (sized by st_size, see {@link Entry#sized}) is
     * inserted, then fixed up, in turn, as dso__load_sym loads .symtab and then .dynsym.
     */
    public static SymbolTable ofElf(List<List<Entry>> passes) {
        return ofElf(passes, List.of());
    }

    /**
     * As {@link #ofElf(List)}, then the synthesized PLT symbols inserted after the fix-ups, which
     * they do not go through (perf 6.1 dso__load: dso__synthesize_plt_symbols runs after
     * dso__load_sym, and only when that loaded a symbol).
     */
    public static SymbolTable ofElf(List<List<Entry>> passes, List<Entry> plt) {
        PerfSymbolTree tree = new PerfSymbolTree();
        boolean loaded = false;
        for (List<Entry> pass : passes) {
            if (pass.isEmpty()) {
                continue;
            }
            pass.forEach(tree::insert); // in table order: the tree's shape depends on it
            tree.fixupEnd(false);
            tree.fixupDuplicate();
            loaded = true;
        }
        if (loaded) {
            plt.forEach(tree::insert);
        }
        return new SymbolTable(tree);
    }

    /** kallsyms' table: the sizeless symbols in file order, fixed up once with the module rule. */
    public static SymbolTable ofKallsyms(List<Entry> symbols) {
        PerfSymbolTree tree = new PerfSymbolTree();
        symbols.forEach(tree::insert);
        tree.fixupEnd(true);
        tree.fixupDuplicate();
        return new SymbolTable(tree);
    }

    /** The symbols in perf's tree order (by start; of equal starts, as inserted). */
    public List<Entry> entries() {
        return List.of(entries);
    }

    /**
     * The symbol perf names {@code addr} with: the first on the tree path from the root that holds
     * it. Where none overlap, the one holding it; where some do, perf's pick, which may be none.
     */
    public Optional<Entry> find(long addr) {
        return tree.find(addr);
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
}
