package dev.lazarus.platform.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import jakarta.json.spi.JsonProvider;

/**
 * The application's one JSON-P provider.
 *
 * <p>Why not {@code JSON.createObjectBuilder()} and friends: each of those static methods looks the provider
 * up again through the service loader, which reads the deployment's jar entries on every call. On the
 * step path (a message written and parsed per step, a payload per handler) that lookup cost more than the
 * JSON itself. Providers are thread-safe; one is enough.
 */
public final class Jsonp {

    public static final JsonProvider JSON = JsonProvider.provider();

    private Jsonp() {
    }
}
