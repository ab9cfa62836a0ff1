package dev.lazarus.platform.boundary;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/**
 * The one JSON-B instance the REST API writes its bodies with. A {@code Jsonb} keeps what it learned about each
 * class (its properties, annotations, serializers); without this resolver each response paid for learning it
 * again, which was the largest single cost of a request under load (issue #9, benchmarks.md). {@code Jsonb} is
 * thread-safe; JAX-RS keeps one instance of a provider, so it lives as long as the deployment.
 */
@Provider
public class JsonbResolver implements ContextResolver<Jsonb> {

    private final Jsonb jsonb = JsonbBuilder.create();

    @Override
    public Jsonb getContext(Class<?> type) {
        return jsonb;
    }
}
