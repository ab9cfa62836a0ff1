package dev.lazarus.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table for people: a header, aligned columns two spaces apart, each cell one line cut to its column's width with an
 * ellipsis, an absent value as {@code -}. Scripts read {@code --json} instead: a table's layout may change.
 */
public final class Table {

    /** A column: its header and the widest its cells may be. */
    public record Column(String header, int maxWidth) {
    }

    private final List<Column> columns;
    private final List<String[]> rows = new ArrayList<>();

    public Table(Column... columns) {
        this.columns = List.of(columns);
    }

    public static Column column(String header, int maxWidth) {
        return new Column(header, maxWidth);
    }

    public Table row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException(columns.size() + " columns, " + cells.length + " cells");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = cells[i] == null || cells[i].toString().isEmpty() ? "-" : Cells.oneLine(cells[i].toString(), columns.get(i).maxWidth());
        }
        rows.add(row);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public List<String> lines() {
        int[] widths = new int[columns.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = columns.get(i).header().length();
        }
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], width(row[i]));
            }
        }
        List<String> lines = new ArrayList<>(rows.size() + 1);
        lines.add(line(columns.stream().map(Column::header).toArray(String[]::new), widths));
        rows.forEach(row -> lines.add(line(row, widths)));
        return lines;
    }

    public void print(PrintWriter out) {
        lines().forEach(out::println);
    }

    private static String line(String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            line.append(cells[i]);
            if (i < cells.length - 1) {
                line.append(" ".repeat(widths[i] - width(cells[i]) + 2));
            }
        }
        return line.toString().stripTrailing();
    }

    /** Characters as a terminal counts them (a character outside the BMP is one, not two). */
    private static int width(String cell) {
        return cell.codePointCount(0, cell.length());
    }
}
