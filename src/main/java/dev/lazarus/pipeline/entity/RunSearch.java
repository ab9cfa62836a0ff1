package dev.lazarus.pipeline.entity;

import dev.lazarus.platform.entity.Text;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which runs an operator means by what they know: a business key, labels (all of them), and payload fields
 * ({@code customer.id = 42}: all of them). Empty parts mean any; every part is bounded and checked here, the one place,
 * for the API's query parameters and the admin pages' search box alike ({@link IllegalArgumentException}: a 400).
 *
 * <p>A payload term matches a run whose submitted payload holds, at that path of object members, a JSON string equal
 * to the value or, if the value reads as a plain decimal number, a JSON number equal to it ({@code 42} matches
 * {@code 42}, {@code 42.0} and {@code "42"}). It is looked up as containment ({@code payload @> {"customer":{"id":42}}}),
 * which the payload's GIN index answers; a path does not step into arrays.
 */
public record RunSearch(String key, List<String> labels, List<PayloadTerm> payload) {

    public static final int MAX_LABELS = 10;
    public static final int MAX_PAYLOAD_TERMS = 5;
    public static final int MAX_PATH_DEPTH = 8;
    public static final int MAX_PATH_LENGTH = 200;
    public static final int MAX_VALUE_LENGTH = 200;
    /** A path segment: a member name of letters, digits, {@code _} and {@code -}. */
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** A value that is also searched as a JSON number: plain decimal, no exponent (PostgreSQL's numeric reads it whole). */
    private static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]{0,29})(\\.[0-9]{1,30})?");

    private static final JsonProvider JSON = JsonProvider.provider();

    public static final RunSearch NONE = new RunSearch(null, List.of(), List.of());

    public RunSearch {
        key = RunTags.checkKey("key", key);
        labels = labels == null ? List.of() : List.copyOf(labels);
        payload = payload == null ? List.of() : List.copyOf(payload);
        if (labels.size() > MAX_LABELS) {
            throw new IllegalArgumentException("at most " + MAX_LABELS + " labels in one search, were " + labels.size());
        }
        labels.forEach(label -> RunTags.checkLabel("label", label));
        if (payload.size() > MAX_PAYLOAD_TERMS) {
            throw new IllegalArgumentException("at most " + MAX_PAYLOAD_TERMS + " payload fields in one search, were " + payload.size());
        }
    }

    public boolean isEmpty() {
        return key == null && labels.isEmpty() && payload.isEmpty();
    }

    /** This search and one more payload term. */
    public RunSearch andPayload(String path, String value) {
        List<PayloadTerm> terms = new ArrayList<>(payload);
        terms.add(PayloadTerm.of(path, value));
        return new RunSearch(key, labels, terms);
    }

    /** A field of the payload and the value it must have. */
    public record PayloadTerm(List<String> path, String value) {

        /**
         * {@code path} dotted ({@code customer.id}, at most {@value #MAX_PATH_DEPTH} names of letters, digits, _ and -,
         * {@value #MAX_PATH_LENGTH} characters in all); {@code value} 1 to {@value #MAX_VALUE_LENGTH} characters without
         * control characters.
         */
        public static PayloadTerm of(String path, String value) {
            if (path == null || path.isEmpty()) {
                throw new IllegalArgumentException("a payload field needs a path: payload.<name>[.<name>...]=<value>, e.g. payload.customer.id=42");
            }
            if (path.length() > MAX_PATH_LENGTH) {
                throw new IllegalArgumentException("a payload path has at most " + MAX_PATH_LENGTH + " characters, this one "
                        + path.length() + " ('" + Text.printable(path, 40) + "')");
            }
            String[] segments = path.split("\\.", -1);
            if (segments.length > MAX_PATH_DEPTH) {
                throw new IllegalArgumentException("a payload path has at most " + MAX_PATH_DEPTH + " names, '"
                        + Text.printable(path, 60) + "' has " + segments.length);
            }
            for (String segment : segments) {
                if (!SEGMENT.matcher(segment).matches()) {
                    throw new IllegalArgumentException("payload path '" + Text.printable(path, 60) + "': each name between the dots"
                            + " must be 1 to 64 of A-Z a-z 0-9 _ -");
                }
            }
            if (value == null || value.isEmpty() || value.length() > MAX_VALUE_LENGTH || !RunTags.printable(value)) {
                throw new IllegalArgumentException("the value of payload." + Text.printable(path, 60) + " must be 1 to "
                        + MAX_VALUE_LENGTH + " characters without control characters; was '" + Text.printable(value, 60) + "'");
            }
            return new PayloadTerm(List.of(segments), value);
        }

        public String dotted() {
            return String.join(".", path);
        }

        /**
         * The documents a matching payload contains, as JSON text: the value as a string and, if it reads as a number,
         * as a number too.
         */
        public List<String> documents() {
            List<String> documents = new ArrayList<>(2);
            documents.add(document(JSON.createValue(value)));
            if (NUMBER.matcher(value).matches()) {
                documents.add(document(JSON.createValue(new BigDecimal(value))));
            }
            return documents;
        }

        private String document(JsonValue leaf) {
            JsonValue inner = leaf;
            for (int i = path.size() - 1; i >= 0; i--) {
                JsonObjectBuilder level = JSON.createObjectBuilder();
                level.add(path.get(i), inner);
                inner = level.build();
            }
            return inner.toString();
        }
    }
}
