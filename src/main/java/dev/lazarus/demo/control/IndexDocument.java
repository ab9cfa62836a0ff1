package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import dev.lazarus.demo.entity.IndexEffect;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import jakarta.json.JsonObject;

/**
 * "Indexes" the parsed document: records how many terms went into the index under the step's idempotency
 * key, which is what a real index write would use so a redelivery overwrites instead of duplicating. The
 * write itself is a row in {@code demo_index_effect}, in the step's transaction, so the fault drills can
 * count how often each dispatch's effect was committed (it must be once).
 */
@ApplicationScoped
public class IndexDocument implements StepHandler {

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        DemoFailures.apply(context);
        em.persist(new IndexEffect(context.idempotencyKey(), context.runId(), clock.instant()));
        int terms = context.payload().containsKey("terms") ? context.payload().getJsonArray("terms").size() : 0;
        return JSON.createObjectBuilder(context.payload())
                .add("indexedTerms", terms)
                .add("indexKey", context.idempotencyKey())
                .build();
    }
}
