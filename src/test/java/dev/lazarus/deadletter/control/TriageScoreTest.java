package dev.lazarus.deadletter.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.entity.DeadLetterReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The triage score: what each factor gives, that the parts add up to it, and that the database sorts by the same rule. */
class TriageScoreTest {

    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private static Map<String, Integer> parts(TriageScore score) {
        return score.parts().stream().collect(Collectors.toMap(TriageScore.Part::factor, TriageScore.Part::value));
    }

    @Test
    void theScoreIsTheSumOfItsPartsEachExplained() {
        TriageScore score = TriageScore.of(DeadLetterReason.RETRIES_EXHAUSTED, NOW.minus(Duration.ofHours(3)), NOW, 42, true);

        assertEquals(Map.of("severity", 30, "priority", 10, "age", 12, "causeGroup", 12, "held", 20), parts(score));
        assertEquals(84, score.score());
        assertEquals(List.of("severity", "priority", "age", "causeGroup", "held"), score.parts().stream().map(TriageScore.Part::factor).toList());
        assertEquals("RETRIES_EXHAUSTED is error severity", score.parts().get(0).why());
        assertEquals("open 3 h", score.parts().get(2).why());
        assertEquals("42 open dead letters share its cause", score.parts().get(3).why());
        assertTrue(score.explanation().contains("held 20 (its step is held"), score.explanation());
    }

    @Test
    void ageAndCauseGroupAreStepsAtTheirThresholds() {
        DeadLetterReason reason = DeadLetterReason.MANUAL;
        assertEquals(0, parts(TriageScore.of(reason, NOW.minus(Duration.ofMinutes(14)), NOW, 1, false)).get("age"));
        assertEquals(6, parts(TriageScore.of(reason, NOW.minus(Duration.ofMinutes(15)), NOW, 1, false)).get("age"));
        assertEquals(20, parts(TriageScore.of(reason, NOW.minus(Duration.ofHours(4)), NOW, 1, false)).get("age"));
        assertEquals(30, parts(TriageScore.of(reason, NOW.minus(Duration.ofDays(9)), NOW, 1, false)).get("age"));
        assertEquals(0, parts(TriageScore.of(reason, NOW.plusSeconds(5), NOW, 1, false)).get("age"), "a clock ahead is no age");
        assertEquals(0, parts(TriageScore.of(reason, NOW, NOW, 1, false)).get("causeGroup"));
        assertEquals(5, parts(TriageScore.of(reason, NOW, NOW, 2, false)).get("causeGroup"));
        assertEquals(20, parts(TriageScore.of(reason, NOW, NOW, 999, false)).get("causeGroup"));
        assertEquals(25, parts(TriageScore.of(reason, NOW, NOW, 1000, false)).get("causeGroup"));
    }

    @Test
    void aHeldStepRanksAboveAnOtherwiseEqualOne() {
        Instant created = NOW.minus(Duration.ofMinutes(30));
        assertEquals(TriageScore.HELD_POINTS, TriageScore.of(DeadLetterReason.RETRIES_EXHAUSTED, created, NOW, 3, true).score()
                - TriageScore.of(DeadLetterReason.RETRIES_EXHAUSTED, created, NOW, 3, false).score());
    }

    @Test
    void anOldQuietReasonNeverOutranksAFreshCriticalOneOfTheSameGroupAndHold() {
        for (DeadLetterReason quiet : List.of(DeadLetterReason.MANUAL, DeadLetterReason.STALE_MESSAGE)) {
            assertTrue(TriageScore.of(quiet, NOW.minus(Duration.ofDays(30)), NOW, 1, false).score()
                    < TriageScore.of(DeadLetterReason.STUCK_IN_PROGRESS, NOW, NOW, 1, false).score(), quiet.name());
        }
    }

    @Test
    void severityAndPriorityFollowTheRegistryForEveryReason() {
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            Map<String, Integer> parts = parts(TriageScore.of(reason, NOW, NOW, 1, false));
            assertEquals(TriageScore.SEVERITY_POINTS.get(reason.severity()), parts.get("severity"), reason.name());
            assertEquals(Math.max(0, 2 * (8 - reason.priority())), parts.get("priority"), reason.name());
        }
    }

    @Test
    void theDatabasesExpressionUsesTheSameReasonPointsAndThresholds() {
        String sql = TriageScore.sql("g", "h");
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            int points = TriageScore.severityPoints(reason) + TriageScore.priorityPoints(reason);
            assertTrue(sql.contains("when '" + reason.name() + "' then " + points + " "), reason.name() + " in " + sql);
        }
        assertTrue(sql.contains("when d.created_at <= :age0 then 30"), sql);
        assertTrue(sql.contains("when g >= 1000 then 25"), sql);
        assertTrue(sql.endsWith("+ 20 * h"), sql);
        assertEquals(NOW.minus(Duration.ofHours(24)), TriageScore.ageParameters(NOW).get("age0"));
        assertEquals(TriageScore.AGE.size(), TriageScore.ageParameters(NOW).size());
    }
}
