package dev.lazarus.demo.receiver;

import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

/**
 * What the webhook receiver is told by system properties ({@code -Dreceiver.*} and {@code -Dlazarus.*} on the Maven
 * command line), with defaults that fit the demo stack as the README starts it, so the plain command needs none.
 *
 * @param port where it listens on 127.0.0.1 ({@code receiver.port}, 8191: free beside the demo stack's and the tests'
 *             ports)
 * @param secret the webhook's secret ({@code receiver.secret}; 32 random bytes in hex unless given)
 * @param lazarus the application's URL ({@code lazarus.url}), with its credentials ({@code lazarus.user},
 *                {@code lazarus.password}: the demo's operator)
 * @param name the webhook's name ({@code receiver.name}, {@code demo-receiver})
 * @param types the event types it asks for ({@code receiver.types}, comma-separated; none: every type)
 * @param count how many notifications to wait for before exiting 0 ({@code receiver.count}; 0: run until stopped)
 * @param timeout how long to wait for them before exiting 1 ({@code receiver.timeout}, {@code PT5M}; only with a count)
 */
record ReceiverSettings(int port, String secret, URI lazarus, String user, String password, String name, List<String> types,
                        int count, Duration timeout) {

    static final int DEFAULT_PORT = 8191;
    static final String DEFAULT_URL = "http://127.0.0.1:8080/lazarus/";
    static final String DEFAULT_NAME = "demo-receiver";
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    private static final SecureRandom RANDOM = new SecureRandom();

    static ReceiverSettings from(Properties properties) {
        String url = properties.getProperty("lazarus.url", DEFAULT_URL).strip();
        List<String> types = Arrays.stream(properties.getProperty("receiver.types", "").split(","))
                .map(String::strip).filter(type -> !type.isEmpty()).toList();
        int count = integer(properties, "receiver.count", 0);
        if (count < 0) {
            throw new IllegalArgumentException("receiver.count must be 0 (run until stopped) or more");
        }
        int port = integer(properties, "receiver.port", DEFAULT_PORT);
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("receiver.port must be a TCP port (0: any free one)");
        }
        return new ReceiverSettings(port,
                properties.getProperty("receiver.secret", randomSecret()),
                // a base with its slash, so that "api/webhooks" resolves under the application, not beside it
                URI.create(url.endsWith("/") ? url : url + "/"),
                properties.getProperty("lazarus.user", "operator"),
                properties.getProperty("lazarus.password", "operator-pw"),
                properties.getProperty("receiver.name", DEFAULT_NAME),
                types, count, duration(properties, "receiver.timeout", DEFAULT_TIMEOUT));
    }

    /** 32 bytes from SecureRandom in hex: 64 characters, within the 16 to 200 printable ones the server takes. */
    static String randomSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static int integer(Properties properties, String key, int fallback) {
        String value = properties.getProperty(key);
        try {
            return value == null || value.isBlank() ? fallback : Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, not '" + value + "'");
        }
    }

    private static Duration duration(Properties properties, String key, Duration fallback) {
        String value = properties.getProperty(key);
        try {
            return value == null || value.isBlank() ? fallback : Duration.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " must be an ISO-8601 duration such as PT5M, not '" + value + "'");
        }
    }
}
