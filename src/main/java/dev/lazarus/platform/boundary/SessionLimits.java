package dev.lazarus.platform.boundary;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.annotation.WebListener;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionIdListener;
import jakarta.servlet.http.HttpSessionListener;
import java.io.IOException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What sessions may cost, whoever makes them. A session is the one thing on this server that anyone can make more of
 * just by asking: every request for a page without signing in leaves one (the server keeps the request asked for, to
 * return to it after the sign-in: its address, its headers, up to 8 KB of its body, see {@code lazarus.cli}), and every
 * sign-in makes one, which keeps the last pages it showed.
 * <ul>
 * <li>A session nobody signed in to ends after {@code lazarus.http.anonymous-session-seconds} (60) without a request,
 * not after the 30 minutes of a signed-in one: enough to sign in, too short to pile up; and there are at most
 * {@code lazarus.http.anonymous-sessions} (1 000) of them: one more ends the one least recently used. (A sign-in after
 * its session ended still works: it lands on the dashboard instead of the page first asked for.)</li>
 * <li>A session that signs in is no longer one of those (signing in gives it a new id, against session fixation): the
 * sessions anyone makes meanwhile cannot end it before its first page. Until that page it is one of at most as many
 * sessions signing in, which only sign-ins make.</li>
 * <li>A user has at most {@code lazarus.http.sessions-per-user} (20) signed-in sessions: signing in once more ends the
 * one they used least recently. However often a viewer signs in, the sessions they hold stay that many.</li>
 * </ul>
 * The API keeps no session at all (each call signs in with Basic and out again, {@link ApiSecurity}).
 */
@WebListener
@WebFilter(urlPatterns = "/admin/*")
public class SessionLimits extends HttpFilter implements HttpSessionListener, HttpSessionIdListener {

    private static final long serialVersionUID = 1L;
    /** The attribute that marks a session as signed in and counted, with the user it is counted for. */
    static final String COUNTED_FOR = SessionLimits.class.getName() + ".user";

    /**
     * The sessions nobody signed in to, those signed in to but not yet counted for their user (until their first page),
     * and each user's signed-in sessions, by session id, oldest first. Guarded by {@link #LOCK}.
     */
    private static final LinkedHashMap<String, HttpSession> ANONYMOUS = new LinkedHashMap<>();
    private static final LinkedHashMap<String, HttpSession> SIGNING_IN = new LinkedHashMap<>();
    private static final Map<String, LinkedHashMap<String, HttpSession>> SIGNED_IN = new LinkedHashMap<>();
    private static final Object LOCK = new Object();

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        HttpSession session = event.getSession();
        session.setMaxInactiveInterval(setting("lazarus.http.anonymous-session-seconds", 60));
        List<HttpSession> ending;
        synchronized (LOCK) {
            ANONYMOUS.put(session.getId(), session);
            ending = leastRecentlyUsedBeyond(ANONYMOUS, anonymousCap());
        }
        ending.forEach(SessionLimits::end);
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        String id = event.getSession().getId();
        synchronized (LOCK) {
            ANONYMOUS.remove(id);
            SIGNING_IN.remove(id);
            SIGNED_IN.values().forEach(sessions -> sessions.remove(id));
            SIGNED_IN.values().removeIf(Map::isEmpty);
        }
    }

    /**
     * A sign-in gives its session a new id (against session fixation): the books follow it, and a session nobody had
     * signed in to is now signing in (it is counted for its user at its first page, where the user is known).
     */
    @Override
    public void sessionIdChanged(HttpSessionEvent event, String oldId) {
        HttpSession session = event.getSession();
        List<HttpSession> ending = List.of();
        synchronized (LOCK) {
            if (ANONYMOUS.remove(oldId) != null || SIGNING_IN.remove(oldId) != null) {
                SIGNING_IN.put(session.getId(), session);
                ending = leastRecentlyUsedBeyond(SIGNING_IN, anonymousCap());
            }
            for (LinkedHashMap<String, HttpSession> sessions : SIGNED_IN.values()) {
                if (sessions.remove(oldId) != null) {
                    sessions.put(session.getId(), session);
                }
            }
        }
        ending.forEach(SessionLimits::end);
    }

    /**
     * The first signed-in request of a session: it gets a signed-in session's lifetime, stops counting as anonymous, and
     * counts for its user (once, however many of its first requests come at once).
     */
    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        Principal user = request.getUserPrincipal();
        HttpSession session = request.getSession(false);
        if (user != null && session != null && session.getAttribute(COUNTED_FOR) == null) {
            List<HttpSession> ending = List.of();
            boolean counted = false;
            synchronized (LOCK) {
                if (session.getAttribute(COUNTED_FOR) == null) {
                    session.setAttribute(COUNTED_FOR, user.getName());
                    counted = true;
                    ANONYMOUS.remove(session.getId());
                    SIGNING_IN.remove(session.getId());
                    LinkedHashMap<String, HttpSession> sessions = SIGNED_IN.computeIfAbsent(user.getName(), name -> new LinkedHashMap<>());
                    sessions.put(session.getId(), session);
                    ending = leastRecentlyUsedBeyond(sessions, setting("lazarus.http.sessions-per-user", 20));
                }
            }
            if (counted) {
                session.setMaxInactiveInterval(request.getServletContext().getSessionTimeout() * 60);
            }
            ending.forEach(SessionLimits::end);
        }
        chain.doFilter(request, response);
    }

    /**
     * Takes the least recently used of {@code sessions} out of them while they are more than {@code cap}, to be ended
     * (outside the lock: ending one calls {@link #sessionDestroyed}). Least recently used, not oldest: a session in use
     * for an hour is not the one to end.
     */
    private static List<HttpSession> leastRecentlyUsedBeyond(Map<String, HttpSession> sessions, int cap) {
        List<HttpSession> ending = new ArrayList<>();
        while (sessions.size() > cap) {
            Map.Entry<String, HttpSession> idlest = null;
            for (Map.Entry<String, HttpSession> each : sessions.entrySet()) {
                if (idlest == null || lastUsed(each.getValue()) < lastUsed(idlest.getValue())) {
                    idlest = each;
                }
            }
            ending.add(sessions.remove(idlest.getKey()));
        }
        return ending;
    }

    private static long lastUsed(HttpSession session) {
        try {
            return session.getLastAccessedTime();
        } catch (IllegalStateException ended) {
            return Long.MIN_VALUE; // ended meanwhile: the first to go from the books
        }
    }

    private static int anonymousCap() {
        return setting("lazarus.http.anonymous-sessions", 1_000);
    }

    private static void end(HttpSession session) {
        try {
            session.invalidate();
        } catch (IllegalStateException alreadyEnded) {
            // it ended meanwhile
        }
    }

    private static int setting(String name, int otherwise) {
        return ConfigProvider.getConfig().getOptionalValue(name, Integer.class).filter(value -> value > 0).orElse(otherwise);
    }
}
