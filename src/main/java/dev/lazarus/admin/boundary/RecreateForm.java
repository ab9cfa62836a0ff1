package dev.lazarus.admin.boundary;

import dev.lazarus.pipeline.control.Payloads;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.platform.control.Jsonp;
import jakarta.json.JsonObject;

/**
 * The recreate box of the run and dead-letter pages: it starts with the run's payload, indented; what the operator sends
 * back is checked as a submission's payload is (a clear refusal for text that is not an acceptable JSON object), and
 * counts as edited only if it differs from the run's payload as JSON.
 */
final class RecreateForm {

    private RecreateForm() {
    }

    /** What the box shows: what was sent, or else the run's payload, indented. */
    static String shown(FormInput form, Run run) {
        return form.recreatePayload() != null || run == null ? form.recreatePayload() : Jsonp.pretty(run.payload());
    }

    /** The edited payload, or null if the box holds the run's own (or nothing). */
    static JsonObject edited(FormInput form, Run run, Payloads payloads) {
        String text = form.recreatePayload();
        if (text == null || text.isBlank()) {
            return null;
        }
        JsonObject sent = payloads.accept(text, "the payload");
        JsonObject own = payloads.accept(run.payload(), "the run's payload");
        return sent.equals(own) ? null : sent;
    }
}
