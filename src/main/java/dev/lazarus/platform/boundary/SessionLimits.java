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
import jakarta.servlet.http.HttpSessionListener;
import java.io.IOException;
import java.security.Principal;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * What sessions may cost, whoever makes them. A session is the one thing on this server that anyone can make more of
 * just by asking: every request for a page without signing in leaves one (the server keeps the page asked for, to
 * return to it after the sign-in), and every sign-in makes one, which keeps the last pages it showed.
 * <ul>
 * <li>A session nobody signed in to ends after {@code lazarus.http.anonymous-session-seconds} (60) without a request,
 * not after the 30 minutes of a signed-in one: enough to sign in, too short to pile up. (A sign-in after that still
 * works; it lands on the dashboard instead of the page first asked for.)</li>
 * <li>A user has at most {@code lazarus.http.sessions-per-user} (20) signed-in sessions: signing in once more ends the
 * oldest. However often a viewer signs in, the sessions they hold stay that many.</li>
 * </ul>
 * The API keeps no session at all (each call signs in with Basic and out again, {@link ApiSecurity}).
 */
@WebListener
@WebFilter(urlPatterns = "/admin/*")
public class SessionLimits extends HttpFilter implements HttpSessionListener {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(SessionLimits.class.getName());
    /** The attribute that marks a session as signed in and counted, with the user it is counted for. */
    static final String COUNTED_FOR = SessionLimits.class.getName() + ".user";

    /** Each user's signed-in sessions, oldest first, by id (a session's id is fixed once signed in). Guarded by itself. */
    private static final Map<String, Deque<Counted>> SIGNED_IN = new HashMap<>();

    private record Counted(String id, HttpSession session) {
    }

    @Override
    public void sessionCreated(HttpSessionEvent event) {
        event.getSession().setMaxInactiveInterval(setting("lazarus.http.anonymous-session-seconds", 60));
    }

    @Override
    public void sessionDestroyed(HttpSessionEvent event) {
        Object user = event.getSession().getAttribute(COUNTED_FOR);
        if (user != null) {
            synchronized (SIGNED_IN) {
                Deque<Counted> sessions = SIGNED_IN.get(user.toString());
                if (sessions != null) {
                    String ended = event.getSession().getId();
                    sessions.removeIf(counted -> counted.id().equals(ended));
                    if (sessions.isEmpty()) {
                        SIGNED_IN.remove(user.toString());
                    }
                }
            }
        }
    }

    /** The first signed-in request of a session: it gets a signed-in session's lifetime, and is counted for its user. */
    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        Principal user = request.getUserPrincipal();
        HttpSession session = request.getSession(false);
        if (user != null && session != null && session.getAttribute(COUNTED_FOR) == null) {
            session.setAttribute(COUNTED_FOR, user.getName());
            session.setMaxInactiveInterval(request.getServletContext().getSessionTimeout() * 60);
            HttpSession oldest = null;
            synchronized (SIGNED_IN) {
                Deque<Counted> sessions = SIGNED_IN.computeIfAbsent(user.getName(), name -> new ArrayDeque<>());
                sessions.addLast(new Counted(session.getId(), session));
                if (sessions.size() > setting("lazarus.http.sessions-per-user", 20)) {
                    oldest = sessions.pollFirst().session();
                }
            }
            if (oldest != null) {
                LOG.log(Level.FINE, "User {0} signed in once more than sessions-per-user allows; their oldest session ends", user.getName());
                try {
                    oldest.invalidate();
                } catch (IllegalStateException alreadyEnded) {
                    // it ended meanwhile
                }
            }
        }
        chain.doFilter(request, response);
    }

    private static int setting(String name, int otherwise) {
        return ConfigProvider.getConfig().getOptionalValue(name, Integer.class).filter(value -> value > 0).orElse(otherwise);
    }
}
