package dev.lazarus.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the CPU went in a Flight Recorder profile (the benchmark's {@code -Dbench.jfr=true} writes one): each method's
 * inclusive share of the execution samples (the samples whose stack contains it, counted once per sample), the
 * methods whose names contain one of the given fragments, or the top ones. Used to write benchmarks.md:
 * <pre>
 * java -cp target/test-classes dev.lazarus.bench.ProfileShares target/bench/embedded-steps.jfr 40 dev.lazarus. org.hibernate.
 * </pre>
 * Arguments: the file, how many rows (default 40), then fragments (none: every method).
 */
public final class ProfileShares {

    private ProfileShares() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        List<String> fragments = args.length > 2 ? List.of(args).subList(2, args.length) : List.of();
        Map<String, Integer> inclusive = new HashMap<>();
        Map<String, Integer> self = new HashMap<>();
        int samples = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (!event.getEventType().getName().equals("jdk.ExecutionSample") || event.getStackTrace() == null) {
                continue;
            }
            samples++;
            Set<String> seen = new HashSet<>();
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            for (int i = 0; i < frames.size(); i++) {
                RecordedFrame frame = frames.get(i);
                String name = frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
                if (i == 0) {
                    self.merge(name, 1, Integer::sum);
                }
                if (seen.add(name)) {
                    inclusive.merge(name, 1, Integer::sum);
                }
            }
        }
        int total = samples;
        System.out.printf(Locale.ROOT, "%d execution samples in %s%n%n  incl.   self  method%n", total, file);
        inclusive.entrySet().stream()
                .filter(e -> fragments.isEmpty() || fragments.stream().anyMatch(e.getKey()::contains))
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(rows)
                .forEach(e -> System.out.printf(Locale.ROOT, "%6.1f %% %5.1f %%  %s%n", 100.0 * e.getValue() / total,
                        100.0 * self.getOrDefault(e.getKey(), 0) / total, e.getKey()));
    }
}
