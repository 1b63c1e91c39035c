package dev.hwtool.exporter;

import dev.hwtool.exporter.WebConfig.Pem;
import dev.hwtool.exporter.WebConfig.TlsServerConfig;
import dev.hwtool.exporter.WebConfig.WebConfigException;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JDK's TLS (JSSE) set up from a {@code tls_server_config}: the PEM key pair, the client CA,
 * Go's client-auth policies, versions, cipher suites and curves. No cryptography here: PEM is
 * Base64 around DER (RFC 7468), the certificates are read by {@link CertificateFactory}, the keys
 * by {@link KeyFactory}; PKCS#1 RSA and SEC1 EC keys, which Go's tls.X509KeyPair also takes, are
 * given the PKCS#8 envelope (RFC 5208 PrivateKeyInfo: version, algorithm, the key as an OCTET
 * STRING) that KeyFactory reads. (java.security.PEMDecoder is a preview API in JDK 25, JEP 470,
 * and the code is compiled for release 22.)
 */
public final class TlsContexts {

    private TlsContexts() {
    }

    /** exporter-toolkit's version names and JSSE's protocol names. */
    static final Map<String, String> VERSIONS = Map.of("TLS10", "TLSv1", "TLS11", "TLSv1.1", "TLS12", "TLSv1.2",
            "TLS13", "TLSv1.3");

    /** Go's crypto/tls CurveID names and JSSE's named groups (JDK 20+: SSLParameters.setNamedGroups). */
    static final Map<String, String> CURVES = Map.of("CurveP256", "secp256r1", "CurveP384", "secp384r1",
            "CurveP521", "secp521r1", "X25519", "x25519");

    /**
     * A server's TLS: the context and the parameters each accepted socket gets, and the SANs of
     * which a client certificate must have one (empty: any).
     */
    public record ServerTls(SSLContext context, SSLParameters parameters, List<String> clientAllowedSans) {
        public ServerTls {
            clientAllowedSans = List.copyOf(clientAllowedSans);
        }

        /**
         * exporter-toolkit's client_allowed_sans: the client's certificate has a Subject
         * Alternative Name (DNS, IP, e-mail or URI: x509.Certificate's DNSNames, IPAddresses,
         * EmailAddresses, URIs) exactly equal to an entry; IP addresses compared as addresses.
         */
        public boolean allows(java.security.cert.Certificate[] peer) {
            if (clientAllowedSans.isEmpty()) {
                return true;
            }
            if (peer == null || peer.length == 0 || !(peer[0] instanceof X509Certificate leaf)) {
                return false;
            }
            try {
                java.util.Collection<List<?>> sans = leaf.getSubjectAlternativeNames();
                if (sans == null) {
                    return false;
                }
                for (List<?> san : sans) {
                    int type = (Integer) san.get(0);
                    // RFC 5280 4.2.1.6 GeneralName: 1 rfc822Name, 2 dNSName, 6 URI, 7 iPAddress
                    if (type != 1 && type != 2 && type != 6 && type != 7) {
                        continue;
                    }
                    String value = String.valueOf(san.get(1));
                    for (String allowed : clientAllowedSans) {
                        if (type == 7 ? sameAddress(value, allowed) : value.equals(allowed)) {
                            return true;
                        }
                    }
                }
            } catch (java.security.cert.CertificateParsingException e) {
                return false;
            }
            return false;
        }

