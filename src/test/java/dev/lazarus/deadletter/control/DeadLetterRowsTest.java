package dev.lazarus.deadletter.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
import jakarta.persistence.Column;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Transient;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link DeadLetterRows} writes a sweep's dead letters with SQL: a column added to the entity and not to the writer
 * would be left empty for those dead letters only. This keeps the writer's columns those the entities map.
 */
class DeadLetterRowsTest {

    @Test
    void theWriterWritesEveryColumnADeadLetterMaps() {
        assertEquals(mapped(DeadLetter.class), listed(DeadLetterRows.DEAD_LETTER_COLUMNS));
    }

    @Test
    void theWriterWritesEveryColumnAnAuditEntryMaps() {
        assertEquals(mapped(DeadLetterEvent.class), listed(DeadLetterRows.EVENT_COLUMNS));
    }

    private static Set<String> listed(String columns) {
        return Arrays.stream(columns.split(",")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The columns of the persistent fields: the name {@code @Column} or {@code @JoinColumn} gives, else the field's. */
    private static Set<String> mapped(Class<?> entity) {
        Set<String> columns = new TreeSet<>();
        for (Field field : entity.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) || Modifier.isTransient(field.getModifiers())
                    || field.isAnnotationPresent(Transient.class) || field.isAnnotationPresent(OneToMany.class)) {
                continue;
            }
            Column column = field.getAnnotation(Column.class);
            JoinColumn join = field.getAnnotation(JoinColumn.class);
            if (column != null && !column.name().isEmpty()) {
                columns.add(column.name());
            } else if (join != null && !join.name().isEmpty()) {
                columns.add(join.name());
            } else {
                columns.add(field.getName());
            }
        }
        return columns;
    }
}
