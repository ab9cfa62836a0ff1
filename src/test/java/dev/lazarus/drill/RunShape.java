package dev.lazarus.drill;

import java.util.Random;

/** What a drill's run is asked to do (the demo pipeline's failure modes), and how it must end. */
enum RunShape {
    QUICK(65, "{}", "COMPLETED", null),
    SLOW(5, "{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":1}}}", "COMPLETED", null),
    TRANSIENT(20, "{\"failures\":{\"fetch\":{\"mode\":\"transient\",\"succeedOnAttempt\":3}}}", "COMPLETED", null),
    POISON(5, "{\"failures\":{\"parse\":{\"mode\":\"always\"}}}", "DEAD_LETTERED", "RETRIES_EXHAUSTED"),
    PERMANENT(5, "{\"failures\":{\"index\":{\"mode\":\"permanent\"}}}", "DEAD_LETTERED", "NON_RETRYABLE");

    final int percent;
    final String payload;
    /** The run state it must end in. */
    final String end;
    /** The dead-letter reason it must end with; null for a run that must complete. */
    final String reason;

    RunShape(int percent, String payload, String end, String reason) {
        this.percent = percent;
        this.payload = payload;
        this.end = end;
        this.reason = reason;
    }

    static RunShape pick(Random random) {
        int roll = random.nextInt(100);
        for (RunShape shape : values()) {
            roll -= shape.percent;
            if (roll < 0) {
                return shape;
            }
        }
        return QUICK;
    }
}
