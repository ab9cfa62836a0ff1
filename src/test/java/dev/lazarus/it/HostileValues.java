package dev.lazarus.it;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The hostile values {@link ApiFuzzIT} sends: for a path or query parameter or a header, for one field of a JSON
 * body, and whole bodies. Each list starts with fixed edge cases (so every run tries them) and ends with values
 * drawn with the given random (strings of any characters, numbers, JSON of any shape), so a seed reproduces a run
 * exactly.
 */
final class HostileValues {

    /** How many values each list draws at random, on top of its edge cases. */
    private static final int DRAWN = 4;

    private final List<Value> parameters;
    private final List<Value> fields;
    private final List<Value> data;
    private final List<Body> bodies;

    /**
     * A value with how a report shows it: {@code text} is what is sent (for a parameter, percent-encoded), {@code raw}
     * the value itself (for a header; null for an encoding that is wrong in itself, and for a JSON field).
     */
    record Value(String label, String text, String raw) {

        Value(String label, String text) {
            this(label, text, null);
        }
    }

    /** A whole request body, as bytes (some are not UTF-8), with the content type it is sent with. */
    record Body(String label, byte[] bytes, String contentType) {

        static Body json(String label, String text) {
            return new Body(label, text.getBytes(StandardCharsets.UTF_8), "application/json");
        }
    }

