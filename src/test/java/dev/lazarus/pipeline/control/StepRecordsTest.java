package dev.lazarus.pipeline.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.StepExecution;
import jakarta.persistence.Column;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link StepRecords} writes a step's success with SQL: a column added to an entity and not to the statement would be
 * left empty (an execution's) or not moved on (a run's) on the hot path only. This keeps the statement's columns those
 * the entities map and their methods change.
 */
class StepRecordsTest {

    @Test
    void theStatementInsertsEveryColumnAStepExecutionMaps() {
        String sql = StepRecords.SUCCEEDED;
        String insert = sql.substring(sql.indexOf("insert into step_execution (") + "insert into step_execution (".length());
        assertEquals(mapped(StepExecution.class), listed(insert.substring(0, insert.indexOf(')'))));
    }

    @Test
    void theStatementInsertsAStepAttemptWithEveryColumnASuccessHasAndNoOther() {
        String sql = StepRecords.SUCCEEDED;
        String insert = sql.substring(sql.indexOf("insert into step_attempt (") + "insert into step_attempt (".length());
        Set<String> expected = new TreeSet<>(mapped(dev.lazarus.pipeline.entity.StepAttempt.class));
        expected.removeAll(Set.of("exception_class", "message")); // a success has no failure
        assertEquals(expected, listed(insert.substring(0, insert.indexOf(')'))));
        assertTrue(sql.contains("from execution"), "written only with the execution, which is written only if the run moved: " + sql);
    }

    @Test
    void theClaimReadsEveryColumnARunMaps() {
        String sql = StepRecords.CLAIM;
        assertEquals(mapped(Run.class), listed(sql.substring("select ".length(), sql.indexOf(" from run"))));
    }

    @Test
    void aRunsRowHoldsEveryFieldTheEntityMaps() {
        Set<String> fields = persistent(Run.class).stream().map(Field::getName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> components = Arrays.stream(Run.Row.class.getRecordComponents()).map(java.lang.reflect.RecordComponent::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(fields, components);
    }

    @Test
    void theStatementWritesEveryColumnAStepsSuccessChangesOnItsRun() {
        Set<String> written = written();
        assertTrue(written.containsAll(changedBy(run -> {
            run.advanceTo("parse", "{\"next\":true}", Instant.now().plusSeconds(1));
            run.dispatchedBy("node/incarnation");
        })), "advancing to the next step: " + written);
        assertTrue(written.containsAll(changedBy(run -> run.complete("{\"done\":true}", Instant.now().plusSeconds(1)))),
                "completing: " + written);
    }

    /** The run columns the statement sets. */
    private static Set<String> written() {
        String sql = StepRecords.SUCCEEDED;
        String set = sql.substring(sql.indexOf("update run set ") + "update run set ".length(), sql.indexOf(" where id = ?"));
        return Arrays.stream(set.split(",")).map(assignment -> assignment.substring(0, assignment.indexOf('=')).strip())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The columns of the run's persistent fields whose value {@code change} alters (its version included: the writer bumps it). */
    private static Set<String> changedBy(Consumer<Run> change) {
        Run run = new Run("document-ingestion", "fetch", "{\"url\":\"x\"}", Instant.now());
        Map<String, Object> before = values(run);
        change.accept(run);
        Map<String, Object> after = values(run);
        Set<String> changed = new TreeSet<>();
        for (Field field : persistent(Run.class)) {
            if (!Objects.equals(before.get(field.getName()), after.get(field.getName())) || field.isAnnotationPresent(Version.class)) {
                changed.add(column(field));
            }
        }
        return changed;
    }

    private static Map<String, Object> values(Run run) {
        Map<String, Object> values = new HashMap<>();
        for (Field field : persistent(Run.class)) {
            try {
                field.setAccessible(true);
                values.put(field.getName(), field.get(run));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return values;
    }

    private static Set<String> listed(String columns) {
        return Arrays.stream(columns.split(",")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> mapped(Class<?> entity) {
        return persistent(entity).stream().map(StepRecordsTest::column).collect(Collectors.toCollection(TreeSet::new));
    }

    private static java.util.List<Field> persistent(Class<?> entity) {
        return Arrays.stream(entity.getDeclaredFields())
                .filter(f -> !Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers())
                        && !f.isAnnotationPresent(Transient.class))
                .toList();
    }

    /** The name {@code @Column} or {@code @JoinColumn} gives, else the field's. */
    private static String column(Field field) {
        Column column = field.getAnnotation(Column.class);
        JoinColumn join = field.getAnnotation(JoinColumn.class);
        if (column != null && !column.name().isEmpty()) {
            return column.name();
        }
        return join != null && !join.name().isEmpty() ? join.name() : field.getName();
    }
}
