package dev.hwtool.elf;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SymbolTable}'s fix-ups (perf's symbols__fixup_end, symbols__fixup_duplicate,
 * choose_best_symbol, symbols__find) against a plain reference: every symbol's end computed from
 * its successor in start order, the survivor of each start the first best one under the
 * preference order, and the symbol of an address found by scanning them all.
 */
class SymbolTablePropertiesTest {

    private static final long BASE = 0x1000;
    private static final long SPAN = 0x40;

    @Provide
    Arbitrary<List<SymbolTable.Entry>> tables() {
        Arbitrary<String> names = Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.strings().withChars("abS").ofMinLength(1).ofMaxLength(4))
                .as((u, n) -> "_".repeat(u) + n).filter(n -> !n.startsWith("SyS"));
        Arbitrary<SymbolTable.Entry> entry = Combinators.combine(names,
                Arbitraries.of(ElfSymbol.Kind.values()),
                Arbitraries.of(ElfSymbol.STB_LOCAL, ElfSymbol.STB_GLOBAL, ElfSymbol.STB_WEAK),
                Arbitraries.longs().between(BASE, BASE + SPAN),
                Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, Arbitraries.just(0L)),
                        net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(1, 24))))
                .as((n, k, b, s, z) -> SymbolTable.Entry.sized(n, k, b, s, z, ""));
        return entry.list().ofMaxSize(14);
    }

    @Property(tries = 1000)
    void oneTableResolvesAsTheReference(@ForAll("tables") List<SymbolTable.Entry> symtab) {
        SymbolTable t = SymbolTable.ofElf(List.of(symtab));
        List<SymbolTable.Entry> ref = reference(symtab);
        assertEquals(ref, t.entries());
        // Where no two symbols overlap, the one holding an address is the answer. Where some do,
        // perf's answer depends on its tree's shape (PerfSymbolTree, held against perf itself in
        // PltNamesTest): whatever it names must hold the address, and it may name nothing.
        boolean disjoint = true;
        for (int i = 0; i + 1 < ref.size(); i++) {
            disjoint &= Long.compareUnsigned(ref.get(i).end(), ref.get(i + 1).start()) <= 0;
        }
        for (long a = BASE - 8; a < BASE + SPAN + 0x2100; a++) {
            Optional<SymbolTable.Entry> found = t.find(a);
            if (disjoint) {
                assertEquals(find(ref, a), found, "address 0x" + Long.toHexString(a));
            } else if (found.isPresent()) {
                assertTrue(ref.contains(found.get()) && found.get().contains(a), "address 0x" + Long.toHexString(a) + ": " + found);
            }
        }
    }

    @Property(tries = 500)
    void dynsymIsAddedAfterSymtabIsFixedUp(@ForAll("tables") List<SymbolTable.Entry> symtab,
                                           @ForAll("tables") List<SymbolTable.Entry> dynsym) {
        SymbolTable t = SymbolTable.ofElf(List.of(symtab, dynsym));
        List<SymbolTable.Entry> both = new ArrayList<>(reference(symtab));
        both.addAll(dynsym);
        List<SymbolTable.Entry> ref = dynsym.isEmpty() ? reference(symtab) : reference(both);
        assertEquals(ref, t.entries());
        List<Long> starts = t.entries().stream().map(SymbolTable.Entry::start).toList();
        assertEquals(starts.stream().distinct().sorted().toList(), starts, "one symbol per start, by start");
    }

    @Test
    void sizelessAssemblyFunctionsReachTheNextSymbolAndTheLastAPageBeyond() {
        SymbolTable t = SymbolTable.ofElf(List.of(List.of(
                SymbolTable.Entry.sized("c_spin", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x1150, 0x20, ""),
                SymbolTable.Entry.sized("asm_nosize", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x11ab, 0, ""),
                SymbolTable.Entry.sized("asm_label", ElfSymbol.Kind.NOTYPE, ElfSymbol.STB_GLOBAL, 0x11bb, 0, ""))));
        assertEquals("asm_nosize", t.find(0x11ba).orElseThrow().name());
        assertEquals("asm_label", t.find(0x11bb).orElseThrow().name());
        assertEquals(0x3000, t.entries().getLast().end(), "roundup(0x11bb, 4096) + 4096");
        assertTrue(t.find(0x1170).isEmpty(), "the gap after a sized symbol stays unnamed");
    }

    @Test
    void aliasesKeepTheSizedGlobalNonWeakFewestUnderscoresLongestName() {
        SymbolTable t = SymbolTable.ofElf(List.of(List.of(
                SymbolTable.Entry.sized("__memcpy", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x100, 0x40, ""),
                SymbolTable.Entry.sized("memcpy", ElfSymbol.Kind.FUNC, ElfSymbol.STB_WEAK, 0x100, 0x40, ""),
                SymbolTable.Entry.sized("memcpy_avx", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x100, 0x40, ""),
                SymbolTable.Entry.sized("memcpy_x", ElfSymbol.Kind.FUNC, ElfSymbol.STB_LOCAL, 0x100, 0x40, ""),
                SymbolTable.Entry.sized("SyS_read", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x200, 0x10, ""),
                SymbolTable.Entry.sized("sys_read", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0x200, 0x10, ""))));
        assertEquals(List.of("memcpy_avx", "sys_read"), t.entries().stream().map(SymbolTable.Entry::name).toList());
    }

    @Test
    void kallsymsEndsTheKernelAndEachModuleAtAPageBoundary() {
        SymbolTable t = SymbolTable.ofKallsyms(List.of(
                SymbolTable.Entry.sized("_text", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0xffffffff81000000L, 0, ""),
                SymbolTable.Entry.sized("_etext", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, 0xffffffff81e00010L, 0, ""),
                SymbolTable.Entry.sized("a_init", ElfSymbol.Kind.FUNC, ElfSymbol.STB_LOCAL, 0xffffffffc0000000L, 0, "a"),
                SymbolTable.Entry.sized("a_exit", ElfSymbol.Kind.FUNC, ElfSymbol.STB_LOCAL, 0xffffffffc0000100L, 0, "a"),
                SymbolTable.Entry.sized("b_init", ElfSymbol.Kind.FUNC, ElfSymbol.STB_LOCAL, 0xffffffffc0100000L, 0, "b")));
        List<Long> ends = t.entries().stream().map(SymbolTable.Entry::end).toList();
        assertEquals(List.of(0xffffffff81e00010L, 0xffffffff81e02000L, 0xffffffffc0000100L, 0xffffffffc0002000L,
                0xffffffffc0101000L), ends);
    }

    // ---- the reference

    /** Ends from the successor in (stable) start order, then the first best of each start. */
    static List<SymbolTable.Entry> reference(List<SymbolTable.Entry> in) {
        List<SymbolTable.Entry> s = new ArrayList<>(in);
        s.sort(Comparator.comparing(SymbolTable.Entry::start, Long::compareUnsigned));
        List<SymbolTable.Entry> ended = new ArrayList<>();
        for (int i = 0; i < s.size(); i++) {
            SymbolTable.Entry e = s.get(i);
            long end = e.end() != e.start() ? e.end()
                    : i + 1 < s.size() ? s.get(i + 1).start()
                    : ((e.start() + 4095) & -4096L) + 4096;
            ended.add(new SymbolTable.Entry(e.name(), e.kind(), e.binding(), e.start(), end, e.module()));
        }
        List<SymbolTable.Entry> out = new ArrayList<>();
        for (SymbolTable.Entry e : ended) {
            if (out.stream().anyMatch(o -> o.start() == e.start())) {
                continue;
            }
            SymbolTable.Entry best = e;
            for (SymbolTable.Entry c : ended) {
                if (c.start() == e.start() && better(c, best)) {
                    best = c;
                }
            }
            out.add(best);
        }
        return out;
    }

    /** Strictly preferred: sized, not weak, global, fewer leading '_', longer (in bytes). */
    private static boolean better(SymbolTable.Entry c, SymbolTable.Entry b) {
        Comparator<SymbolTable.Entry> pref = Comparator.<SymbolTable.Entry>comparingInt(x -> x.length() > 0 ? 1 : 0)
                .thenComparingInt(x -> x.binding() == ElfSymbol.STB_WEAK ? 0 : 1)
                .thenComparingInt(x -> x.binding() == ElfSymbol.STB_GLOBAL ? 1 : 0)
                .thenComparingInt(x -> -(x.name().length() - x.name().replaceFirst("^_+", "").length()))
                .thenComparingInt(x -> x.name().getBytes(StandardCharsets.UTF_8).length);
        return pref.compare(c, b) > 0;
    }

    /** The symbol holding the address, of symbols that do not overlap. */
    static Optional<SymbolTable.Entry> find(List<SymbolTable.Entry> table, long addr) {
        return table.stream().filter(e -> e.start() == e.end() ? addr == e.start() : addr >= e.start() && addr < e.end())
                .max(Comparator.comparingLong(SymbolTable.Entry::start));
    }
}
