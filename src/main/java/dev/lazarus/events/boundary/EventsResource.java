package dev.lazarus.events.boundary;

import dev.lazarus.events.control.Events;
import dev.lazarus.platform.boundary.QueryParams;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code GET /api/events?after=<id>&limit=<n>} (viewer): the stored events after an id, oldest first, so that a script
 * (or {@code lazarus events tail}) follows them without JMS: it asks again with {@code after} set to the answer's
 * {@code last}. Without {@code after}, the newest {@code limit} events (as {@code tail} shows the end of a file);
 * {@code after=0} reads from the oldest kept. {@code limit} defaults to {@value #DEFAULT_LIMIT} (at most
 * {@value #MAX_LIMIT}). The answer is {@code {"events": [<lazarus.event/v1>...], "last": <id or the after given, 0 if none>}},
 * oldest first.
 */
@Path("events")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class EventsResource {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    @Inject
    Events events;

    @GET
    public String after(@QueryParam("after") String after, @QueryParam("limit") String limit, @Context UriInfo uri) {
        QueryParams.onlyKnown(uri, Set.of("after", "limit"));
        long from = number("after", after, 0, Long.MAX_VALUE, -1);
        int count = (int) number("limit", limit, 1, MAX_LIMIT, DEFAULT_LIMIT);
        Events.Read found = from < 0 ? events.newest(count) : events.after(from, count);
        // the stored JSON as it was published, not parsed and written again
        return found.events().stream().map(Events.Stored::json)
                .collect(Collectors.joining(",", "{\"events\":[", "],\"last\":" + found.last() + "}"));
    }

    private static long number(String name, String value, long min, long max, long absent) {
        if (value == null || value.isBlank()) {
            return absent;
        }
        long number;
        try {
            number = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw Problem.badRequest(name + " must be a whole number from " + min + " to " + max + ", was '" + Text.printable(value, 100) + "'");
        }
        if (number < min || number > max) {
            throw Problem.badRequest(name + " must be from " + min + " to " + max + ", was " + number);
        }
        return number;
    }
}
