package dev.lazarus.admin.boundary;

import jakarta.enterprise.context.RequestScoped;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a page read from the database for the request it answers, read once however often the page refers to it, and
 * forgotten with the request.
 *
 * <p>Why not fields of the view-scoped page beans: a view-scoped bean lives as long as its view is kept in the session
 * (up to {@code com.sun.faces.numberOfActiveViewMaps} views per session, see web.xml), so whatever it holds is held
 * once per page load per session. The page beans keep their parameters (a filter, an id) and the ids of the rows they
 * showed; their data lives here.
 */
@RequestScoped
public class PageReads {

    private final Map<String, Object> read = new HashMap<>();

    @SuppressWarnings("unchecked")
    <T> T once(String what, Supplier<T> reader) {
        if (!read.containsKey(what)) {
            read.put(what, reader.get());
        }
        return (T) read.get(what);
    }
}
