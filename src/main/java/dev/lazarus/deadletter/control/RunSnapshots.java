package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.entity.Run;
import jakarta.json.JsonObjectBuilder;
import java.io.StringReader;
import java.util.function.Consumer;

/** What a dead letter keeps of its run: the run as it was when it stopped, which outlives the run's row. */
final class RunSnapshots {

    /** Room for the rest of a run snapshot next to its payload. */
    private static final int SNAPSHOT_OVERHEAD = 2_000;

    private RunSnapshots() {
    }

    /**
     * The run as it was when it stopped, kept with the dead letter even if the run changes or disappears. The
     * payload is embedded as JSON (no second escaping); one too large for the column is cut, and says so.
     */
    static String of(Run run) {
        String full = snapshot(run, builder -> {
            try (var reader = JSON.createReader(new StringReader(run.payload()))) {
                builder.add("payload", reader.readValue());
            } catch (RuntimeException notJson) {
                // not JSON, or nested deeper than the parser reads: kept as the text it is
                builder.add("payload", run.payload());
            }
        });
        if (full.length() <= DeadLetter.MAX_SNAPSHOT) {
            return full;
        }
        // as a string, escaping makes it longer still: keep a prefix whose escaped form fits, and say how long it was
        String payload = run.payload();
        int keep = Math.min(payload.length(), DeadLetter.MAX_SNAPSHOT - SNAPSHOT_OVERHEAD);
        while (true) {
            String prefix = payload.substring(0, keep);
            String cut = snapshot(run, builder -> builder.add("payloadTruncated", true)
                    .add("payloadCharacters", payload.length())
                    .add("payload", prefix));
            if (cut.length() <= DeadLetter.MAX_SNAPSHOT) {
                return cut;
            }
            keep = (int) ((long) keep * (DeadLetter.MAX_SNAPSHOT - SNAPSHOT_OVERHEAD) / cut.length());
        }
    }

    private static String snapshot(Run run, Consumer<JsonObjectBuilder> payload) {
        JsonObjectBuilder builder = JSON.createObjectBuilder()
                .add("id", run.id().toString())
                .add("pipeline", run.pipeline())
                .add("state", run.state().name())
                .add("currentStep", String.valueOf(run.currentStep()))
                .add("generation", run.generation())
                .add("requeueCount", run.requeueCount())
                .add("createdAt", run.createdAt().toString())
                .add("updatedAt", run.updatedAt().toString());
        payload.accept(builder);
        return builder.build().toString();
    }
}
