package dev.lazarus.demo.receiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ReceiverSettingsTest {

    private static Properties properties(String... pairs) {
        Properties properties = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.setProperty(pairs[i], pairs[i + 1]);
        }
        return properties;
    }

    @Test
    void withoutPropertiesItFitsTheDemoStack() {
        ReceiverSettings settings = ReceiverSettings.from(properties());
        assertEquals(8191, settings.port());
        assertEquals(URI.create("http://127.0.0.1:8080/lazarus/"), settings.lazarus());
        assertEquals("operator", settings.user());
        assertEquals("operator-pw", settings.password());
        assertEquals("demo-receiver", settings.name());
        assertEquals(List.of(), settings.types(), "every type");
        assertEquals(0, settings.count(), "until stopped");
        assertEquals(Duration.ofMinutes(5), settings.timeout());
        assertTrue(settings.secret().matches("[0-9a-f]{64}"), settings.secret());
        assertNotEquals(settings.secret(), ReceiverSettings.from(properties()).secret(), "a fresh secret each time");
    }

    @Test
    void everyDefaultCanBeChanged() {
        ReceiverSettings settings = ReceiverSettings.from(properties("receiver.port", "9000", "receiver.secret", "a-secret-of-16-chars",
                "lazarus.url", "https://lazarus.example.com/lazarus", "lazarus.user", "ops", "lazarus.password", "pw",
                "receiver.name", "mine", "receiver.types", " dead-lettered, held ,", "receiver.count", "2", "receiver.timeout", "PT90S"));
        assertEquals(new ReceiverSettings(9000, "a-secret-of-16-chars", URI.create("https://lazarus.example.com/lazarus/"), "ops", "pw",
                "mine", List.of("dead-lettered", "held"), 2, Duration.ofSeconds(90)), settings);
        assertEquals(URI.create("https://lazarus.example.com/lazarus/api/webhooks"), settings.lazarus().resolve("api/webhooks"),
                "the API under the application, whether or not the URL ended with a slash");
    }

    @Test
    void malformedValuesAreRefusedWithTheirName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReceiverSettings.from(properties("receiver.count", "many")))
                .getMessage().contains("receiver.count"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReceiverSettings.from(properties("receiver.count", "-1")))
                .getMessage().contains("receiver.count"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReceiverSettings.from(properties("receiver.timeout", "5m")))
                .getMessage().contains("receiver.timeout"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ReceiverSettings.from(properties("receiver.port", "70000")))
                .getMessage().contains("receiver.port"));
    }
}
