package dev.lazarus.it;

import jakarta.servlet.annotation.WebListener;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionListener;
import java.util.concurrent.atomic.AtomicInteger;

/** The test deployment's live sessions, counted as the server creates and ends them (a test fixture, never in the WAR). */
@WebListener
public class SessionCounter implements HttpSessionListener {

    private static final AtomicInteger LIVE = new AtomicInteger();
    private static final AtomicInteger CREATED = new AtomicInteger();

    static int live() {
        return LIVE.get();
    }

    static int created() {
        return CREATED.get();
    }

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        LIVE.incrementAndGet();
        CREATED.incrementAndGet();
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        LIVE.decrementAndGet();
    }
}
