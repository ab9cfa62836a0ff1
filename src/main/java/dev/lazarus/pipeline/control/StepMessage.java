package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.platform.entity.Text;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.UUID;

/**
 * The dispatch of one step: a small JSON text naming the run, the step and the run's generation. The
 * database holds everything else. The same values travel as message properties so that operators can
 * filter on them in the Artemis console and Lazarus can select a run's message in a dead-letter queue.
 */
public record StepMessage(UUID runId, String step, long generation) {

    public static final String RUN_ID = "lazarusRunId";
    public static final String STEP = "lazarusStep";
    public static final String GENERATION = "lazarusGeneration";
    public static final String REQUEUE_COUNT = "lazarusRequeueCount";
    public static final String REQUEUED_BY = "lazarusRequeuedBy";
    public static final String REQUEUED_AT = "lazarusRequeuedAt";

    /** Anything longer is not a step message; read no further. */
    static final int MAX_LENGTH = 4096;

    public StepMessage {
        if (runId == null || step == null || step.isBlank() || generation < 1) {
            throw new IllegalArgumentException("a step message needs a run id, a step and a generation >= 1");
        }
    }

    /** The same for every delivery of this dispatch: what a handler uses to make its effects idempotent. */
    public String idempotencyKey() {
        return runId + ":" + step + ":" + generation;
    }

    public String toJson() {
        return JSON.createObjectBuilder()
                .add("runId", runId.toString())
                .add("step", step)
                .add("generation", generation)
                .build()
                .toString();
    }

    public void writeProperties(Message message) throws JMSException {
        message.setStringProperty(RUN_ID, runId.toString());
        message.setStringProperty(STEP, step);
        message.setLongProperty(GENERATION, generation);
    }

    /** Reads a step message, or says exactly what is wrong with it. */
    public static StepMessage from(Message message) throws MalformedStepMessage {
        if (!(message instanceof TextMessage text)) {
            throw new MalformedStepMessage("expected a JMS TextMessage with a JSON body, got "
                    + (message == null ? "nothing" : message.getClass().getSimpleName()));
        }
        String body;
        try {
            body = text.getText();
        } catch (JMSException e) {
            throw new MalformedStepMessage("the message body cannot be read: " + e.getMessage());
        }
        return parse(body);
    }

    public static StepMessage parse(String body) throws MalformedStepMessage {
        if (body == null || body.isBlank()) {
            throw new MalformedStepMessage("the message body is empty");
        }
        if (body.length() > MAX_LENGTH) {
            throw new MalformedStepMessage("the message body has " + body.length() + " characters, a step message has at most " + MAX_LENGTH);
        }
        JsonValue value;
        try (var reader = JSON.createReader(new StringReader(body))) {
            value = reader.readValue();
        } catch (RuntimeException e) {
            // JsonException, or the parser's refusal of text nested deeper than it reads (a plain RuntimeException)
            throw new MalformedStepMessage("the body is not JSON: " + Text.truncate(e.getMessage(), 300));
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new MalformedStepMessage("the body is JSON but not an object");
        }
        JsonObject json = value.asJsonObject();
        UUID runId;
        try {
            runId = UUID.fromString(string(json, "runId"));
        } catch (IllegalArgumentException e) {
            throw new MalformedStepMessage("runId is not a UUID");
        }
        String step = string(json, "step");
        if (!(json.get("generation") instanceof JsonNumber generation) || !generation.isIntegral() || generation.longValue() < 1) {
            throw new MalformedStepMessage("generation must be a positive whole number");
        }
        return new StepMessage(runId, step, generation.longValue());
    }

    private static String string(JsonObject json, String field) throws MalformedStepMessage {
        if (!(json.get(field) instanceof JsonString value) || value.getString().isBlank()) {
            throw new MalformedStepMessage(field + " is missing or not a string");
        }
        return value.getString();
    }

    /** The message can never be a step message: dead-letter it at once instead of retrying. */
    public static class MalformedStepMessage extends Exception {
        private static final long serialVersionUID = 1L;

        public MalformedStepMessage(String message) {
            super(message);
        }
    }
}
