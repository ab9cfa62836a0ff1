package dev.lazarus.webhooks.control;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A delivery's signature: {@code sha256=} and the hex HMAC-SHA256, keyed with the webhook's secret, of
 * {@code "<timestamp>.<body>"}, where the timestamp is the header {@code X-Lazarus-Timestamp} (epoch seconds). Signing
 * the time with the body lets a receiver refuse a replayed request older than it tolerates.
 */
public final class Signatures {

    private Signatures() {
    }

    public static String sign(String secret, long timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] digest = mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
            return "sha256=" + HexFormat.of().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e); // every JDK has it
        }
    }
}
