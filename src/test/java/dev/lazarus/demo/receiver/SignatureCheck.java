package dev.lazarus.demo.receiver;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a webhook request the way the events and webhooks guide ("Verify a signature") tells a receiver to, with the
 * JDK alone and not the server's own signing code: a receiver written from the documentation is what proves the
 * documentation right. The signature is {@code sha256=} and the hex HMAC-SHA256, keyed with the webhook's secret, of
 * the timestamp header, a dot and the body's bytes as received (not re-encoded: a receiver that parses and prints
 * the JSON again signs other bytes).
 */
final class SignatureCheck {

    /** The guide's replay window: a genuine request older (or newer) than this is refused. */
    static final Duration TOLERANCE = Duration.ofMinutes(5);

    enum Verdict {
        VERIFIED("verified"),
        UNSIGNED("no X-Lazarus-Timestamp or X-Lazarus-Signature header"),
        BAD_SIGNATURE("signature does not match: another secret, or the body or timestamp was altered"),
        STALE("timestamp more than 5 minutes away: a replay, or this machine's clock is off");

        final String explanation;

        Verdict(String explanation) {
            this.explanation = explanation;
        }
    }

    private final byte[] secret;

    SignatureCheck(String secret) {
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
    }

    Verdict check(String timestampHeader, String signatureHeader, byte[] body, Instant now) {
        if (timestampHeader == null || signatureHeader == null) {
            return Verdict.UNSIGNED;
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(timestampHeader.strip());
        } catch (NumberFormatException e) {
            return Verdict.BAD_SIGNATURE;
        }
        // the signature first: a stale request that is not genuine either is told as not genuine
        byte[] expected = ("sha256=" + HexFormat.of().formatHex(hmac(timestampHeader, body))).getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(expected, signatureHeader.strip().getBytes(StandardCharsets.UTF_8))) {
            return Verdict.BAD_SIGNATURE;
        }
        if (Math.abs(now.getEpochSecond() - timestamp) > TOLERANCE.toSeconds()) {
            return Verdict.STALE;
        }
        return Verdict.VERIFIED;
    }

    private byte[] hmac(String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update((timestamp.strip() + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e); // every JDK has it
        }
    }
}
