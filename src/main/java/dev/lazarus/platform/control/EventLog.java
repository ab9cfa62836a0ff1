package dev.lazarus.platform.control;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * The structured log: one line per change of a run's state and per dead letter, with what an operator searches
 * by (run id, step, generation, reason, trace id) as separate fields rather than words in a sentence.
 *
 * <p>It writes to the logger {@value #CATEGORY}; the server's configuration ({@code wildfly-config/lazarus.cli})
 * sends that logger to {@code lazarus-events.log} through WildFly's JSON formatter, where the fields appear under
 * {@code "mdc"}. Call it after the change has committed ({@link AfterCommit}), so that the log never tells of a
 * change a rollback undid.
 */
public final class EventLog {

    public static final String CATEGORY = "lazarus.events";

    private static final Logger LOG = Logger.getLogger(CATEGORY);

    private EventLog() {
    }

    /** The fields of one event, in the order they were added; null values are left out. */
    public static Fields event(String name) {
        return new Fields(name);
    }

    public static final class Fields {

        private final Map<String, Object> fields = new LinkedHashMap<>();

        private Fields(String event) {
            fields.put("event", event);
        }

        public Fields with(String name, Object value) {
            if (value != null) {
                fields.put(name, value.toString());
            }
            return this;
        }

        /** Writes the line, with {@code message} as its readable text, and the fields in the MDC for the formatter. */
        public void log(String message) {
            Map<String, Object> shadowed = null; // the thread's own MDC values these fields hide for a moment (usually none)
            for (Map.Entry<String, Object> field : fields.entrySet()) {
                Object own = MDC.get(field.getKey());
                if (own != null) {
                    if (shadowed == null) {
                        shadowed = new LinkedHashMap<>();
                    }
                    shadowed.put(field.getKey(), own);
                }
                MDC.put(field.getKey(), field.getValue());
            }
            try {
                LOG.info(message);
            } finally {
                fields.keySet().forEach(MDC::remove);
                if (shadowed != null) {
                    shadowed.forEach(MDC::put); // the thread's own MDC stays as it was
                }
            }
        }
    }
}
