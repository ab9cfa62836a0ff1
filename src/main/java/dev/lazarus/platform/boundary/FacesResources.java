package dev.lazarus.platform.boundary;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * The requests for the pages' style sheet and script ({@code /jakarta.faces.resource/...}), which anyone may make without
 * signing in, kept to what Faces serves without failing. Faces answered two kinds with a 500 and a stack trace in the
 * log, each time: a resource with an empty name ({@code /jakarta.faces.resource/.xhtml}), and an
 * {@code If-Modified-Since} that is not a date.
 * <ul>
 * <li>A name that is not a resource's (letters, digits, {@code . _ -}, folders by {@code /}, no {@code ..}, nothing
 * empty) is a 404, as any resource Faces does not have.</li>
 * <li>An {@code If-Modified-Since} that is no date is no condition: the resource is sent whole.</li>
 * </ul>
 */
@WebFilter(urlPatterns = "/jakarta.faces.resource/*")
public class FacesResources extends HttpFilter {

    private static final long serialVersionUID = 1L;
    private static final String PREFIX = "/jakarta.faces.resource/";
    private static final String FACES_SUFFIX = ".xhtml"; // the Faces servlet's mapping (web.xml)
    private static final Pattern NAME = Pattern.compile("[\\w-][\\w.-]*(/[\\w-][\\w.-]*)*");

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        String name = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : path;
        if (name.endsWith(FACES_SUFFIX)) {
            name = name.substring(0, name.length() - FACES_SUFFIX.length());
        }
        if (!NAME.matcher(name).matches() || name.contains("..")) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        chain.doFilter(new HttpServletRequestWrapper(request) {
            @Override
            public long getDateHeader(String header) {
                try {
                    return super.getDateHeader(header);
                } catch (IllegalArgumentException notADate) {
                    return -1;
                }
            }
        }, response);
    }
}
