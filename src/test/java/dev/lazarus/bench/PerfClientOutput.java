package dev.lazarus.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what {@code artemis perf client} prints: a block per second ({@code --- warmup true|false}, then
 * {@code --- sent: N msg/sec} and the completed and received rates), then a summary of totals.
 */
final class PerfClientOutput {

    private static final Pattern SECOND = Pattern.compile("--- warmup (true|false)\\s+--- sent:\\s*([0-9]+) msg/sec");

    private PerfClientOutput() {
    }

    /** The mean of the per-second send rates after the warm-up, in messages per second. */
    static double sentPerSecond(String output) {
        Matcher matcher = SECOND.matcher(output);
        List<Long> measured = new ArrayList<>();
        while (matcher.find()) {
            if (matcher.group(1).equals("false")) {
                measured.add(Long.parseLong(matcher.group(2)));
            }
        }
        if (measured.isEmpty()) {
            throw new IllegalStateException("artemis perf client printed no measured second:\n" + output);
        }
        return measured.stream().mapToLong(Long::longValue).average().orElseThrow();
    }
}
