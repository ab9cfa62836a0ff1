package dev.lazarus.pipeline.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.pipeline.entity.RunTags;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.Stateless;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Runs found by what an operator knows of them ({@link RunSearch}): their key, labels and submitted payload, kept in
 * {@code run_search} ({@link dev.lazarus.pipeline.entity.RunMarks}) when they are submitted. The run lists and the
 * dead-letter lists take the same {@link #condition}, so a search means the same everywhere.
 */
@Stateless
public class RunSearches {

    /**
     * How far a search's matches are counted for a page's total: beyond it the page says {@code totalCapped} (a label a
     * third of a million runs carry took 1.3 s to count exactly, the first page of them 2 ms).
     */
    public static final int COUNT_CAP = 1_000;

    /** The first key of the two-key advisory locks that serialise submissions of one pipeline's key (the number). */
    private static final int KEY_LOCKS = 23;

    /** PostgreSQL's numeric: at most this many digits before the point, and after it. */
    private static final int NUMERIC_INTEGER_DIGITS = 131_072;
    private static final int NUMERIC_FRACTION_DIGITS = 16_383;

    @PersistenceContext
    EntityManager em;

    /**
     * The search as a JPQL condition on {@code runId} (an expression naming a run's id, such as {@code r.id} or
     * {@code d.runId}), its parameters added to {@code parameters}; null for an empty search. Each part is a condition on
     * an index of {@code run_search}: the key's B-tree, the labels' and the payload's GIN indexes (through the functions
     * V23 declares, which PostgreSQL inlines into {@code labels @> ...} and {@code payload @> ...}).
     */
    public static String condition(RunSearch search, String runId, Map<String, Object> parameters) {
        if (search == null || search.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (search.key() != null) {
            parts.add("m.businessKey = :searchKey");
            parameters.put("searchKey", search.key());
        }
        if (!search.labels().isEmpty()) {
            parts.add("function('lazarus_labels_contain', m.labels, :searchLabels) = true");
            parameters.put("searchLabels", String.join(" ", search.labels())); // a label holds no space
        }
        for (int term = 0; term < search.payload().size(); term++) {
            List<String> documents = search.payload().get(term).documents();
            List<String> forms = new ArrayList<>();
            for (int form = 0; form < documents.size(); form++) {
                String name = "searchPayload" + term + "_" + form;
                forms.add("function('lazarus_payload_contains', m.payload, :" + name + ") = true");
                parameters.put(name, documents.get(form));
            }
            parts.add("(" + String.join(" or ", forms) + ")");
        }
        return runId + " in (select m.runId from RunMarks m where " + String.join(" and ", parts) + ")";
    }

    /**
     * Has PostgreSQL plan the rest of this transaction's statements for the values they are sent with, never with a
     * plan it cached for other values. A search's best plan depends on how many rows its values match: a label ten runs
     * carry is read from the label's index first, one a third of all runs carry by walking the newest rows and checking
     * each. The driver prepares a statement it has sent five times on a connection, and PostgreSQL may then keep one
     * generic plan for every value, costed from average guesses: after rare labels, the plan that reads a third of a
     * million label entries served the broad one too (0.2 s instead of 20 ms). Planning anew costs well under a
     * millisecond. Local to the transaction (the setting ends with it), so nothing else on the connection is affected.
     * Without a search (null or empty) the statement's plan does not depend on values, and nothing is sent.
     */
    public static void planForTheseValues(EntityManager em, RunSearch search) {
        if (search == null || search.isEmpty()) {
            return;
        }
        em.createNativeQuery("select set_config('plan_cache_mode', 'force_custom_plan', true)").getSingleResult();
    }

    /** The tags of these runs (those without any left out). */
    public Map<UUID, RunTags> tagsOf(Collection<UUID> runs) {
        if (runs.isEmpty()) {
            return Map.of();
        }
        List<Object[]> rows = em.createQuery("select m.runId, m.businessKey, m.uniqueKey, m.labels from RunMarks m where m.runId in :runs",
                Object[].class).setParameter("runs", runs).getResultList();
        Map<UUID, RunTags> tags = new HashMap<>();
        for (Object[] row : rows) {
            tags.put((UUID) row[0], new RunTags((String) row[1], RunTags.fromArrayText((String) row[3]), (Boolean) row[2]));
        }
        return tags;
    }

    public RunTags tagsOf(UUID run) {
        return tagsOf(List.of(run)).getOrDefault(run, RunTags.NONE);
    }

    /** A run of a submission: its pipeline, its tags and the payload it was submitted with. */
    public record Submitted(String pipeline, RunTags tags) {
    }

    /**
     * Before runs with keys are stored, in their transaction: takes an advisory lock on each (pipeline, key) they carry,
     * held until the transaction ends, so two submissions of one key are one after the other; then refuses (409, naming
     * the run) a {@code uniqueKey} that a run of the pipeline already carries, or that two runs of this batch carry. The
     * locks are taken in one order (sorted), so two batches never wait for each other in a circle.
     */
    public void claimKeys(List<Submitted> submissions) {
        List<Integer> locks = new ArrayList<>();
        List<String> unique = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        List<String> clashes = new ArrayList<>();
        for (int i = 0; i < submissions.size(); i++) {
            RunTags tags = submissions.get(i).tags();
            if (tags.key() == null) {
                continue;
            }
            String pipelineKey = submissions.get(i).pipeline() + "\n" + tags.key();
            locks.add(pipelineKey.hashCode());
            Integer earlier = seen.putIfAbsent(pipelineKey, i);
            if (earlier != null && (tags.uniqueKey() || submissions.get(earlier).tags().uniqueKey())) {
                clashes.add("runs[" + earlier + "] and runs[" + i + "] both have key '" + tags.key() + "' of pipeline '"
                        + submissions.get(i).pipeline() + "', and one asks for it to be unique");
            }
            if (tags.uniqueKey()) {
                unique.add(pipelineKey);
            }
        }
        if (!clashes.isEmpty()) {
            throw Problem.conflict(Problem.listing(clashes, submissions.size() + " runs") + "; nothing was started");
        }
        if (locks.isEmpty()) {
            return;
        }
        String array = new TreeSet<>(locks).stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}"));
        // the lock function is volatile: PostgreSQL evaluates it for every row even though only the count is read
        em.createNativeQuery("select count(*) from (select pg_advisory_xact_lock(" + KEY_LOCKS + ", h)"
                + " from unnest(cast(?1 as int[])) as h) as locked").setParameter(1, array).getSingleResult();
        if (unique.isEmpty()) {
            return;
        }
        List<String> keys = unique.stream().map(pipelineKey -> pipelineKey.substring(pipelineKey.indexOf('\n') + 1)).toList();
        List<Object[]> taken = em.createQuery("select m.pipeline, m.businessKey, m.runId from RunMarks m where m.businessKey in :keys", Object[].class)
                .setParameter("keys", keys).getResultList();
        List<String> refused = taken.stream().filter(row -> unique.contains(row[0] + "\n" + row[1]))
                .map(row -> "key '" + row[1] + "' of pipeline '" + row[0] + "' is taken by run " + row[2]).toList();
        if (!refused.isEmpty()) {
            throw Problem.conflict((refused.size() == 1 ? refused.get(0) : String.join("; ", refused.subList(0, Math.min(10, refused.size()))))
                    + " (\"uniqueKey\": true); nothing was started");
        }
    }

    /**
     * Keeps what these runs are found by, in one statement for all of them: their tags, and their payload unless it is
     * empty or cannot be {@code jsonb}. A run with neither tags nor payload gets no row.
     */
    public void record(List<Run> runs, List<RunTags> tags, List<JsonObject> payloads) {
        JsonArrayBuilder rows = JSON.createArrayBuilder();
        int count = 0;
        for (int i = 0; i < runs.size(); i++) {
            JsonObject payload = payloads.get(i);
            boolean searchablePayload = !payload.isEmpty() && jsonbHolds(payload);
            RunTags runTags = tags.get(i);
            if (runTags.isEmpty() && !searchablePayload) {
                continue;
            }
            JsonObjectBuilder row = JSON.createObjectBuilder().add("id", runs.get(i).id().toString()).add("pipeline", runs.get(i).pipeline());
            if (runTags.key() != null) {
                row.add("key", runTags.key()).add("unique", runTags.uniqueKey());
            }
            if (!runTags.labels().isEmpty()) {
                row.add("labels", JSON.createArrayBuilder(runTags.labels()));
            }
            if (searchablePayload) {
                row.add("payload", payload);
            }
            rows.add(row);
            count++;
        }
        if (count == 0) {
            return;
        }
        em.createNativeQuery("insert into run_search (run_id, pipeline, business_key, unique_key, labels, payload)"
                        + " select cast(r ->> 'id' as uuid), r ->> 'pipeline', r ->> 'key', coalesce(cast(r ->> 'unique' as boolean), false),"
                        + " case when jsonb_typeof(r -> 'labels') = 'array' then array(select jsonb_array_elements_text(r -> 'labels')) end,"
                        + " r -> 'payload' from jsonb_array_elements(cast(?1 as jsonb)) as r")
                .setParameter(1, rows.build().toString()).executeUpdate();
    }

    /**
     * Whether PostgreSQL's {@code jsonb} can hold the document: JSON may escape U+0000 in a string and write numbers of
     * any size, and {@code jsonb} refuses both. Such a payload is kept without its search (the run is still started).
     */
    static boolean jsonbHolds(JsonValue document) {
        Deque<JsonValue> pending = new ArrayDeque<>();
        pending.push(document);
        while (!pending.isEmpty()) {
            JsonValue value = pending.pop();
            if (value instanceof JsonString string && string.getString().indexOf('\0') >= 0) {
                return false;
            }
            if (value instanceof JsonNumber number) {
                BigDecimal decimal = number.bigDecimalValue();
                if (decimal.precision() - decimal.scale() > NUMERIC_INTEGER_DIGITS || decimal.scale() > NUMERIC_FRACTION_DIGITS) {
                    return false;
                }
            }
            if (value instanceof JsonObject object) {
                for (Map.Entry<String, JsonValue> member : object.entrySet()) {
                    if (member.getKey().indexOf('\0') >= 0) {
                        return false;
                    }
                    pending.push(member.getValue());
                }
            }
            if (value instanceof JsonArray array) {
                array.forEach(pending::push);
            }
        }
        return true;
    }
}