        private static boolean sameAddress(String a, String b) {
            // literals only: InetAddress.ofLiteral never looks a name up (JDK 22)
            try {
                return java.net.InetAddress.ofLiteral(a).equals(java.net.InetAddress.ofLiteral(b));
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
    }

    public static ServerTls server(TlsServerConfig c) throws WebConfigException {
        List<X509Certificate> chain = certificates(c.cert());
        if (chain.isEmpty()) {
            throw new WebConfigException("tls_server_config: no CERTIFICATE block in " + c.cert());
        }
        PrivateKey key = privateKey(c.key());
        matches(chain.getFirst(), key, c);
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] none = new char[0];
            ks.setKeyEntry("server", key, none, chain.toArray(new Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, none);
            TrustManager[] trust = null;
            if (c.clientCa().isPresent() && c.clientAuth().verifies()) {
                KeyStore cas = KeyStore.getInstance("PKCS12");
                cas.load(null, null);
                List<X509Certificate> caCerts = certificates(c.clientCa().get());
                if (caCerts.isEmpty()) {
                    throw new WebConfigException("tls_server_config: no CERTIFICATE block in " + c.clientCa().get());
                }
                for (int i = 0; i < caCerts.size(); i++) {
                    cas.setCertificateEntry("ca" + i, caCerts.get(i));
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(cas);
                trust = tmf.getTrustManagers();
            } else if (c.clientAuth() != WebConfig.ClientAuth.NO_CLIENT_CERT) {
                // Go's RequestClientCert and RequireAnyClientCert ask for a certificate but do not
                // verify it (crypto/tls ClientAuthType); JSSE verifies whatever it is given, so
                // these two policies get a trust manager that accepts any client chain.
                trust = new TrustManager[] {new AnyClientCertificate()};
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), trust, null);
            return new ServerTls(ctx, parameters(ctx, c), c.clientAllowedSans());
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new WebConfigException("tls_server_config: " + c.cert() + " and " + c.key() + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new WebConfigException("tls_server_config: " + e.getMessage());
        }
    }

    /**
     * Go's tls.X509KeyPair refuses a key that is not the certificate's ("private key does not
     * match public key"); JSSE would only fail at the first handshake. Checked here by signing
     * a nonce with the key and verifying it with the certificate, all through the JDK.
     */
    private static void matches(X509Certificate cert, PrivateKey key, TlsServerConfig c) throws WebConfigException {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (alg == null) {
            return; // RSASSA-PSS keys: left to the handshake
        }
        try {
            byte[] nonce = new byte[32];
            new java.security.SecureRandom().nextBytes(nonce);
            java.security.Signature sign = java.security.Signature.getInstance(alg);
            sign.initSign(key);
            sign.update(nonce);
            byte[] signature = sign.sign();
            java.security.Signature verify = java.security.Signature.getInstance(alg);
            verify.initVerify(cert.getPublicKey());
            verify.update(nonce);
            if (verify.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another type than the certificate's: does not match either
        }
        throw new WebConfigException("tls_server_config: the private key in " + c.key() + " is not the one of the certificate in "
                + c.cert());
    }

    private static SSLParameters parameters(SSLContext ctx, TlsServerConfig c) throws WebConfigException {
        SSLEngine probe = ctx.createSSLEngine();
        probe.setUseClientMode(false);
        Set<String> supportedProtocols = Set.of(probe.getSupportedProtocols());
        List<String> protocols = new ArrayList<>();
        for (String v : List.of("TLS10", "TLS11", "TLS12", "TLS13")) {
            if (v.compareTo(c.minVersion()) >= 0 && v.compareTo(c.maxVersion()) <= 0 && supportedProtocols.contains(VERSIONS.get(v))) {
                protocols.add(VERSIONS.get(v));
            }
        }
        SSLParameters p = ctx.getDefaultSSLParameters();
        p.setProtocols(protocols.toArray(String[]::new));
        if (!c.cipherSuites().isEmpty()) {
            // exporter-toolkit's cipher_suites are for TLS 1.2 and below; TLS 1.3's suites are
            // not configurable in Go, so the JDK's TLS 1.3 suites stay enabled here too.
            Set<String> supported = Set.of(probe.getSupportedCipherSuites());
            Set<String> suites = new LinkedHashSet<>();
            for (String s : c.cipherSuites()) {
                String jsse = s.endsWith("_CHACHA20_POLY1305") ? s + "_SHA256" : s; // Go's short alias
                if (!supported.contains(jsse)) {
                    throw new WebConfigException("tls_server_config.cipher_suites: '" + s + "' is not a cipher suite this JDK supports");
                }
                suites.add(jsse);
            }
            Arrays.stream(probe.getEnabledCipherSuites()).filter(s -> s.startsWith("TLS_AES_") || s.startsWith("TLS_CHACHA20_"))
                    .forEach(suites::add);
            p.setCipherSuites(suites.toArray(String[]::new));
        }
        p.setUseCipherSuitesOrder(c.preferServerCipherSuites());
        if (!c.curvePreferences().isEmpty()) {
            p.setNamedGroups(c.curvePreferences().stream().map(CURVES::get).toArray(String[]::new));
        }
        switch (c.clientAuth()) {
            case NO_CLIENT_CERT -> p.setNeedClientAuth(false);
            case REQUEST_CLIENT_CERT, VERIFY_CLIENT_CERT_IF_GIVEN -> p.setWantClientAuth(true);
            case REQUIRE_ANY_CLIENT_CERT, REQUIRE_AND_VERIFY_CLIENT_CERT -> p.setNeedClientAuth(true);
        }
        return p;
    }

    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----");

    record Block(String label, byte[] der) {
    }

    /** The PEM blocks of a text (RFC 7468), in order. */
    static List<Block> blocks(Pem pem) throws WebConfigException {
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(pem.text());
        while (m.find()) {
            try {
                out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
            } catch (IllegalArgumentException e) {
                throw new WebConfigException(pem + ": a " + m.group(1) + " block is not Base64");
            }
        }
        return out;
    }

    static List<X509Certificate> certificates(Pem pem) throws WebConfigException {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (Block b : blocks(pem)) {
                if (b.label().equals("CERTIFICATE")) {
                    out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.der())));
                }
            }
        } catch (CertificateException e) {
            throw new WebConfigException(pem + ": not a certificate: " + e.getMessage());
        }
        return out;
    }

    /** OIDs (DER content bytes) of RFC 8017's rsaEncryption and RFC 5480's id-ecPublicKey. */
    private static final byte[] RSA_ENCRYPTION = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01};
    private static final byte[] EC_PUBLIC_KEY = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

    static PrivateKey privateKey(Pem pem) throws WebConfigException {
        for (Block b : blocks(pem)) {
            switch (b.label()) {
                case "PRIVATE KEY" -> {
                    return pkcs8(pem, b.der(), List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"));
                }
                case "RSA PRIVATE KEY" -> {
                    // RFC 8017 A.1.2 RSAPrivateKey in PrivateKeyInfo with rsaEncryption, NULL parameters
                    byte[] alg = Der.sequence(Der.tlv(0x06, RSA_ENCRYPTION), new byte[] {0x05, 0x00});
                    return pkcs8(pem, Der.sequence(Der.tlv(0x02, new byte[] {0}), alg, Der.tlv(0x04, b.der())), List.of("RSA"));
                }
                case "EC PRIVATE KEY" -> {
                    // RFC 5915 ECPrivateKey: its [0] parameters name the curve, which
                    // PrivateKeyInfo's algorithm identifier carries (RFC 5915 section 3)
                    byte[] curve = Der.ecCurve(b.der());
                    if (curve == null) {
                        throw new WebConfigException(pem + ": an EC PRIVATE KEY without its curve's name");
                    }
                    byte[] alg = Der.sequence(Der.tlv(0x06, EC_PUBLIC_KEY), curve);
                    return pkcs8(pem, Der.sequence(Der.tlv(0x02, new byte[] {0}), alg, Der.tlv(0x04, b.der())), List.of("EC"));
                }
                case "ENCRYPTED PRIVATE KEY" -> throw new WebConfigException(pem
                        + ": the key is encrypted; exporter-toolkit takes unencrypted keys (openssl pkey -in KEY -out KEY.plain)");
                default -> {
                    // other blocks (EC PARAMETERS before an EC key, certificates) are skipped
                }
            }
        }
        throw new WebConfigException(pem + ": no PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block");
    }

    private static PrivateKey pkcs8(Pem pem, byte[] der, List<String> algorithms) throws WebConfigException {
        for (String a : algorithms) {
            try {
                return KeyFactory.getInstance(a).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new WebConfigException(pem + ": not a private key the JDK reads (" + String.join(", ", algorithms) + ")");
    }

    /** Just enough DER (ITU-T X.690) to put a key in its PKCS#8 envelope. */
    static final class Der {
        private Der() {
        }

        static byte[] tlv(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(tag);
            int n = content.length;
            if (n < 0x80) {
                out.write(n);
            } else {
                int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
                out.write(0x80 | bytes);
                for (int i = bytes - 1; i >= 0; i--) {
                    out.write(n >>> (8 * i));
                }
            }
            out.writeBytes(content);
            return out.toByteArray();
        }

        static byte[] sequence(byte[]... parts) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] p : parts) {
                out.writeBytes(p);
            }
            return tlv(0x30, out.toByteArray());
        }

        /** The curve OID's whole TLV from an ECPrivateKey's [0] field, or null. */
        static byte[] ecCurve(byte[] der) {
            try {
                int[] pos = {0};
                if (der[pos[0]++] != 0x30) {
                    return null;
                }
                int end = length(der, pos) + pos[0];
                while (pos[0] < end) {
                    int tag = der[pos[0]++] & 0xff;
                    int len = length(der, pos);
                    if (tag == 0xa0) {
                        int start = pos[0];
                        if (der[start] != 0x06) {
                            return null; // explicit curve parameters: not a named curve
                        }
                        return Arrays.copyOfRange(der, start, start + len);
                    }
                    pos[0] += len;
                }
                return null;
            } catch (ArrayIndexOutOfBoundsException e) {
                return null;
            }
        }

        private static int length(byte[] der, int[] pos) {
            int first = der[pos[0]++] & 0xff;
            if (first < 0x80) {
                return first;
            }
            int n = 0;
            for (int i = 0; i < (first & 0x7f); i++) {
                n = (n << 8) | (der[pos[0]++] & 0xff);
            }
            return n;
        }
    }

    /** Accepts any client chain: Go's RequestClientCert and RequireAnyClientCert. */
    private static final class AnyClientCertificate extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a server's trust manager checks no servers");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            throw new CertificateException("a server's trust manager checks no servers");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            throw new CertificateException("a server's trust manager checks no servers");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

}
