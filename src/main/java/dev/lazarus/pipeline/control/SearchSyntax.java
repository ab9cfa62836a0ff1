package dev.lazarus.pipeline.control;

import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.platform.entity.Text;
import java.util.ArrayList;
import java.util.List;

/**
 * The admin pages' search box: one line of terms, all of which must match.
 * <ul>
 *   <li>a word: the business key ({@code order-42}); a key with spaces in double quotes ({@code "ORD 42"}); one per search</li>
 *   <li>{@code label:NAME}: a label (several: the run has them all)</li>
 *   <li>{@code payload.PATH=VALUE}: a field of the submitted payload ({@code payload.customer.id=42}); a value with spaces
 *       in double quotes ({@code payload.customer.name="Ann Lee"})</li>
 * </ul>
 * A term in double quotes is always a key, whatever it starts with. The terms become a {@link RunSearch}, whose limits
 * apply; anything wrong is an {@link IllegalArgumentException} saying what (the page shows it).
 */
public final class SearchSyntax {

    public static final int MAX_LENGTH = 1000;
    private static final String LABEL = "label:";
    private static final String PAYLOAD = "payload.";

    private SearchSyntax() {
    }

    public static RunSearch parse(String query) {
        if (query == null || query.isBlank()) {
            return RunSearch.NONE;
        }
        if (query.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a search has at most " + MAX_LENGTH + " characters");
        }
        String key = null;
        List<String> labels = new ArrayList<>();
        List<String[]> payload = new ArrayList<>();
        for (Term term : terms(query)) {
            String text = term.text();
            if (!term.quoted() && text.startsWith(LABEL)) {
                labels.add(text.substring(LABEL.length()));
            } else if (!term.quoted() && text.startsWith(PAYLOAD)) {
                int equals = text.indexOf('=');
                if (equals < 0) {
                    throw new IllegalArgumentException("'" + Text.printable(text, 60)
                            + "': a payload term is payload.PATH=VALUE, e.g. payload.customer.id=42");
                }
                payload.add(new String[] {text.substring(PAYLOAD.length(), equals), text.substring(equals + 1)});
            } else if (key == null) {
                key = text;
            } else {
                throw new IllegalArgumentException("a search has one key, this one has '" + Text.printable(key, 60)
                        + "' and '" + Text.printable(text, 60) + "' (put a key with spaces in double quotes)");
            }
        }
        RunSearch search = new RunSearch(key, labels, List.of());
        for (String[] term : payload) {
            search = search.andPayload(term[0], term[1]);
        }
        return search;
    }

    /** A key as a term of the box: in double quotes if it would otherwise be read as something else. */
    public static String quote(String key) {
        if (key == null) {
            return "";
        }
        boolean plain = !key.isEmpty() && key.chars().noneMatch(c -> Character.isWhitespace(c) || c == '"')
                && !key.startsWith(LABEL) && !key.startsWith(PAYLOAD);
        return plain ? key : "\"" + key + "\"";
    }

    private record Term(String text, boolean quoted) {
    }

    /** Splits at white space outside double quotes; the quotes themselves are not part of a term. */
    private static List<Term> terms(String query) {
        List<Term> terms = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inQuotes = false;
        boolean quoted = false;
        boolean started = false;
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (c == '"') {
                if (!started) {
                    quoted = true;
                }
                inQuotes = !inQuotes;
                started = true;
            } else if (Character.isWhitespace(c) && !inQuotes) {
                if (started) {
                    terms.add(new Term(current.toString(), quoted));
                }
                current.setLength(0);
                started = false;
                quoted = false;
            } else {
                current.append(c);
                started = true;
            }
        }
        if (inQuotes) {
            throw new IllegalArgumentException("a double quote is not closed");
        }
        if (started) {
            terms.add(new Term(current.toString(), quoted));
        }
        for (Term term : terms) {
            if (term.text().isEmpty()) {
                throw new IllegalArgumentException("an empty term (\"\") finds nothing: leave it out");
            }
        }
        return terms;
    }
}
