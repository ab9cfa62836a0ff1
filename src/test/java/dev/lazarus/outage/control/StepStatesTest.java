package dev.lazarus.outage.control;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.pipeline.control.BrokerPauses;
import dev.lazarus.pipeline.control.RetryPolicy;
import dev.lazarus.pipeline.control.Staleness;
import dev.lazarus.pipeline.control.StepControls;
import dev.lazarus.pipeline.control.StepDefinition;
import dev.lazarus.pipeline.control.StepGate;
import dev.lazarus.pipeline.control.StepHandler;
import dev.lazarus.pipeline.entity.StepControl;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a node makes of the steps' states when it reads them: the brokers' queues follow the database. The database is
 * what survives a crash, so a node that starts must reach the same queues as a node that watched every change.
 */
class StepStatesTest {

    private static final StepDefinition FETCH = new StepDefinition("documents", "fetch", "lazarus.documents.fetch",
            StepHandler.class, RetryPolicy.DEFAULT, Staleness.DEFAULTS, false);
    private static final Instant T0 = Instant.parse("2025-01-01T10:00:00Z");

    /** The brokers, as far as pausing the step's queue goes: paused or not. */
    static final class Queues extends BrokerPauses {
        final Map<String, Boolean> paused = new HashMap<>();

        @Override
        public boolean apply(StepDefinition step, boolean pause) {
            paused.put(step.queue(), pause);
            return true;
        }

        boolean isPaused(StepDefinition step) {
            return paused.getOrDefault(step.queue(), false);
        }
    }

    /** The database's step_control rows. */
    static final class Rows extends StepControls {
        final Map<StepDefinition, StepControl> rows = new HashMap<>();

        final Map<StepDefinition, Instant> updated = new HashMap<>();

        @Override
        public Map<StepDefinition, StepControl> all() {
            return Map.copyOf(rows);
        }

        @Override
        public void queuesUpdated(StepDefinition step, Instant since) {
            updated.put(step, since);
        }
    }

    private final Queues queues = new Queues();
    private final Rows rows = new Rows();

    /** A node as it starts: it has read nothing yet. */
    private StepStates startingNode() {
        StepStates states = new StepStates();
        states.controls = rows;
        states.brokerPauses = queues;
        states.detector = new HoldDetector();
        states.gate = new StepGate() {
            @Override
            public void rampUp(StepDefinition step) {
                // no ramp-up in this test
            }
        };
        return states;
    }

    @Test
    void aNodeThatStartsAfterAResumeWhoseMakerDiedBeforeTheBrokersHeardOfItResumesTheQueue() {
        StepControl fetch = new StepControl(FETCH.pipeline(), FETCH.name(), T0);
        fetch.pause("operator", "the document service is being upgraded", T0.plusSeconds(10));
        rows.rows.put(FETCH, fetch);
        startingNode().refresh();
        assertTrue(queues.isPaused(FETCH), "a paused step's queue is paused on the brokers (persisted there)");

        // the operator resumes it; the transaction commits, and the node dies before its after-commit resumes the queue
        // (or the broker did not answer it), and every node restarts before another one saw the step paused
        fetch.resume("operator", "upgraded", T0.plusSeconds(60));

        startingNode().refresh();
        assertFalse(queues.isPaused(FETCH), "the database says the step runs, and nothing else ever resumes its queue:"
                + " its runs wait until the sweeper dead-letters them for waiting at a step that 'runs'");
    }

    @Test
    void aQueuePausedInTheArtemisConsoleWhileItsStepRunsIsLeftAlone() {
        rows.rows.put(FETCH, new StepControl(FETCH.pipeline(), FETCH.name(), T0));
        queues.paused.put(FETCH.queue(), true); // an operator paused it in the console, outside Lazarus

        startingNode().refresh();
        assertTrue(queues.isPaused(FETCH), "Lazarus never fights the console over a step it never paused");
    }
}
