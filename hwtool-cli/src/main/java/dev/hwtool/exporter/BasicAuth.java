package dev.hwtool.exporter;

import org.springframework.security.crypto.bcrypt.BCrypt;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * HTTP Basic authentication (RFC 7617) against exporter-toolkit's {@code basic_auth_users}: user
 * name to bcrypt hash, checked with Spring Security's BCrypt (whose checkpw compares the hashes
 * in constant time). As exporter-toolkit does, an unknown user is checked against a fixed hash
 * too, so the time taken does not tell whether the user exists, and a successful check is
 * remembered (a digest of user, hash and password, never the password) so that a scrape every
 * few seconds does not cost a bcrypt each time; failures are never remembered.
 */
final class BasicAuth {

    /** RFC 7617 section 2: the realm is required; charset tells clients to send UTF-8 (section 2.1). */
    static final String CHALLENGE = "Basic realm=\"hwtool exporter\", charset=\"UTF-8\"";

    /** The modular crypt form htpasswd -B and Go's bcrypt write: $2a$, $2b$ or $2y$, cost, 22 + 31 characters. */
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$(0[4-9]|[12][0-9]|3[01])\\$[./A-Za-z0-9]{53}");


    private static final int MAX_REMEMBERED = 256;

    private final Map<String, String> users;
    private final Set<String> remembered = ConcurrentHashMap.newKeySet();
    /** A hash of a random password, for unknown users: at the cost of the costliest configured hash. */
    private final String dummy;

    BasicAuth(Map<String, String> users) {
        this.users = Map.copyOf(users);
        int cost = users.values().stream().mapToInt(h -> Integer.parseInt(h.substring(4, 6))).max().orElse(4);
        byte[] random = new byte[16];
        new java.security.SecureRandom().nextBytes(random);
        this.dummy = BCrypt.hashpw(HexFormat.of().formatHex(random), BCrypt.gensalt(cost));
    }

    static boolean isBcrypt(String hash) {
        return BCRYPT.matcher(hash).matches();
    }

    /** Whether the Authorization header value names a configured user with the right password. */
    boolean allows(String authorization) {
        if (authorization == null) {
            return false;
        }
        int space = authorization.indexOf(' ');
        // RFC 7235 2.1: the scheme is case-insensitive
        if (space < 0 || !authorization.substring(0, space).equalsIgnoreCase("Basic")) {
            return false;
        }
        String userPass;
        try {
            byte[] decoded = Base64.getDecoder().decode(authorization.substring(space + 1).strip());
            userPass = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(decoded)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return false;
        }
        int colon = userPass.indexOf(':'); // RFC 7617 2: the user-id has no colon, the password may
        if (colon < 0) {
            return false;
        }
        String user = userPass.substring(0, colon);
        String password = userPass.substring(colon + 1);
        String hash = users.get(user);
        boolean known = hash != null;
        String against = known ? hash : dummy;
        String key = digest(user, against, password);
        if (known && remembered.contains(key)) {
            return true;
        }
        boolean ok;
        try {
            ok = BCrypt.checkpw(password, against);
        } catch (IllegalArgumentException e) {
            ok = false; // e.g. a password longer than bcrypt's 72 bytes, which Spring refuses
        }
        if (ok && known) {
            if (remembered.size() >= MAX_REMEMBERED) {
                remembered.clear();
            }
            remembered.add(key);
        }
        return ok && known;
    }

    private static String digest(String user, String hash, String password) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String s : new String[] {user, hash, password}) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                sha.update(HexFormat.of().formatHex(b).getBytes(StandardCharsets.US_ASCII)); // hex: no separator ambiguity
                sha.update((byte) ':');
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }
}
