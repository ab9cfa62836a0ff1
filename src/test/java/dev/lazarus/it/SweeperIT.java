package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The persistent sweeper timer dead-letters a run whose consumer stopped giving signs of life. The test
 * server sweeps every 2 s with a 6 s threshold (arquillian.xml); the demo's "hang" mode is the hung consumer.
 */
class SweeperIT extends LazarusIT {

    @Test
    void runStuckInProgressPastTheThresholdIsDeadLetteredAndItsLateConsumerIsFenced() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":12}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");

        JsonObject deadLetter = run.getJsonObject("deadLetter");
        assertEquals("STUCK_IN_PROGRESS", deadLetter.getString("reason"));
        assertEquals("sweeper", deadLetter.getString("detectedBy"));
        assertEquals("parse", deadLetter.getString("step"));
        assertEquals(3, run.getInt("generation"), "fetch was dispatch 1, parse 2; the sweep fenced the message the hung consumer holds");

        // When the hung consumer wakes up, its result must not resurrect the run.
        long deadLetterId = deadLetter.getInt("id");
        JsonObject after = Await.<Long>until("the hung parse step to finish and be fenced", Duration.ofSeconds(30),
                () -> broker.messageCount(PARSE), count -> count == 0).intValue() == 0 ? viewer.run(id) : null;
        assertEquals("DEAD_LETTERED", after.getString("state"));
        assertEquals("parse", after.getString("currentStep"));
        assertEquals(deadLetterId, after.getJsonObject("deadLetter").getInt("id"), "still exactly one dead letter");
        assertTrue(executions(after, "index").isEmpty(), "the next step was never dispatched");
    }
}
