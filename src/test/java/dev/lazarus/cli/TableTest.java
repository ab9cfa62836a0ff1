package dev.lazarus.cli;

import static dev.lazarus.cli.Table.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void columnsAreAlignedTwoSpacesApartUnderTheirHeaders() {
        Table table = new Table(column("ID", 10), column("STATE", 20), column("STEP", 20))
                .row(7, "PENDING", "fetch").row(12345, "DEAD_LETTERED", "index");
        assertEquals(List.of(
                "ID     STATE          STEP",
                "7      PENDING        fetch",
                "12345  DEAD_LETTERED  index"), table.lines());
    }

    @Test
    void aLongCellIsCutToItsColumnsWidthWithAnEllipsis() {
        Table table = new Table(column("ERROR", 12), column("N", 3)).row("connection refused by the document service", 1);
        assertEquals("connection …  1", table.lines().get(1));
    }

    @Test
    void anAbsentOrEmptyValueIsADash() {
        Table table = new Table(column("A", 5), column("B", 5)).row(null, "");
        assertEquals("-  -", table.lines().get(1));
    }

    @Test
    void controlCharactersAndLineBreaksOfTheServersTextNeverReachTheTerminal() {
        Table table = new Table(column("ERROR", 80)).row("bad\u001b[2J\u001b[Hinput\r\nat line 2\u0000");
        assertEquals("bad [2J [Hinput at line 2", table.lines().get(1));
    }

    @Test
    void aCharacterOutsideTheBasicPlaneIsNeverCutInHalf() {
        assertEquals("ab…", Cells.truncate("ab\uD83D\uDE00cd", 4));
        assertEquals("a…", Cells.truncate("a\uD83D\uDE00cd", 3));
    }

    @Test
    void aRowMustHaveACellPerColumn() {
        Table table = new Table(column("A", 5), column("B", 5));
        assertThrows(IllegalArgumentException.class, () -> table.row("only one"));
    }
}
