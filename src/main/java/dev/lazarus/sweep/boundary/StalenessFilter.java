package dev.lazarus.sweep.boundary;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.TextInput;
import dev.lazarus.sweep.control.StalenessRules.Health;

/**
 * The staleness view's filter, read from the API's query parameters or the admin page's, by the same rules: a health
 * that is none, or a pipeline's name past its limit or with a control character, is a 400 problem naming the field.
 *
 * @param health   only runs of this health; null: every health
 * @param pipeline only runs of this pipeline; null: every pipeline
 */
public record StalenessFilter(Health health, String pipeline) {

    public static StalenessFilter of(String health, String pipeline) {
        return new StalenessFilter(QueryParams.enumValue(Health.class, "health", health),
                TextInput.name("pipeline", pipeline, Run.NAME_LENGTH));
    }
}
