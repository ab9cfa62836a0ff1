package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;

/**
 * "Indexes" the parsed document: records how many terms went into the index under the step's idempotency
 * key, which is what a real index write would use so a redelivery overwrites instead of duplicating.
 */
@ApplicationScoped
public class IndexDocument implements StepHandler {

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        DemoFailures.apply(context);
        int terms = context.payload().containsKey("terms") ? context.payload().getJsonArray("terms").size() : 0;
        return JSON.createObjectBuilder(context.payload())
                .add("indexedTerms", terms)
                .add("indexKey", context.idempotencyKey())
                .build();
    }
}
