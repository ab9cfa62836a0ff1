package dev.lazarus.deadletter.control;

import dev.lazarus.platform.entity.Text;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * Reference, Limits (and the hardening of issue #20): a column never keeps half a character. The stack trace a dead letter
 * keeps is cut before the column's own cut ({@code Text.truncate}) sees it, by {@link DeadLetterReport#stackTraceOf}.
 */
class StackTraceCutTest {

    @Test
    void aStackTraceCutAtItsLimitKeepsNoHalfOfACharacter() {
        // the trace starts "java.lang.IllegalStateException: " (33 characters): the emoji straddles the cut at 7 999
        String message = "a".repeat(DeadLetterReport.STACK_TRACE_LIMIT - 2 - 33) + "\uD83D\uDE00" + "b".repeat(10);
        String trace = DeadLetterReport.stackTraceOf(new IllegalStateException(message));

        String kept = trace.substring(0, trace.length() - 1); // without the ellipsis
        assertFalse(Character.isHighSurrogate(kept.charAt(kept.length() - 1)),
                "the cut trace ends with half of a surrogate pair (the database keeps it as '?'): ..."
                        + kept.substring(kept.length() - 5).codePoints().mapToObj(c -> String.format("U+%04X", c)).toList());
    }
}
