package dev.lazarus.platform.control;

import dev.lazarus.platform.entity.Text;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * Makes each run one trace (WildFly's OpenTelemetry subsystem exports it): the submission's span, then a span per
 * delivery of each step, each the child of the one that dispatched it. The W3C trace context travels in the step
 * message's string properties ({@code traceparent}, {@code tracestate}), which the broker keeps when it moves a
 * message to a DLQ. A run remembers its trace id, so a requeue hours later (from another request, a job, the
 * console) still dispatches into the run's trace, and its dead letter names it.
 */
@ApplicationScoped
public class Tracing {

    public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("lazarus.run.id");
    public static final AttributeKey<String> PIPELINE = AttributeKey.stringKey("lazarus.pipeline");
    public static final AttributeKey<String> STEP = AttributeKey.stringKey("lazarus.step");
    public static final AttributeKey<Long> GENERATION = AttributeKey.longKey("lazarus.generation");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final TextMapGetter<Message> FROM_PROPERTIES = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Message message) {
            try {
                return Collections.list(message.getPropertyNames()).stream().map(String::valueOf).toList();
            } catch (JMSException e) {
                return List.of();
            }
        }

        @Override
        public String get(Message message, String key) {
            try {
                return message == null ? null : message.getStringProperty(key);
            } catch (JMSException | RuntimeException notAString) {
                return null;
            }
        }
    };

    @Inject
    OpenTelemetry openTelemetry;

    private Tracer tracer() {
        return openTelemetry.getTracer("lazarus");
    }

    /**
     * Starts a run's trace: a span under the current one (the submission's request, whose trace the client may have
     * chosen with a {@code traceparent} header), or, with {@code ownTrace} (each run of a batch) a new trace linked
     * to the request. The caller names the run by its trace id, dispatches within {@link RunSpan#scope()} and ends it.
     */
    public RunSpan startRun(String pipeline, boolean ownTrace) {
        var builder = tracer().spanBuilder("lazarus run " + pipeline).setAttribute(PIPELINE, pipeline);
        SpanContext request = Span.current().getSpanContext();
        if (ownTrace || !request.isValid()) {
            builder.setNoParent();
            if (request.isValid()) {
                builder.addLink(request);
            }
        }
        return new RunSpan(builder.startSpan());
    }

    /** A run's first span. */
    public static final class RunSpan {
        private final Span span;

        RunSpan(Span span) {
            this.span = span;
        }

        /** The run's trace id, or null if tracing is off. */
        public String traceId() {
            return span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null;
        }

        public void identify(Object runId) {
            span.setAttribute(RUN_ID, String.valueOf(runId));
        }

        public Scope scope() {
            return span.makeCurrent();
        }

        public void end() {
            span.end();
        }
    }

    /** The current trace's id, or null. */
    public static String currentTraceId() {
        SpanContext current = Span.current().getSpanContext();
        return current.isValid() ? current.getTraceId() : null;
    }

    /**
     * Writes the trace context into a step message being sent. Under a span of the run's own trace, that span is the
     * parent; otherwise (a requeue from an operator's request, a job, the sweeper) the message joins the run's trace
     * {@code runTraceId}, so every dispatch of a run stays in its one trace.
     */
    public void inject(Message message, String runTraceId) {
        Context context = Context.current();
        SpanContext current = Span.current().getSpanContext();
        if (runTraceId != null && !(current.isValid() && current.getTraceId().equals(runTraceId))) {
            byte[] spanId = new byte[8];
            RANDOM.nextBytes(spanId);
            context = Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(runTraceId, HexFormat.of().formatHex(spanId),
                    TraceFlags.getSampled(), TraceState.getDefault())));
        }
        openTelemetry.getPropagators().getTextMapPropagator().inject(context, message, (m, key, value) -> {
            try {
                m.setStringProperty(key, value);
            } catch (JMSException e) {
                throw new IllegalStateException("could not write " + key + " on a step message", e);
            }
        });
    }

    /**
     * A span for one delivery of a step message, the child of whatever dispatched it (the trace context in its
     * properties; a message without one, sent by hand, starts a trace of its own). Never fails: a message anyone
     * may have sent must still be consumed, so anything unreadable about it is left out of the span.
     *
     * @param runId the run the message names, if any
     * @param step  the step it names, if any
     */
    public Span consume(Message message, String queue, String runId, String step) {
        try {
            Context parent = openTelemetry.getPropagators().getTextMapPropagator().extract(Context.root(), message, FROM_PROPERTIES);
            var builder = tracer().spanBuilder("lazarus step " + queue).setParent(parent).setSpanKind(SpanKind.CONSUMER)
                    .setAttribute(SYSTEM, "activemq").setAttribute(DESTINATION, queue);
            if (runId != null) {
                builder.setAttribute(RUN_ID, Text.truncate(runId, 100));
            }
            if (step != null) {
                builder.setAttribute(STEP, Text.truncate(step, 100));
            }
            String messageId = message.getJMSMessageID();
            if (messageId != null) {
                builder.setAttribute(MESSAGE_ID, messageId);
            }
            return builder.startSpan();
        } catch (JMSException | RuntimeException e) {
            return Span.getInvalid();
        }
    }

    /** Marks the current span as failed (the delivery rolls back), with why. */
    public static void failed(Span span, String why) {
        span.setStatus(StatusCode.ERROR, why);
    }
}
