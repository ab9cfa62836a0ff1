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
 * {@code lazarus.http.anonymous-sessions} (1 000) of them: one more ends the oldest. (A sign-in after its session ended
 * still works: it lands on the dashboard instead of the page first asked for.)</li>
 * <li>A user has at most {@code lazarus.http.sessions-per-user} (20) signed-in sessions: signing in once more ends the
 * oldest. However often a viewer signs in, the sessions they hold stay that many.</li>
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
     * The sessions nobody signed in to, oldest first, and each user's signed-in sessions, oldest first, by session id.
     * Guarded by {@link #LOCK}.
     */
    private static final LinkedHashMap<String, HttpSession> ANONYMOUS = new LinkedHashMap<>();
    private static final Map<String, LinkedHashMap<String, HttpSession>> SIGNED_IN = new LinkedHashMap<>();
    private static final Object LOCK = new Object();

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        HttpSession session = event.getSession();
        session.setMaxInactiveInterval(setting("lazarus.http.anonymous-session-seconds", 60));
        List<HttpSession> ending = new ArrayList<>();
        synchronized (LOCK) {
            ANONYMOUS.put(session.getId(), session);
            int cap = setting("lazarus.http.anonymous-sessions", 1_000);
            var oldest = ANONYMOUS.entrySet().iterator();
            while (ANONYMOUS.size() > cap && oldest.hasNext()) {
                ending.add(oldest.next().getValue());
                oldest.remove();
            }
        }
        ending.forEach(SessionLimits::end);
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        String id = event.getSession().getId();
        synchronized (LOCK) {
            ANONYMOUS.remove(id);
            SIGNED_IN.values().forEach(sessions -> sessions.remove(id));
            SIGNED_IN.values().removeIf(Map::isEmpty);
        }
    }

    /** A sign-in gives its session a new id (against session fixation): the books follow it. */
    @Override
    public void sessionIdChanged(HttpSessionEvent event, String oldId) {
        HttpSession session = event.getSession();
        synchronized (LOCK) {
            if (ANONYMOUS.remove(oldId) != null) {
                ANONYMOUS.put(session.getId(), session);
            }
            for (LinkedHashMap<String, HttpSession> sessions : SIGNED_IN.values()) {
                if (sessions.remove(oldId) != null) {
                    sessions.put(session.getId(), session);
                }
            }
        }
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
            HttpSession oldest = null;
            boolean counted = false;
            synchronized (LOCK) {
                if (session.getAttribute(COUNTED_FOR) == null) {
                    session.setAttribute(COUNTED_FOR, user.getName());
                    counted = true;
                    ANONYMOUS.remove(session.getId());
                    LinkedHashMap<String, HttpSession> sessions = SIGNED_IN.computeIfAbsent(user.getName(), name -> new LinkedHashMap<>());
                    sessions.put(session.getId(), session);
                    if (sessions.size() > setting("lazarus.http.sessions-per-user", 20)) {
                        var first = sessions.entrySet().iterator();
                        oldest = first.next().getValue();
                        first.remove();
                    }
                }
            }
            if (counted) {
                session.setMaxInactiveInterval(request.getServletContext().getSessionTimeout() * 60);
            }
            if (oldest != null) {
                end(oldest);
            }
        }
        chain.doFilter(request, response);
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
