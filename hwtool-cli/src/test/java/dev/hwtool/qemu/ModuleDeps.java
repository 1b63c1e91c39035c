package dev.hwtool.qemu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What depmod(8) wrote for one kernel: {@code modules.dep} ("kernel/a/b.ko: dep.ko dep2.ko", one
 * module per line) and {@code modules.builtin} (modules compiled into the image). Resolves the
 * modules a guest needs into the order insmod must load them, dependencies first, which is
 * what modprobe would do but busybox's insmod does not.
 */
final class ModuleDeps {

    private final Path dir;
    private final Map<String, String> pathByName = new HashMap<>();
    private final Map<String, List<String>> depsByPath = new HashMap<>();
    private final Set<String> builtin = new HashSet<>();

    private ModuleDeps(Path dir) {
        this.dir = dir;
    }

    static ModuleDeps of(Kernel kernel) {
        return read(kernel.modules());
    }

    static ModuleDeps read(Path modulesDir) {
        ModuleDeps deps = new ModuleDeps(modulesDir);
        try {
            for (String line : Files.readAllLines(modulesDir.resolve("modules.dep"))) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String path = line.substring(0, colon).strip();
                String rest = line.substring(colon + 1).strip();
                deps.pathByName.put(name(path), path);
                deps.depsByPath.put(path, rest.isEmpty() ? List.of() : List.of(rest.split("\\s+")));
            }
            Path builtin = modulesDir.resolve("modules.builtin");
            if (Files.exists(builtin)) {
                Files.readAllLines(builtin).stream().map(String::strip).filter(l -> !l.isEmpty())
                        .map(ModuleDeps::name).forEach(deps.builtin::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the module lists in " + modulesDir, e);
        }
        return deps;
    }

    /** "kernel/net/9p/9pnet_virtio.ko" → "9pnet_virtio"; the kernel treats '-' and '_' alike. */
    static String name(String path) {
        String file = path.substring(path.lastIndexOf('/') + 1);
        int ko = file.indexOf(".ko");
        return (ko < 0 ? file : file.substring(0, ko)).replace('-', '_');
    }

    boolean isBuiltin(String module) {
        return builtin.contains(module.replace('-', '_'));
    }

    /**
     * The module files to insmod for {@code modules}, each after everything it depends on,
     * each once; built-in modules are left out.
     *
     * @throws IllegalArgumentException for a module that is neither built in nor in modules.dep,
     *                                  or that is compressed (busybox insmod here takes plain .ko)
     */
    List<Path> loadOrder(Collection<String> modules) {
        LinkedHashSet<String> ordered = new LinkedHashSet<>();
        for (String m : modules) {
            String module = m.replace('-', '_');
            if (isBuiltin(module)) {
                continue;
            }
            String path = pathByName.get(module);
            if (path == null) {
                throw new IllegalArgumentException("module " + m + " is neither built into the kernel nor listed in "
                        + dir.resolve("modules.dep"));
            }
            visit(path, ordered, new HashSet<>());
        }
        List<Path> files = new ArrayList<>();
        for (String path : ordered) {
            if (!path.endsWith(".ko")) {
                throw new IllegalArgumentException(dir.resolve(path) + " is compressed; the guest's insmod needs a plain .ko");
            }
            files.add(dir.resolve(path));
        }
        return files;
    }

    private void visit(String path, LinkedHashSet<String> ordered, Set<String> inProgress) {
        if (ordered.contains(path)) {
            return;
        }
        if (!inProgress.add(path)) {
            throw new IllegalArgumentException("dependency cycle through " + path + " in " + dir.resolve("modules.dep"));
        }
        for (String dep : depsByPath.getOrDefault(path, List.of())) {
            visit(dep, ordered, inProgress);
        }
        ordered.add(path);
    }
}
