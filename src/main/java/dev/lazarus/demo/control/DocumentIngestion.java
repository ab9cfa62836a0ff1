package dev.lazarus.demo.control;

import dev.lazarus.pipeline.control.Pipeline;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.RetryPolicy;
import dev.lazarus.pipeline.control.Staleness;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/**
 * Document ingestion: fetch a document, parse it, index it. Each step has its own queue and retry policy;
 * the consumers in {@code demo.boundary} name the same queues.
 */
@ApplicationScoped
public class DocumentIngestion implements Pipeline {

    public static final String NAME = "document-ingestion";
    public static final String FETCH_QUEUE = "lazarus.document-ingestion.fetch";
    public static final String PARSE_QUEUE = "lazarus.document-ingestion.parse";
    public static final String INDEX_QUEUE = "lazarus.document-ingestion.index";

    @Override
    public PipelineDefinition definition() {
        return PipelineDefinition.named(NAME)
                // Remote servers have bad moments: several tries, backing off.
                .step("fetch", FETCH_QUEUE, FetchDocument.class,
                        RetryPolicy.attempts(4).delay(Duration.ofMillis(500)).multiplier(2).cap(Duration.ofSeconds(5)))
                // what only this pipeline's authors know: which service the fetch calls and how to tell it is down
                .stepRunbook("RETRIES_EXHAUSTED", "The fetch step calls the document service (lazarus.demo.documents-url,"
                        + " http://127.0.0.1:8090 on the demo stack). Check it answers: curl its URL; a connection refused or a"
                        + " 5xx means it is down, and the Steps page shows fetch held if many runs failed alike. Once it answers,"
                        + " requeue this cause group in bulk. A 404 is not retried: that document does not exist.")
                // Parsing is deterministic: if it fails three times it will fail forever.
                .step("parse", PARSE_QUEUE, ParseDocument.class,
                        RetryPolicy.attempts(3).delay(Duration.ofSeconds(1)).multiplier(2).cap(Duration.ofSeconds(4)))
                // The index may be briefly unavailable: quick, capped retries. Indexing is quick, so a step
                // silent for two minutes is stuck whatever the global default says.
                .step("index", INDEX_QUEUE, IndexDocument.class,
                        RetryPolicy.attempts(5).delay(Duration.ofMillis(200)).multiplier(2).cap(Duration.ofSeconds(2)),
                        Staleness.DEFAULTS.stuckAfter(Duration.ofMinutes(2)))
                // A document that cannot be indexed can still be kept: an operator may skip indexing it.
                .skippable()
                .runbook("NON_RETRYABLE", "In document ingestion a permanent failure is the document's own: a 4xx from the"
                        + " document service at fetch, a document parse cannot read, or one the index refuses. Ask the sender"
                        + " for a readable copy, then Edit payload and requeue; an index failure may be skipped (Skip step).")
                .build();
    }
}
