package dev.lazarus.deadletter.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.pipeline.boundary.RunDeadLetters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.io.StringReader;
import java.util.Optional;
import java.util.UUID;

/**
 * A run's dead letter for the run's view (the latest that stopped it: see {@link DeadLetters#latestFor}), in the same
 * shape as {@code GET /api/dead-letters/{id}}.
 */
@ApplicationScoped
public class LatestDeadLetterOfRun implements RunDeadLetters {

    /** Thread-safe and reused: it keeps what it learned about the view's class. */
    private static final Jsonb JSONB = JsonbBuilder.create();

    @Inject
    DeadLetters deadLetters;

    @Inject
    dev.lazarus.deadletter.control.Runbooks runbooks;

    @Override
    public Optional<JsonObject> latestFor(UUID runId) {
        return deadLetters.latestFor(runId).map(d -> DeadLetterView.detail(d, deadLetters.trail(d.id(), DeadLetters.TRAIL_SHOWN),
                runbooks.of(d.reason(), d.pipeline(), d.stepName()))).map(view -> {
            try (var reader = JSON.createReader(new StringReader(JSONB.toJson(view)))) {
                return reader.readObject();
            }
        });
    }
}
