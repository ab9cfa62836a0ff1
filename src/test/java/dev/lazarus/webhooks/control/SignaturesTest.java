package dev.lazarus.webhooks.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class SignaturesTest {

    @Test
    void theSignatureIsTheHexHmacSha256OfTimestampDotBody() {
        // computed independently: printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'a-secret-of-16-chars'
        assertEquals("sha256=966dfd9e7287134bae9078b9ca8cad81556798be645cd07bef60884b917d8d01",
                Signatures.sign("a-secret-of-16-chars", 1_700_000_000L, "{\"a\":1}"));
    }

    @Test
    void anotherTimestampOrSecretSignsDifferently() {
        String signature = Signatures.sign("a-secret-of-16-chars", 1L, "{}");
        assertNotEquals(signature, Signatures.sign("a-secret-of-16-chars", 2L, "{}"));
        assertNotEquals(signature, Signatures.sign("another-secret-16ch", 1L, "{}"));
    }
}
