package dev.hwtool.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.io.TerminalText;

import java.io.IOException;
import java.util.Map;

/**
 * JSON objects read from files a user hands to hwtool (msr save files), strictly: one object,
 * nothing after it, no field twice. A syntax error becomes one line in hwtool's words, "line
 * L, column C: what was expected", never the JSON library's own text.
 */
public final class JsonInput {

    private static final JSON STRICT = JSON.std.with(JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS);
    private static final JsonFactory FACTORY = new JsonFactory();

    /** A text that is not one well-formed JSON object; the message is one line, fit to follow "FILE: ". */
    public static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private JsonInput() {
    }

    /** The one JSON object {@code text} holds. */
    public static Map<String, Object> object(String text) throws Malformed {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new Malformed("empty file");
            }
            if (first != JsonToken.START_OBJECT) {
                throw new Malformed(at(p.currentTokenLocation()) + "expected a JSON object '{...}', found " + words(first));
            }
            Map<String, Object> root = STRICT.mapFrom(p);
            JsonLocation end = p.currentLocation();
            JsonToken extra;
            try {
                extra = p.nextToken();
            } catch (JsonProcessingException e) {
                extra = JsonToken.NOT_AVAILABLE;    // not even a token: still text after the end
            }
            if (extra != null) {
                throw new Malformed(at(end) + "text after the end of the JSON object");
            }
            return root;
        } catch (JsonProcessingException e) {
            throw new Malformed(at(e.getLocation()) + explain(e, text));
        } catch (IOException e) {
            throw new Malformed("not valid JSON");    // a String source has no I/O of its own
        }
    }

    private static String at(JsonLocation loc) {
        if (loc == null || loc.getLineNr() < 1) {
            return "";
        }
        return "line " + loc.getLineNr() + (loc.getColumnNr() > 0 ? ", column " + loc.getColumnNr() : "") + ": ";
    }

    /** What went wrong, in our words, chosen by the kind of error the parser met. */
    private static String explain(JsonProcessingException e, String text) {
        String m = String.valueOf(e.getOriginalMessage());
        String found = found(e.getLocation(), text);
        if (m.contains("end-of-input")) {
            return "the JSON ends early (is the file truncated?)";
        }
        if (m.contains("Duplicate")) {
            return "a field appears twice in one object";
        }
        if (m.contains("expecting a colon")) {
            return "expected ':' after the field name" + found;
        }
        if (m.contains("separate Object entries")) {
            return "expected ',' or '}' after a field" + found;
        }
        if (m.contains("separate Array entries")) {
            return "expected ',' or ']' after an array element" + found;
        }
        if (m.contains("start field name")) {
            return "expected a field name in double quotes" + found;
        }
        if (m.contains("Illegal unquoted character")) {
            return "a control character inside a string (JSON needs it escaped)";
        }
        if (m.contains("character escape")) {
            return "an unknown backslash escape inside a string";
        }
        if (m.contains("numeric value") || m.contains("Numeric value")) {
            return "a malformed number";
        }
        if (m.contains("Unrecognized token")) {
            return "expected a value (string, number, object, array, true, false or null)";
        }
        if (m.contains("expected a valid value") || m.contains("Unexpected character")) {
            return "expected a value (string, number, object, array, true, false or null)" + found;
        }
        return "not valid JSON" + found;
    }

    /** ", found 'c'" for the character the parser stopped at, when the location names one. */
    private static String found(JsonLocation loc, String text) {
        if (loc == null || loc.getLineNr() < 1 || loc.getColumnNr() < 1) {
            return "";
        }
        String[] lines = text.split("\n", -1);
        if (loc.getLineNr() > lines.length) {
            return "";
        }
        String line = lines[loc.getLineNr() - 1];
        int i = loc.getColumnNr() - 1;
        return i < line.length() ? ", found '" + TerminalText.quote(String.valueOf(line.charAt(i))) + "'" : "";
    }

    private static String words(JsonToken t) {
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "true/false";
            case VALUE_NULL -> "null";
            default -> "'" + TerminalText.quote(t.asString() == null ? t.name() : t.asString()) + "'";
        };
    }
}
