package dev.lazarus.webhooks.control;

import dev.lazarus.pipeline.control.Pipeline;
import dev.lazarus.pipeline.control.PipelineDefinition;
import dev.lazarus.pipeline.control.RetryPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The built-in pipeline that delivers webhook notifications: one step, {@value #STEP}, on its own queue
 * {@value #QUEUE} with its own {@code DLQ.} queue. A receiver that keeps failing costs a delivery its attempts, with
 * backoff ({@code lazarus.webhooks.attempts}, default 6; {@code lazarus.webhooks.retry-delay}, default 5 s, doubling,
 * at most {@code lazarus.webhooks.retry-cap}, default 5 min), and then the delivery is a dead letter like any other:
 * in the Artemis console, on the admin pages, requeued when the receiver is back. It is internal: its runs cannot be
 * submitted, recreated or have their payload edited from outside.
 */
@ApplicationScoped
public class WebhookDelivery implements Pipeline {

    public static final String NAME = "webhook-delivery";
    public static final String STEP = "post";
    public static final String QUEUE = "lazarus.webhook-delivery.post";

    @Inject
    @ConfigProperty(name = "lazarus.webhooks.attempts", defaultValue = "6")
    int attempts;

    @Inject
    @ConfigProperty(name = "lazarus.webhooks.retry-delay", defaultValue = "PT5S")
    Duration retryDelay;

    @Inject
    @ConfigProperty(name = "lazarus.webhooks.retry-cap", defaultValue = "PT5M")
    Duration retryCap;

    @Override
    public PipelineDefinition definition() {
        return PipelineDefinition.named(NAME)
                .step(STEP, QUEUE, PostNotification.class, RetryPolicy.attempts(attempts).delay(retryDelay).multiplier(2).cap(retryCap))
                // a payload from outside would be signed with a webhook's secret and POSTed: only Notifications starts these
                .internal()
                .build();
    }
}
