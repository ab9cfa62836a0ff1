package dev.lazarus.pipeline.boundary;

import dev.lazarus.pipeline.entity.RunSearch;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The search parameters of the run and dead-letter lists: {@code key}, {@code label} (repeatable: every label given
 * must be on the run) and {@code payload.<path>=<value>} (several: all must match). They make a {@link RunSearch},
 * whose rules they are refused by (400 naming the parameter); the other parameters of the list are checked as
 * everywhere else: unknown and repeated ones are refused.
 */
public final class SearchParams {

    public static final String KEY = "key";
    public static final String LABEL = "label";
    public static final String PAYLOAD = "payload.";
    /** How the names appear in a refusal's list of what a list takes. */
    private static final List<String> NAMES = List.of(KEY, LABEL, PAYLOAD + "<path>");

    private SearchParams() {
    }

    /**
     * The search the query names; refuses (400) a parameter that is neither one of {@code others} nor a search parameter,
     * and any but {@code label} given twice.
     */
    public static RunSearch read(UriInfo uri, Collection<String> others) {
        MultivaluedMap<String, String> parameters = uri.getQueryParameters();
        List<String> unknown = new ArrayList<>();
        List<String> repeated = new ArrayList<>();
        for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
            String name = parameter.getKey();
            boolean search = name.equals(KEY) || name.equals(LABEL) || name.startsWith(PAYLOAD);
            if (!search && !others.contains(name)) {
                unknown.add(Text.printable(name, 40));
            }
            if (parameter.getValue().size() > 1 && !name.equals(LABEL)) {
                repeated.add(Text.printable(name, 40));
            }
        }
        if (!repeated.isEmpty()) {
            throw Problem.badRequest("query parameter(s) " + new TreeSet<>(repeated) + " given more than once; give each once"
                    + " (only 'label' may be repeated: every label given must be on the run)");
        }
        if (!unknown.isEmpty()) {
            TreeSet<String> takes = new TreeSet<>(others);
            takes.addAll(NAMES);
            throw Problem.badRequest("unknown query parameter(s) " + new TreeSet<>(unknown) + "; this list takes " + takes);
        }
        try {
            String key = blankToNull(parameters.getFirst(KEY));
            List<String> labels = parameters.getOrDefault(LABEL, List.of()).stream().map(SearchParams::blankToNull)
                    .filter(label -> label != null).toList();
            RunSearch search = new RunSearch(key, labels, List.of());
            for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
                if (parameter.getKey().startsWith(PAYLOAD)) {
                    search = search.andPayload(parameter.getKey().substring(PAYLOAD.length()), parameter.getValue().get(0));
                }
            }
            return search;
        } catch (IllegalArgumentException bad) {
            throw Problem.badRequest(bad.getMessage());
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
