package dev.lazarus.demo.receiver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lazarus.demo.receiver.SignatureCheck.Verdict;
import dev.lazarus.webhooks.control.Signatures;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The receiver's check, written from the guide, agrees with how the server signs, and refuses what it must. */
class SignatureCheckTest {

    private static final String SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
    private static final long NOW = 1_760_000_000L;
    private static final String BODY = "{\"schema\":\"lazarus.event-summary/v1\",\"type\":\"dead-lettered\",\"count\":30}";

    private final SignatureCheck check = new SignatureCheck(SECRET);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRequestSignedAsTheServerSignsIsVerified() {
        assertEquals(Verdict.VERIFIED, check.check(Long.toString(NOW), Signatures.sign(SECRET, NOW, BODY), bytes(BODY),
                Instant.ofEpochSecond(NOW)));
    }

    @Test
    void theGuidesRuleMatchesAValueComputedWithOpenssl() {
        // the same vector as the server's SignaturesTest: printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'a-secret-of-16-chars'
        assertEquals(Verdict.VERIFIED, new SignatureCheck("a-secret-of-16-chars").check("1700000000",
                "sha256=966dfd9e7287134bae9078b9ca8cad81556798be645cd07bef60884b917d8d01", bytes("{\"a\":1}"),
                Instant.ofEpochSecond(1_700_000_000L)));
    }

    @Test
    void theBodyIsCheckedAsTheBytesReceivedNotAsText() {
        String body = "{\"cause\":{\"message\":\"Datei nicht lesbar: Größe 0 — ✗\"}}";
        assertEquals(Verdict.VERIFIED, check.check(Long.toString(NOW), Signatures.sign(SECRET, NOW, body), bytes(body),
                Instant.ofEpochSecond(NOW)));
    }

    @Test
    void anotherSecretIsRejected() {
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), Signatures.sign(SECRET.replace('0', '1'), NOW, BODY),
                bytes(BODY), Instant.ofEpochSecond(NOW)));
    }

    @Test
    void anAlteredBodyIsRejected() {
        String signature = Signatures.sign(SECRET, NOW, BODY);
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), signature, bytes(BODY.replace("30", "31")),
                Instant.ofEpochSecond(NOW)));
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), signature, bytes(BODY + " "), Instant.ofEpochSecond(NOW)));
    }

    @Test
    void aTimestampChangedToLookFreshIsRejected() {
        // a replay with a new timestamp header: the signature covers the timestamp, so it no longer matches
        String signature = Signatures.sign(SECRET, NOW - 3600, BODY);
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), signature, bytes(BODY), Instant.ofEpochSecond(NOW)));
    }

    @Test
    void aGenuineRequestMoreThanFiveMinutesAwayIsRejectedAsStale() {
        String signature = Signatures.sign(SECRET, NOW, BODY);
        assertEquals(Verdict.VERIFIED, check.check(Long.toString(NOW), signature, bytes(BODY), Instant.ofEpochSecond(NOW + 300)));
        assertEquals(Verdict.STALE, check.check(Long.toString(NOW), signature, bytes(BODY), Instant.ofEpochSecond(NOW + 301)));
        assertEquals(Verdict.STALE, check.check(Long.toString(NOW), signature, bytes(BODY), Instant.ofEpochSecond(NOW - 301)));
    }

    @Test
    void missingOrMalformedHeadersAreRejected() {
        String signature = Signatures.sign(SECRET, NOW, BODY);
        Instant now = Instant.ofEpochSecond(NOW);
        assertEquals(Verdict.UNSIGNED, check.check(null, signature, bytes(BODY), now));
        assertEquals(Verdict.UNSIGNED, check.check(Long.toString(NOW), null, bytes(BODY), now));
        assertEquals(Verdict.BAD_SIGNATURE, check.check("yesterday", signature, bytes(BODY), now));
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), signature.substring("sha256=".length()), bytes(BODY), now));
        assertEquals(Verdict.BAD_SIGNATURE, check.check(Long.toString(NOW), signature.toUpperCase(java.util.Locale.ROOT), bytes(BODY), now));
    }
}
