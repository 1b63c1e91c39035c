package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.caps.Fact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * JSON output through jackson-jr. Values are plain maps and lists; {@link #tree(Object)}
 * turns the api's records into them with snake_case keys, so a field renamed in Java shows
 * up in the JSON tests rather than silently in users' scripts.
 */
final class Json {

    private static final JSON WRITER = JSON.std.with(JSON.Feature.PRETTY_PRINT_OUTPUT, JSON.Feature.WRITE_NULL_PROPERTIES);
    private static final JSON LINE = JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES);

    private Json() {
    }

    static String write(Object value) {
        try {
            return WRITER.asString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One JSON object on one line, for JSON-lines output ({@link #write} pretty-prints over several). */
    static String line(Object value) {
        try {
            return LINE.asString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records → ordered maps (snake_case keys), collections → lists, enums → lower-case names. */
    static Object tree(Object v) {
        if (v == null || v instanceof String || v instanceof Number || v instanceof Boolean) {
            return v;
        }
        if (v instanceof Fact<?> f) {
            // A fact read from the system is its value; a missing, unreadable or malformed
            // file says which, and where, so scripts can tell "off" from "could not tell".
            return switch (f) {
                case Fact.Known<?> k -> tree(k.value());
                case Fact.Absent<?> a -> state("absent", "path", a.path(), null, null);
                case Fact.Unreadable<?> u -> state("unreadable", "path", u.path(), "error", u.error());
                case Fact.Malformed<?> m -> state("malformed", "path", m.path(), "text", m.text());
            };
        }
        if (v instanceof Optional<?> o) {
            return o.map(Json::tree).orElse(null);
        }
        if (v instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT);
        }
        if (v instanceof Path p) {
            return p.toString();
        }
        if (v instanceof Map<?, ?> m) {
            // Keep an ordered map's order; sort an unordered one so output is stable run to run.
            Map<String, Object> out = m instanceof LinkedHashMap<?, ?> || m instanceof java.util.SortedMap<?, ?>
                    ? new LinkedHashMap<>() : new java.util.TreeMap<>();
            m.forEach((k, val) -> out.put(String.valueOf(k instanceof Enum<?> e ? tree(e) : k), tree(val)));
            return out;
        }
        if (v instanceof Collection<?> c) {
            List<Object> out = new ArrayList<>(c.size());
            c.forEach(x -> out.add(tree(x)));
            return out;
        }
        if (v.getClass().isRecord()) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (RecordComponent rc : v.getClass().getRecordComponents()) {
                try {
                    out.put(snake(rc.getName()), tree(rc.getAccessor().invoke(v)));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot read " + rc, e);
                }
            }
            return out;
        }
        return v.toString();
    }

    private static Map<String, Object> state(String state, String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", state);
        m.put(k1, v1);
        if (k2 != null) {
            m.put(k2, v2);
        }
        return m;
    }

    static String snake(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            char ch = camel.charAt(i);
            if (Character.isUpperCase(ch)) {
                if (i > 0) {
                    b.append('_');
                }
                b.append(Character.toLowerCase(ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
