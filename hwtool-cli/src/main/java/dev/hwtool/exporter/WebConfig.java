package dev.hwtool.exporter;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The web configuration file of Prometheus exporters ({@code --web.config.file}), in the format
 * of prometheus/exporter-toolkit's docs/web-configuration.md: {@code tls_server_config},
 * {@code http_server_config} and {@code basic_auth_users}. As exporter-toolkit parses it with
 * strict YAML ({@code yaml.UnmarshalStrict}), an unknown key is an error, and so is a duplicate
 * one. Keys of that format that hwtool does not implement ({@code rate_limit}) are refused by
 * name rather than ignored: a security setting silently
 * dropped would be worse than none.
 *
 * @param tls   the TLS settings; empty when the file has none, and then the exporter serves
 *              plain HTTP (exporter-toolkit's errNoTLSConfig)
 * @param users user name to bcrypt hash; empty means no basic authentication
 * @param headers response headers from {@code http_server_config.headers}
 */
public record WebConfig(Optional<TlsServerConfig> tls, Map<String, String> users, Map<String, String> headers) {

    /** The size a web configuration may have; exporter-toolkit's are a few hundred bytes. */
    static final int MAX_BYTES = 1 << 20;

    public WebConfig {
        users = Map.copyOf(users);
        headers = Map.copyOf(headers);
    }

    /** No TLS, no users: what the exporter serves without {@code --web.config.file}. */
    public static final WebConfig NONE = new WebConfig(Optional.empty(), Map.of(), Map.of());

    /** Go's crypto/tls ClientAuthType names, as exporter-toolkit takes them. */
    public enum ClientAuth {
        NO_CLIENT_CERT("NoClientCert"),
        REQUEST_CLIENT_CERT("RequestClientCert"),
        REQUIRE_ANY_CLIENT_CERT("RequireAnyClientCert"),
        VERIFY_CLIENT_CERT_IF_GIVEN("VerifyClientCertIfGiven"),
        REQUIRE_AND_VERIFY_CLIENT_CERT("RequireAndVerifyClientCert");

        final String yamlName;

        ClientAuth(String yamlName) {
            this.yamlName = yamlName;
        }

        /** Whether the client's certificate is checked against client_ca. */
        public boolean verifies() {
            return this == VERIFY_CLIENT_CERT_IF_GIVEN || this == REQUIRE_AND_VERIFY_CLIENT_CERT;
        }

        /** Whether a client without a certificate is refused. */
        public boolean requires() {
            return this == REQUIRE_ANY_CLIENT_CERT || this == REQUIRE_AND_VERIFY_CLIENT_CERT;
        }
    }

    /**
     * {@code tls_server_config}. Each PEM source is a file or inline text (exactly one of the
     * two, as exporter-toolkit requires); files are named relative to the configuration file's
     * directory, as exporter-toolkit's {@code SetDirectory} resolves them.
     */
    public record TlsServerConfig(Pem cert, Pem key, Optional<Pem> clientCa, ClientAuth clientAuth,
                                  String minVersion, String maxVersion, List<String> cipherSuites,
                                  boolean preferServerCipherSuites, List<String> curvePreferences,
                                  List<String> clientAllowedSans) {
        public TlsServerConfig {
            cipherSuites = List.copyOf(cipherSuites);
            curvePreferences = List.copyOf(curvePreferences);
            clientAllowedSans = List.copyOf(clientAllowedSans);
        }
    }

    /** PEM text and where it came from (a path, or the key it was written under). */
    public record Pem(String origin, String text) {
        /** The file it was read from; empty for inline PEM. */
        public Optional<Path> file() {
            return origin.startsWith("tls_server_config.") ? Optional.empty() : Optional.of(Path.of(origin));
        }

        @Override
        public String toString() {
            return origin;
        }
    }

    /** Reads and checks the file; every failure is one line naming the file. */
    public static WebConfig load(Path file) throws WebConfigException {
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new WebConfigException(file + ": larger than " + MAX_BYTES + " bytes; not a web configuration");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new WebConfigException(file + ": " + reason(e));
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new WebConfigException(file + ": not UTF-8 text");
        }
        Path dir = file.toAbsolutePath().getParent();
        try {
            return parse(text, dir);
        } catch (WebConfigException e) {
            throw new WebConfigException(file + ": " + e.getMessage());
        }
    }

    /** Parses the text; relative file names are resolved against {@code dir}. */
    static WebConfig parse(String text, Path dir) throws WebConfigException {
        Object root;
        try {
            // Duplicate keys are refused by LoadSettings' default (allowDuplicateKeys false);
            // no custom tags: the core schema's plain values only.
            LoadSettings settings = LoadSettings.builder().setAllowDuplicateKeys(false).setLabel("web config").build();
            root = new Load(settings).loadFromString(text);
        } catch (YamlEngineException e) {
            throw new WebConfigException("not valid YAML: " + oneLine(e.getMessage()));
        }
        if (root == null) {
            return NONE; // an empty file: exporter-toolkit serves plain HTTP without users too
        }
        Map<String, Object> top = map(root, "the file");
        known(top, "", Set.of("tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"));
        if (top.containsKey("rate_limit")) {
            throw unsupported("rate_limit");
        }
        Optional<TlsServerConfig> tls = top.get("tls_server_config") == null ? Optional.empty()
                : tls(map(top.get("tls_server_config"), "tls_server_config"), dir);
        Map<String, String> headers = new LinkedHashMap<>();
        if (top.get("http_server_config") != null) {
            Map<String, Object> http = map(top.get("http_server_config"), "http_server_config");
            known(http, "http_server_config.", Set.of("http2", "headers"));
            if (http.containsKey("http2")) {
                bool(http.get("http2"), "http_server_config.http2"); // HTTP/1.1 is served either way
            }
            if (http.get("headers") != null) {
                Map<String, Object> h = map(http.get("headers"), "http_server_config.headers");
                // exporter-toolkit's list; it refuses any other header name too
                known(h, "http_server_config.headers.", Set.of("Content-Security-Policy", "X-Frame-Options",
                        "X-Content-Type-Options", "X-XSS-Protection", "Strict-Transport-Security"));
                for (Map.Entry<String, Object> e : h.entrySet()) {
                    String v = string(e.getValue(), "http_server_config.headers." + e.getKey());
                    if (v.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                        throw new WebConfigException("http_server_config.headers." + e.getKey() + ": a control character");
                    }
                    if (!v.isEmpty()) {
                        headers.put(e.getKey(), v);
                    }
                }
            }
        }
        Map<String, String> users = new LinkedHashMap<>();
        if (top.get("basic_auth_users") != null) {
            Map<String, Object> u = map(top.get("basic_auth_users"), "basic_auth_users");
            for (Map.Entry<String, Object> e : u.entrySet()) {
                String hash = string(e.getValue(), "basic_auth_users." + e.getKey());
                if (!BasicAuth.isBcrypt(hash)) {
                    throw new WebConfigException("basic_auth_users." + e.getKey()
                            + ": not a bcrypt hash ($2a$, $2b$ or $2y$, cost 04-31, 53 characters; e.g. htpasswd -nBC 10 \"\" | tr -d ':\\n')");
                }
                if (e.getKey().contains(":")) {
                    // RFC 7617 section 2: the user-id cannot contain a colon
                    throw new WebConfigException("basic_auth_users: user '" + e.getKey() + "' contains ':' (RFC 7617 2)");
                }
                users.put(e.getKey(), hash);
            }
        }
        return new WebConfig(tls, users, headers);
    }

    private static final Set<String> TLS_KEYS = Set.of("cert", "key", "client_ca", "cert_file", "key_file",
            "client_auth_type", "client_ca_file", "client_allowed_sans", "min_version", "max_version",
            "cipher_suites", "prefer_server_cipher_suites", "curve_preferences");

    private static Optional<TlsServerConfig> tls(Map<String, Object> t, Path dir) throws WebConfigException {
        known(t, "tls_server_config.", TLS_KEYS);
        Optional<Pem> cert = pem(t, "cert", "cert_file", dir);
        Optional<Pem> key = pem(t, "key", "key_file", dir);
        Optional<Pem> ca = pem(t, "client_ca", "client_ca_file", dir);
        String authName = t.get("client_auth_type") == null ? "" : string(t.get("client_auth_type"), "tls_server_config.client_auth_type");
        // exporter-toolkit's ConfigToTLSConfig: nothing of these set means no TLS at all
        if (cert.isEmpty() && key.isEmpty() && ca.isEmpty() && authName.isEmpty()) {
            return Optional.empty();
        }
        if (cert.isEmpty()) {
            throw new WebConfigException("tls_server_config: missing one of cert or cert_file");
        }
        if (key.isEmpty()) {
            throw new WebConfigException("tls_server_config: missing one of key or key_file");
        }
        ClientAuth auth = ClientAuth.NO_CLIENT_CERT;
        if (!authName.isEmpty()) {
            auth = null;
            for (ClientAuth a : ClientAuth.values()) {
                if (a.yamlName.equals(authName)) {
                    auth = a;
                }
            }
            if (authName.equals("RequireClientCert")) {
                auth = ClientAuth.REQUIRE_ANY_CLIENT_CERT; // exporter-toolkit keeps this old name
            }
            if (auth == null) {
                throw new WebConfigException("tls_server_config.client_auth_type: '" + authName + "' is not one of "
                        + "NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert");
            }
        }
        if (ca.isPresent() && auth == ClientAuth.NO_CLIENT_CERT) {
            // exporter-toolkit: "Client CA's have been configured without a Client Auth Policy"
            throw new WebConfigException("tls_server_config: client_ca_file is given but client_auth_type is NoClientCert;"
                    + " set client_auth_type: RequireAndVerifyClientCert");
        }
        if (auth.verifies() && ca.isEmpty()) {
            // Go would verify against the host's roots; a client CA named explicitly is clearer
            throw new WebConfigException("tls_server_config: client_auth_type " + auth.yamlName + " needs client_ca_file");
        }
        String min = version(t, "min_version", "TLS12");
        String max = version(t, "max_version", "TLS13");
        if (min.compareTo(max) > 0) {
            throw new WebConfigException("tls_server_config: min_version " + min + " is above max_version " + max);
        }
        List<String> suites = strings(t.get("cipher_suites"), "tls_server_config.cipher_suites");
        boolean prefer = t.get("prefer_server_cipher_suites") == null
                || bool(t.get("prefer_server_cipher_suites"), "tls_server_config.prefer_server_cipher_suites");
        List<String> curves = strings(t.get("curve_preferences"), "tls_server_config.curve_preferences");
        for (String c : curves) {
            if (!TlsContexts.CURVES.containsKey(c)) {
                throw new WebConfigException("tls_server_config.curve_preferences: '" + c + "' is not one of "
                        + new TreeSet<>(TlsContexts.CURVES.keySet()));
            }
        }
        List<String> sans = strings(t.get("client_allowed_sans"), "tls_server_config.client_allowed_sans");
        if (!sans.isEmpty() && !auth.requires()) {
            // exporter-toolkit: the other policies let a client connect without a certificate,
            // leaving no SAN to match against
            throw new WebConfigException("tls_server_config: client_allowed_sans needs client_auth_type"
                    + " RequireAnyClientCert or RequireAndVerifyClientCert");
        }
        return Optional.of(new TlsServerConfig(cert.get(), key.get(), ca, auth, min, max, suites, prefer, curves, sans));
    }

    private static String version(Map<String, Object> t, String name, String dflt) throws WebConfigException {
        if (t.get(name) == null) {
            return dflt;
        }
        String v = string(t.get(name), "tls_server_config." + name);
        if (!TlsContexts.VERSIONS.containsKey(v)) {
            throw new WebConfigException("tls_server_config." + name + ": '" + v + "' is not one of TLS10, TLS11, TLS12, TLS13");
        }
        return v;
    }

    private static Optional<Pem> pem(Map<String, Object> t, String inline, String file, Path dir) throws WebConfigException {
        String text = t.get(inline) == null ? "" : string(t.get(inline), "tls_server_config." + inline);
        String name = t.get(file) == null ? "" : string(t.get(file), "tls_server_config." + file);
        if (!text.isEmpty() && !name.isEmpty()) {
            throw new WebConfigException("tls_server_config: both " + inline + " and " + file + " are given; one of them");
        }
        if (!text.isEmpty()) {
            return Optional.of(new Pem("tls_server_config." + inline, text));
        }
        if (name.isEmpty()) {
            return Optional.empty();
        }
        Path p = dir == null ? Path.of(name) : dir.resolve(name);
        try {
            if (Files.size(p) > MAX_BYTES) {
                throw new WebConfigException("tls_server_config." + file + ": " + p + " is larger than " + MAX_BYTES + " bytes");
            }
            return Optional.of(new Pem(p.toString(), Files.readString(p, StandardCharsets.US_ASCII)));
        } catch (IOException e) {
            throw new WebConfigException("tls_server_config." + file + ": cannot read " + p + ": " + reason(e));
        }
    }

    private static void known(Map<String, Object> m, String prefix, Set<String> keys) throws WebConfigException {
        for (String k : m.keySet()) {
            if (!keys.contains(k)) {
                throw new WebConfigException("unknown key '" + prefix + k + "' (the keys are exporter-toolkit's: "
                        + String.join(", ", new TreeSet<>(keys)) + ")");
            }
        }
    }

    private static WebConfigException unsupported(String key) {
        return new WebConfigException("'" + key + "' is exporter-toolkit's but not implemented by hwtool; remove it"
                + " (it is refused rather than ignored)");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String where) throws WebConfigException {
        if (!(o instanceof Map<?, ?> m)) {
            throw new WebConfigException(where + ": expected a mapping, found " + kind(o));
        }
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw new WebConfigException(where + ": key " + k + " is not a string");
            }
        }
        return (Map<String, Object>) m;
    }

    private static String string(Object o, String where) throws WebConfigException {
        if (o instanceof String s) {
            return s;
        }
        throw new WebConfigException(where + ": expected a string, found " + kind(o));
    }

    private static boolean bool(Object o, String where) throws WebConfigException {
        if (o instanceof Boolean b) {
            return b;
        }
        throw new WebConfigException(where + ": expected true or false, found " + kind(o));
    }

    private static List<String> strings(Object o, String where) throws WebConfigException {
        if (o == null) {
            return List.of();
        }
        if (!(o instanceof List<?> l)) {
            throw new WebConfigException(where + ": expected a list of strings, found " + kind(o));
        }
        List<String> out = new ArrayList<>();
        for (Object e : l) {
            out.add(string(e, where));
        }
        return out;
    }

    private static String kind(Object o) {
        return switch (o) {
            case null -> "nothing";
            case Map<?, ?> m -> "a mapping";
            case List<?> l -> "a list";
            case String s -> "a string";
            case Boolean b -> "a boolean";
            case Number n -> "a number (" + n + ")";
            default -> o.getClass().getSimpleName();
        };
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\n\\s*", " ");
    }

    static String reason(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** A web configuration that cannot be used; the message is one line. */
    public static final class WebConfigException extends Exception {
        public WebConfigException(String message) {
            super(message);
        }
    }
}
