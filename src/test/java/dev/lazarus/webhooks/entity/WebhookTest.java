package dev.lazarus.webhooks.entity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.events.entity.EventType;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookTest {

    private static final String SECRET = "0123456789abcdef";

    @ParameterizedTest
    @ValueSource(strings = {"ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "http://", "example.com/hook",
            "http://user:pw@example.com/", "http://example.com/a b", "http://example.com/\u0007", "https://exämple.com/",
            "http://example.com:99999/hook", "http://example.com:0/hook", "https://example.com:65536/"})
    void aUrlThatIsNotAPlainHttpOrHttpsAddressIsRefused(String url) {
        assertThrows(IllegalArgumentException.class, () -> new Webhook("chat", Webhook.Source.API, url, SECRET, Set.of(), true, "op", Instant.now()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://example.com:1/hook", "https://example.com:65535/", "https://example.com/hook?x=1"})
    void aUrlWithAPortInRangeOrNoneIsAccepted(String url) {
        assertEquals(url, Webhook.requireUrl(url));
    }

    @Test
    void theMaskedUrlShowsOnlySchemeHostAndPortAndTheOriginOnlySchemeAndHost() {
        Webhook slack = new Webhook("chat", Webhook.Source.API, "https://hooks.slack.com/services/T000/B000/XXXX?token=secret", SECRET,
                Set.of(), true, "op", Instant.now());
        assertEquals("https://hooks.slack.com/…", slack.maskedUrl());
        Webhook withPort = new Webhook("chat", Webhook.Source.API, "HTTP://receiver:8443/t/abc", SECRET, Set.of(), true, "op", Instant.now());
        assertEquals("http://receiver:8443/…", withPort.maskedUrl());
        assertEquals("http://receiver", Webhook.origin(withPort.url()));
    }

    @Test
    void aHugeUrlIsRefused() {
        String url = "https://example.com/" + "a".repeat(Webhook.URL_LENGTH);
        assertThrows(IllegalArgumentException.class, () -> new Webhook("chat", Webhook.Source.API, url, SECRET, Set.of(), true, "op", Instant.now()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Chat", "-chat", "chat room", "chat\n", "a.b"})
    void aNameOutsideLowerCaseLettersDigitsAndDashesIsRefused(String name) {
        assertThrows(IllegalArgumentException.class, () -> Webhook.requireName(name));
    }

    @Test
    void aShortOrBlankSecretIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Webhook("chat", Webhook.Source.API, "https://example.com/h", "short", Set.of(), true, "op", Instant.now()));
        assertThrows(IllegalArgumentException.class, () -> new Webhook("chat", Webhook.Source.API, "https://example.com/h", "with a blank 0123456", Set.of(), true, "op", Instant.now()));
    }

    @Test
    void noTypesMeansAllAndNamedTypesFilter() {
        Webhook all = new Webhook("all", Webhook.Source.API, "https://example.com/h", SECRET, Set.of(), true, "op", Instant.now());
        Webhook some = new Webhook("some", Webhook.Source.API, "https://example.com/h", SECRET, Set.of(EventType.HELD), true, "op", Instant.now());
        assertTrue(all.wants("resumed"));
        assertTrue(some.wants("held"));
        assertFalse(some.wants("dead-lettered"));
        assertEquals(List.of("held"), some.typeNames());
        assertThrows(IllegalArgumentException.class, () -> Webhook.types(List.of("exploded")));
    }

    @Test
    void anUpdateWithoutASecretKeepsIt() {
        Webhook webhook = new Webhook("chat", Webhook.Source.API, "https://example.com/h", SECRET, Set.of(), true, "op", Instant.now());
        webhook.change("https://example.com/other", null, Set.of(), false, "op", Instant.now());
        assertEquals(SECRET, webhook.signingSecret());
        assertFalse(webhook.enabled());
    }
}
