package dev.lazarus.cli;

import java.util.ArrayList;
import java.util.List;

/** A query string built from the options given; an option not given is left out, so the API's default applies. */
public final class Query {

    private final List<String> parts = new ArrayList<>();

    public Query add(String name, Object value) {
        if (value != null && !value.toString().isEmpty()) {
            parts.add(Api.encode(name) + "=" + Api.encode(value.toString()));
        }
        return this;
    }

    /** {@code path?a=1&b=2}, or {@code path} alone. */
    public String on(String path) {
        return parts.isEmpty() ? path : path + "?" + String.join("&", parts);
    }
}
