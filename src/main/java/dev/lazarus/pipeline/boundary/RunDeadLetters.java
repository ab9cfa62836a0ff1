package dev.lazarus.pipeline.boundary;

import jakarta.json.JsonObject;
import java.util.Optional;
import java.util.UUID;

/**
 * The dead letter a run's view shows. The dead-letter feature implements it and decides what a dead letter looks
 * like; the run's view only places it, so the dependency runs one way (see {@code DeliveryOutcomes}).
 */
public interface RunDeadLetters {

    /**
     * The run's dead letter as the API shows it, if it has one: the latest that stopped it, which holds it while it is
     * {@code DEAD_LETTERED} (never one about a message on its own).
     */
    Optional<JsonObject> latestFor(UUID runId);
}
