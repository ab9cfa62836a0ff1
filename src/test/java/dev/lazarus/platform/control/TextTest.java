package dev.lazarus.platform.control;

import dev.lazarus.platform.entity.Text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TextTest {

    @Test
    void aColumnKeepsNulAsAReplacementCharacterAndNeverHalfACharacter() {
        assertEquals("a\uFFFDb", Text.truncate("a\u0000b", 10));
        String emoji = "\uD83D\uDE00".repeat(10); // 20 UTF-16 units
        String cut = Text.truncate(emoji, 6);
        assertEquals("\uD83D\uDE00\uD83D\uDE00…", cut, "two whole emoji and the ellipsis, not two and a half");
        assertTrue(cut.length() <= 6);
        assertNull(Text.truncate(null, 5));
        assertEquals("short", Text.truncate("short", 5));
    }

    @Test
    void quotedInputIsBoundedAndShowsControlCharacters() {
        assertEquals("a\\u0000b", Text.printable("a\u0000b", 100));
        assertEquals("xxxxx…", Text.printable("x".repeat(50), 5));
        assertEquals("\uD83D\uDE00", Text.printable("\uD83D\uDE00", 10), "a whole emoji stays");
        assertEquals("\\uDC00", Text.printable("\uDC00", 10), "half of one is shown as its code");
        assertEquals("pay \\u202Eevil", Text.printable("pay \u202Eevil", 100), "a control that reorders text is shown as its code");
    }

    @Test
    void aTextHasOneLimitAndNoCharacterThatHidesWhatItSays() {
        assertEquals("line one\nline two\ttab", TextInput.text("note", "line one\nline two\ttab", 100));
        assertEquals(400, assertThrows(Problem.class, () -> TextInput.text("note", "x".repeat(101), 100)).status());
        assertTrue(assertThrows(Problem.class, () -> TextInput.text("note", "a\u0007b", 100)).detail().contains("control character"));
        assertTrue(assertThrows(Problem.class, () -> TextInput.line("pipeline", "a\nb", 100)).detail().contains("control character"));
        assertTrue(assertThrows(Problem.class, () -> TextInput.text("note", "pay \u202Eevil", 100)).detail().contains("reorders"));
        assertTrue(assertThrows(Problem.class, () -> TextInput.text("note", "x\uD800y", 100)).detail().contains("surrogate"));
        assertEquals("\u05E9\u05DC\u05D5\u05DD \uD83D\uDE00", TextInput.line("note", "\u05E9\u05DC\u05D5\u05DD \uD83D\uDE00", 100),
                "right-to-left text and characters outside the basic plane are text");
        assertNull(TextInput.line("pipeline", "   ", 100));
        assertEquals(" spaced ", TextInput.line("error", " spaced ", 100), "a filter's text is taken as sent");
        assertEquals("spaced", TextInput.name("pipeline", " spaced ", 100), "a name without the blanks around it");
    }
}
