package dev.hwtool.cli;

import picocli.CommandLine.ITypeConverter;

import java.util.HashMap;
import java.util.Map;

/**
 * The type-converter registry of one picocli CommandLine (src/build/picocli-patch.sh, change 10):
 * its own entries over picocli's built-in converters, which every CommandLine after the JVM's first
 * shares instead of copying (~60 entries, three times per 'msr decode' line). The built-ins are a
 * map only picocli's Interpreter holds and never changes; the converters in it are stateless. An
 * entry put here (CommandLine.registerConverter) shadows the built-in one, in this registry only.
 *
 * <p>It serves what the Interpreter asks of its registry: {@code get}, {@code containsKey},
 * {@code put}, {@code clear} and {@code putAll} (CommandLine.copy). Other views (size, entrySet,
 * iteration) see only its own entries.
 */
public final class ConverterRegistry extends HashMap<Class<?>, ITypeConverter<?>> {

    private static final long serialVersionUID = 1L;

    /** The shared built-ins under this registry's own entries, or null. */
    private transient Map<Class<?>, ITypeConverter<?>> builtIns;

    /** Starts this (empty) registry with the shared built-ins. */
    public void builtIns(Map<Class<?>, ITypeConverter<?>> shared) {
        if (!super.isEmpty() || builtIns != null) {
            super.putAll(shared); // not fresh: an ordinary copy, as picocli's putAll was
            return;
        }
        builtIns = shared;
    }

    @Override
    public ITypeConverter<?> get(Object key) {
        ITypeConverter<?> v = super.get(key);
        if (v != null || builtIns == null || super.containsKey(key)) {
            return v;
        }
        return builtIns.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return super.containsKey(key) || (builtIns != null && builtIns.containsKey(key));
    }

    @Override
    public ITypeConverter<?> put(Class<?> key, ITypeConverter<?> value) {
        ITypeConverter<?> old = super.put(key, value);
        return old != null || builtIns == null ? old : builtIns.get(key);
    }

    @Override
    public void clear() {
        super.clear();
        builtIns = null;
    }

    @Override
    public void putAll(Map<? extends Class<?>, ? extends ITypeConverter<?>> m) {
        if (m instanceof ConverterRegistry r && r.builtIns != null) {
            if (builtIns == null && super.isEmpty()) {
                builtIns = r.builtIns;
            } else {
                for (Map.Entry<Class<?>, ITypeConverter<?>> e : r.builtIns.entrySet()) {
                    if (!r.ownKey(e.getKey())) {
                        super.put(e.getKey(), e.getValue());
                    }
                }
            }
        }
        super.putAll(m); // m's own entries (HashMap.putAll reads its entrySet)
    }

    private boolean ownKey(Object key) {
        return super.containsKey(key);
    }
}
