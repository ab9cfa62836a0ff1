package dev.lazarus.platform.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;

/**
 * Authentication and authorization of the REST API, in one place: HTTP Basic against the server's realm
 * (never a browser session, so a page a user visits cannot act through their login), reading for
 * {@code viewer} or {@code operator}, everything else for {@code operator} only, and state-changing calls
 * only with {@code Content-Type: application/json}, which no cross-site HTML form can send. Refusals are
 * problems: 401 with a Basic challenge, 403, 415. The services check the operator role again
 * ({@code @RolesAllowed}), so this filter is not the only guard.
 */
@WebFilter(urlPatterns = "/api/*")
public class ApiSecurity extends HttpFilter {

    private static final long serialVersionUID = 1L;
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String[] credentials = basicCredentials(request.getHeader("Authorization"));
        if (credentials == null) {
            challenge(response, "this API needs HTTP Basic credentials of a user with the viewer or operator role");
            return;
        }
        boolean hadSession = request.getSession(false) != null;
        try {
            request.login(credentials[0], credentials[1]);
        } catch (ServletException wrong) {
            endSessionMadeHere(request, hadSession);
            challenge(response, "wrong user name or password");
            return;
        }
        try {
            boolean reading = SAFE_METHODS.contains(request.getMethod());
            if (reading ? !(request.isUserInRole("viewer") || request.isUserInRole("operator")) : !request.isUserInRole("operator")) {
                problem(response, 403, "Forbidden", reading ? "reading needs the viewer or operator role"
                        : "this action needs the operator role");
                return;
            }
            if (!reading && !isJson(request.getContentType())) {
                problem(response, 415, "Unsupported Media Type",
                        "send actions with Content-Type: application/json (this guards against cross-site form posts)");
                return;
            }
            chain.doFilter(request, response);
        } finally {
            try {
                request.logout();
            } catch (IllegalStateException sessionEnded) {
                // the session signing in made has ended already (a request longer than an unused session lives,
                // lazarus.http.anonymous-session-seconds): there is nothing left to sign out of
            }
            endSessionMadeHere(request, hadSession); // no session outlives the call (signing in made one)
        }
    }

    private static void endSessionMadeHere(HttpServletRequest request, boolean hadSession) {
        jakarta.servlet.http.HttpSession session = hadSession ? null : request.getSession(false);
        if (session != null) {
            try {
                session.invalidate();
            } catch (IllegalStateException alreadyEnded) {
                // ended meanwhile
            }
        }
    }

    private static String[] basicCredentials(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        try {
            String decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon <= 0 ? null : new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)};
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    private static boolean isJson(String contentType) {
        return contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/json");
    }

    private static void challenge(HttpServletResponse response, String detail) throws IOException {
        response.setHeader("WWW-Authenticate", "Basic realm=\"Lazarus\", charset=\"UTF-8\"");
        problem(response, 401, "Unauthorized", detail);
    }

    private static void problem(HttpServletResponse response, int status, String title, String detail) throws IOException {
        response.setStatus(status);
        response.setContentType(ProblemMapper.PROBLEM_JSON); // JSON is UTF-8 by definition: no charset parameter
        response.getOutputStream().write(JSON.createObjectBuilder()
                .add("type", "about:blank").add("title", title).add("status", status).add("detail", detail)
                .build().toString().getBytes(StandardCharsets.UTF_8));
    }
}
