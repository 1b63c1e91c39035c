package dev.hwtool.record;

import dev.hwtool.elf.ElfSymbol;
import dev.hwtool.elf.SymbolTable;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The running kernel's symbols from /proc/kallsyms, as perf loads them (tools/perf/util/symbol.c
 * dso__load_all_kallsyms, map__process_kallsym_symbol; tools/lib/symbol/kallsyms.c): text and data
 * symbols (types T, W, D, B in either case), not ARM's "$" locals, each sizeless, then
 * {@link SymbolTable#ofKallsyms fixed up} with the module rule. A module symbol's line ends in
 * "\t[module]".
 *
 * <p>They name a recording's kernel addresses only when the recording's kernel is this one: its
 * kernel MMAP record ("[kernel.kallsyms]_text", pgoff the address of _text when it was recorded)
 * must give the reference symbol the address kallsyms gives it now. A kernel restarted with KASLR
 * moves _text, and kallsyms read without privilege (kptr_restrict) shows every address as 0, so
 * neither is taken for the recording's kernel; perf, with no kallsyms it can trust, shows the bare
 * addresses too.
 */
final class KernelSymbols {

    private final SymbolTable table;
    private final Map<String, Long> addresses;

    private KernelSymbols(SymbolTable table, Map<String, Long> addresses) {
        this.table = table;
        this.addresses = addresses;
    }

    /** The file's symbols, or empty when it cannot be read. */
    static Optional<KernelSymbols> read(Path kallsyms) {
        List<SymbolTable.Entry> entries = new ArrayList<>();
        Map<String, Long> addresses = new HashMap<>();
        try (BufferedReader r = Files.newBufferedReader(kallsyms, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                parse(line, entries, addresses);
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.of(new KernelSymbols(SymbolTable.ofKallsyms(entries), addresses));
    }

    /** One "ADDR TYPE NAME[\t[MODULE]]" line (kallsyms__parse). */
    static void parse(String line, List<SymbolTable.Entry> entries, Map<String, Long> addresses) {
        int sp = line.indexOf(' ');
        if (sp <= 0 || line.length() < sp + 4 || line.charAt(sp + 2) != ' ') {
            return;
        }
        long addr;
        try {
            addr = Long.parseUnsignedLong(line, 0, sp, 16);
        } catch (NumberFormatException e) {
            return;
        }
        char type = line.charAt(sp + 1);
        String rest = line.substring(sp + 3);
        int tab = rest.indexOf('\t');
        String name = tab >= 0 ? rest.substring(0, tab) : rest;
        String module = "";
        if (tab >= 0) {
            String m = rest.substring(tab + 1).strip();
            module = m.startsWith("[") && m.endsWith("]") ? m.substring(1, m.length() - 1) : m;
        }
        addresses.putIfAbsent(name, addr);
        char up = Character.toUpperCase(type);
        if ((up != 'T' && up != 'W' && up != 'D' && up != 'B') || name.startsWith("$") || name.isEmpty()) {
            return;
        }
        int binding = type == 'W' ? ElfSymbol.STB_WEAK : Character.isUpperCase(type) ? ElfSymbol.STB_GLOBAL : ElfSymbol.STB_LOCAL;
        ElfSymbol.Kind kind = up == 'T' || up == 'W' ? ElfSymbol.Kind.FUNC : ElfSymbol.Kind.OBJECT;
        entries.add(SymbolTable.Entry.sized(name, kind, binding, addr, 0, module));
    }

    /** Whether kallsyms gives {@code symbol} the address {@code addr} (never for an address of 0). */
    boolean matches(String symbol, long addr) {
        Long a = addresses.get(symbol);
        return a != null && a != 0 && a == addr;
    }

    SymbolTable table() {
        return table;
    }
}
