package dev.lazarus.it;

import jakarta.servlet.annotation.WebListener;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionIdListener;
import jakarta.servlet.http.HttpSessionListener;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The test deployment's live sessions, counted as the server creates and ends them, and what one of them keeps (a test
 * fixture, never in the WAR).
 */
@WebListener
public class SessionCounter implements HttpSessionListener, HttpSessionIdListener {

    private static final AtomicInteger LIVE = new AtomicInteger();
    private static final AtomicInteger CREATED = new AtomicInteger();
    // by id (the server may hand out a new wrapper of one session each time), re-keyed when a sign-in changes the id
    private static final Map<String, HttpSession> SESSIONS = new ConcurrentHashMap<>();

    static int live() {
        return LIVE.get();
    }

    static int created() {
        return CREATED.get();
    }

    /**
     * What the session behind a JSESSIONID cookie keeps, as the bytes of its attributes serialized (what the server
     * would write to passivate or replicate it). Unlike the heap, which caches and collections move by megabytes, this
     * is exactly what the session holds.
     */
    static long keptBytes(String cookie) {
        HttpSession session = SESSIONS.values().stream().filter(s -> cookie.equals(s.getId()) || cookie.startsWith(s.getId() + "."))
                .findFirst().orElseThrow(() -> new AssertionError("no live session for cookie " + cookie));
        long[] count = {0};
        try (ObjectOutputStream out = new ObjectOutputStream(new OutputStream() {
            @Override
            public void write(int b) {
                count[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                count[0] += len;
            }
        })) {
            for (String name : Collections.list(session.getAttributeNames())) {
                out.writeObject(name);
                out.writeObject(session.getAttribute(name));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a session attribute cannot be serialized", e);
        }
        return count[0];
    }

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        LIVE.incrementAndGet();
        CREATED.incrementAndGet();
        SESSIONS.put(event.getSession().getId(), event.getSession());
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        LIVE.decrementAndGet();
        SESSIONS.remove(event.getSession().getId());
    }

    @Override
    public void sessionIdChanged(HttpSessionEvent event, String oldSessionId) {
        SESSIONS.remove(oldSessionId);
        SESSIONS.put(event.getSession().getId(), event.getSession());
    }
}