    HostileValues(Random random) {
        // a drawn string may be an edge case already: each value once
        Set<String> distinct = new LinkedHashSet<>(edgeStrings());
        distinct.addAll(draw(() -> drawnString(random)));
        List<String> strings = new ArrayList<>(distinct);
        List<String> drawnNumbers = draw(() -> new BigInteger(1 + random.nextInt(70), random).multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1)).toString());
        List<String> numbers = new ArrayList<>(edgeNumbers());
        numbers.addAll(drawnNumbers);
        this.parameters = parameterValues(strings, numbers);
        List<String> trees = draw(() -> jsonTree(random, 4));
        this.fields = fieldValues(strings, NUMBERS, drawnNumbers, trees);
        this.data = fieldValues(List.of("", "\u0000", "a\u0000b", "\u0001", "\u001b[31mred", "\u007f", "\ud800", "\u202egnp.exe",
                "\ud83d\ude00", "' OR '1'='1", "<script>alert(1)</script>", "x".repeat(4_001), "x".repeat(100_000)),
                List.of("-0", "9223372036854775808", "1e309"), List.of(), trees);
        this.bodies = bodies(draw(() -> jsonTree(random, 4)));
    }

    /** For a path or query parameter or a header: every hostile string and number, and encodings that are themselves wrong. */
    List<Value> parameters() {
        return parameters;
    }

    /** For one field of a JSON body: the strings, numbers, every other JSON type, deep nesting, random JSON. */
    List<Value> fields() {
        return fields;
    }

    /** For a field that is data inside a payload (any JSON is valid there): fewer strings and numbers, every type and depth. */
    List<Value> data() {
        return data;
    }

    /** Whole bodies any action may be sent: not JSON, not UTF-8, not an object, deep, huge, random JSON. */
    List<Body> bodies() {
        return bodies;
    }

    // ---- the edge cases -------------------------------------------------------------------------------------

    private static List<String> edgeStrings() {
        return List.of("", " ", "\t\r\n ",
                "\u0000", "a\u0000b", "\u0001", "\u001b[31mred", "\u007f", "\u0085", "\u2028", "\ufeff", "\ufffe",
                "\u202egnp.exe", "\ud83d\ude00", "\ud800", "e\u0301", "\uff21\uff24\uff2d\uff29\uff2e",
                "' OR '1'='1", "'); drop table run; --", "%", "_", "\\", "\"", "<script>alert(1)</script>", "${jndi:ldap://127.0.0.1/a}",
                "{{7*7}}", "../../../../etc/passwd", "null", "undefined", "true", "[]", "{}",
                "x".repeat(101), "x".repeat(201), "x".repeat(4_001), "\u00e9".repeat(4_001), "\ud83d\ude00".repeat(2_001),
                "x".repeat(10_000), "x".repeat(100_000));
    }

    private static List<String> edgeNumbers() {
        return List.of("-1", "0", "-0", "1.5", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
                "9223372036854775808", "-9223372036854775809", "1e309", "-1e309", "1e-400", "NaN", "Infinity", "0x10", "+1",
                "1_000", "\u0663", "1" + "0".repeat(1_000));
    }

    // ---- what is drawn at random ----------------------------------------------------------------------------

    private static final String PUNCTUATION = "'\"%_\\<>{}[]$;:-/?#&=+*!|^~` ";

    /** One of: any UTF-16 code units, control characters, surrogate halves, punctuation that means something somewhere, long text. */
    private static String drawnString(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> chars(random, 1 + random.nextInt(40), () -> (char) random.nextInt(0x10000));
            case 1 -> chars(random, 1 + random.nextInt(8), () -> random.nextInt(33) == 32 ? '\u007f' : (char) random.nextInt(0x20));
            case 2 -> chars(random, 1 + random.nextInt(4), () -> (char) (0xd800 + random.nextInt(0x800)));
            case 3 -> chars(random, 1 + random.nextInt(20), () -> PUNCTUATION.charAt(random.nextInt(PUNCTUATION.length())));
            default -> chars(random, 90 + random.nextInt(210), () -> (char) ('a' + random.nextInt(26)));
        };
    }

    private static String chars(Random random, int length, Supplier<Character> next) {
        StringBuilder drawn = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            drawn.append(next.get());
        }
        return drawn.toString();
    }

    /** Random JSON text: scalars of every kind, and arrays and objects of them up to {@code depth} levels. */
    private static String jsonTree(Random random, int depth) {
        int kind = random.nextInt(depth > 0 ? 6 : 4);
        return switch (kind) {
            case 0 -> jsonString(drawnString(random));
            case 1 -> new BigInteger(1 + random.nextInt(80), random).toString();
            case 2 -> Double.toString(Double.longBitsToDouble(random.nextLong())).replaceAll("NaN|Infinity", "1e309");
            case 3 -> List.of("true", "false", "null").get(random.nextInt(3));
            case 4 -> IntStream.range(0, random.nextInt(5)).mapToObj(i -> jsonTree(random, depth - 1)).collect(Collectors.joining(",", "[", "]"));
            default -> IntStream.range(0, random.nextInt(5)).mapToObj(i -> jsonString(drawnString(random)) + ":" + jsonTree(random, depth - 1))
                    .collect(Collectors.joining(",", "{", "}"));
        };
    }

    private static <T> List<T> draw(Supplier<T> next) {
        List<T> drawn = new ArrayList<>();
        for (int i = 0; i < DRAWN; i++) {
            drawn.add(next.get());
        }
        return drawn;
    }

    // ---- the lists ------------------------------------------------------------------------------------------

    private static List<Value> parameterValues(List<String> strings, List<String> numbers) {
        List<Value> values = new ArrayList<>();
        strings.forEach(s -> values.add(new Value(label(s), percentEncoded(s), s)));
        numbers.forEach(n -> values.add(new Value(label(n), percentEncoded(n), n)));
        // encodings that are wrong in themselves
        for (String raw : List.of("%00", "%FF", "%C0%AF", "%ED%A0%80", "%", "%zz", "%2F..%2F..%2F", "..", "%2e%2e", "%u0000")) {
            values.add(new Value("raw " + raw, raw));
        }
        return values;
    }

    /** Numbers as JSON has them, at the edges of what a field of Java's types holds. */
    private static final List<String> NUMBERS = List.of("-1", "0", "-0", "1.5", "2147483648", "9223372036854775808", "-9223372036854775809",
            "1e309", "-1e309", "1e-400", "1" + "0".repeat(1_000));

    private static List<Value> fieldValues(List<String> strings, List<String> numbers, List<String> drawnNumbers, List<String> trees) {
        List<Value> values = new ArrayList<>();
        strings.forEach(s -> values.add(new Value("string " + label(s), jsonString(s))));
        numbers.forEach(n -> values.add(new Value("number " + label(n), n)));
        drawnNumbers.forEach(n -> values.add(new Value("number " + n, n)));
        for (String other : List.of("true", "null", "[]", "{}", "[1,\"a\",null]", "{\"a\":1}", "NaN", "'single'")) {
            values.add(new Value(other, other));
        }
        values.add(new Value("string with a raw control character", "\"a\u0001b\""));
        values.add(new Value("string with a raw line break", "\"a\nb\""));
        for (int depth : List.of(101, 998, 10_000)) {
            values.add(new Value("array nested " + depth + " deep", "[".repeat(depth) + "]".repeat(depth)));
            values.add(new Value("object nested " + depth + " deep", "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1)));
        }
        values.add(new Value("object with 10 000 members", IntStream.range(0, 10_000)
                .mapToObj(i -> "\"m" + i + "\":" + i).collect(Collectors.joining(",", "{", "}"))));
        trees.forEach(t -> values.add(new Value("random JSON " + label(t), t)));
        return values;
    }

    private static List<Body> bodies(List<String> trees) {
        List<Body> bodies = new ArrayList<>();
        for (String text : List.of("", " \r\n\t", "null", "0", "-1", "1e309", "9223372036854775808", "true", "\"text\"", "[]",
                "[{}]", "{", "{\"a\":}", "{'a':1}", "{\"a\":1,}", "NaN", "{} {}", "{\"a\":1}garbage", "\u0000", "{\"\u0000\":1}",
                "{\"\":1}", "{\"__proto__\":{\"admin\":true}}", "{}")) {
            bodies.add(Body.json("body " + label(text), text));
        }
        for (int depth : List.of(100, 1_000, 10_000)) {
            bodies.add(Body.json("body: array nested " + depth + " deep", "[".repeat(depth) + "]".repeat(depth)));
            bodies.add(Body.json("body: object nested " + depth + " deep", "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1)));
        }
        bodies.add(Body.json("body: a string of 1 MB", "{\"a\":\"" + "x".repeat(1 << 20) + "\"}"));
        byte[] notUtf8 = HexFormat.of().parseHex("7b2261223a22c328227d"); // {"a":"<C3 28>"}
        bodies.add(new Body("body not UTF-8 (C3 28 in a string)", notUtf8, "application/json"));
        bodies.add(new Body("body not UTF-8 (a lone FF)", new byte[] {'{', (byte) 0xFF, '}'}, "application/json"));
        bodies.add(new Body("body not UTF-8 (overlong C0 AF)", HexFormat.of().parseHex("7b2261223a22c0af227d"), "application/json"));
        bodies.add(new Body("body in UTF-16 with a BOM", "\ufeff{\"a\":1}".getBytes(StandardCharsets.UTF_16LE), "application/json"));
        bodies.add(new Body("body in UTF-8 with a BOM", "\ufeff{}".getBytes(StandardCharsets.UTF_8), "application/json"));
        bodies.add(new Body("body {} declared as Latin-1", "{}".getBytes(StandardCharsets.UTF_8), "application/json; charset=ISO-8859-1"));
        bodies.add(new Body("body {} as text/plain", "{}".getBytes(StandardCharsets.UTF_8), "text/plain"));
        bodies.add(new Body("body as a form", "a=1".getBytes(StandardCharsets.UTF_8), "application/x-www-form-urlencoded"));
        trees.forEach(t -> bodies.add(Body.json("body: random JSON " + label(t), t)));
        return bodies;
    }

    // ---- encoding and showing -------------------------------------------------------------------------------

    /** JSON text for a string: control characters and unpaired surrogates escaped, everything else as it is. */
    static String jsonString(String value) {
        StringBuilder json = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(value.charAt(i - 1));
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c) && !paired) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }

    /** Every byte of the UTF-8 form percent-encoded but unreserved ASCII; an unpaired surrogate as the bytes of its code. */
    static String percentEncoded(String value) {
        StringBuilder encoded = new StringBuilder();
        for (int i = 0; i < value.length(); ) {
            int codePoint = value.codePointAt(i);
            i += Character.charCount(codePoint);
            if (codePoint < 0x80 && (Character.isLetterOrDigit(codePoint) || "-._~".indexOf(codePoint) >= 0)) {
                encoded.append((char) codePoint);
                continue;
            }
            // CESU-style bytes for a lone surrogate: what a careless client would send
            byte[] bytes = Character.isSurrogate((char) codePoint)
                    ? new byte[] {(byte) (0xE0 | codePoint >> 12), (byte) (0x80 | (codePoint >> 6 & 0x3F)), (byte) (0x80 | (codePoint & 0x3F))}
                    : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
            for (byte b : bytes) {
                encoded.append('%').append(String.format("%02X", b & 0xFF));
            }
        }
        return encoded.toString();
    }

    /** A value as a report shows it: control characters escaped, long ones cut, with their length. */
    static String label(String value) {
        StringBuilder shown = new StringBuilder("\"");
        int shownChars = Math.min(value.length(), 24);
        for (int i = 0; i < shownChars; i++) {
            char c = value.charAt(i);
            shown.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) || c >= 0x80 && c < 0xa0 || c == '\u2028' || c == '\u202e' || c == '\ufeff'
                    ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        shown.append('"');
        if (value.length() > shownChars) {
            shown.append("... (").append(value.length()).append(" chars)");
        }
        return shown.toString();
    }
}
