package dev.lazarus.drill;

import dev.lazarus.it.Api;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The drills' accounting: every run the drill created, as it ended, against what its shape must end as. */
final class RunAccounting {

    private static final int EXAMPLES = 20;

    private RunAccounting() {
    }

    record Result(Map<RunShape, Map<String, Integer>> ends, Map<String, Integer> reasons, int lost, int falseDeadLetters,
                  int wrongEnds, List<String> examples) {
    }

    static Result check(Api viewer, Map<String, RunShape> runs) {
        Map<String, String> states = new HashMap<>();
        for (String state : List.of("COMPLETED", "DEAD_LETTERED", "PENDING", "IN_PROGRESS", "RETRYING")) {
            for (int offset = 0; ; offset += 500) {
                JsonObject page = viewer.get("api/runs?limit=500&state=" + state + "&offset=" + offset).ok().json();
                page.getJsonArray("items").forEach(v -> states.put(v.asJsonObject().getString("id"), state));
                if (offset + 500 >= page.getInt("total")) {
                    break;
                }
            }
        }
        Map<RunShape, Map<String, Integer>> ends = new EnumMap<>(RunShape.class);
        Map<String, Integer> reasons = new TreeMap<>();
        int lost = 0;
        int falseDeadLetters = 0;
        int wrongEnds = 0;
        List<String> examples = new ArrayList<>();
        for (Map.Entry<String, RunShape> run : runs.entrySet()) {
            // a run none of the lists had (it changed state while they were read) is read by itself
            String state = states.containsKey(run.getKey()) ? states.get(run.getKey()) : stateOf(viewer, run.getKey());
            RunShape shape = run.getValue();
            ends.computeIfAbsent(shape, s -> new TreeMap<>()).merge(state, 1, Integer::sum);
            if (!state.equals("COMPLETED") && !state.equals("DEAD_LETTERED")) {
                lost++;
                example(examples, run.getKey() + " (" + shape + ") is " + state);
                continue;
            }
            if (state.equals("DEAD_LETTERED")) {
                JsonObject deadLetter = viewer.run(run.getKey()).getJsonObject("deadLetter");
                String reason = deadLetter == null ? "none" : deadLetter.getString("reason");
                reasons.merge(reason, 1, Integer::sum);
                if (shape.reason == null) {
                    falseDeadLetters++;
                    example(examples, run.getKey() + " (" + shape + ") dead-lettered as " + reason + ": "
                            + (deadLetter == null ? "" : deadLetter.getString("errorMessage", "")));
                } else if (!shape.reason.equals(reason)) {
                    wrongEnds++;
                    example(examples, run.getKey() + " (" + shape + ") dead-lettered as " + reason + ", expected " + shape.reason);
                }
            } else if (shape.reason != null) {
                wrongEnds++;
                example(examples, run.getKey() + " (" + shape + ") completed, expected " + shape.reason);
            }
        }
        return new Result(ends, reasons, lost, falseDeadLetters, wrongEnds, examples);
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < EXAMPLES) {
            examples.add(text);
        }
    }

    static void printEnds(Result result) {
        System.out.println();
        System.out.println("| shape | runs | completed | dead-lettered | not ended |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<RunShape, Map<String, Integer>> shape : result.ends().entrySet()) {
            Map<String, Integer> ends = shape.getValue();
            int total = ends.values().stream().mapToInt(Integer::intValue).sum();
            int completed = ends.getOrDefault("COMPLETED", 0);
            int deadLettered = ends.getOrDefault("DEAD_LETTERED", 0);
            System.out.printf("| %s | %d | %d | %d | %d |%n", shape.getKey(), total, completed, deadLettered, total - completed - deadLettered);
        }
        System.out.println();
    }

    static JsonObjectBuilder endsJson(Result result) {
        JsonObjectBuilder ends = Json.createObjectBuilder();
        result.ends().forEach((shape, byState) -> {
            JsonObjectBuilder states = Json.createObjectBuilder();
            byState.forEach(states::add);
            ends.add(shape.name(), states);
        });
        return ends;
    }

    static JsonObjectBuilder reasonsJson(Result result) {
        JsonObjectBuilder reasons = Json.createObjectBuilder();
        result.reasons().forEach(reasons::add);
        return reasons;
    }

    /** One run's state, or MISSING if the server knows no such run. */
    private static String stateOf(Api viewer, String id) {
        Api.Response run = viewer.get("api/runs/" + id);
        return run.status() == 404 ? "MISSING" : run.ok().json().getString("state");
    }
}
