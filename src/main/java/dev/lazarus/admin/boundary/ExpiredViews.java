package dev.lazarus.admin.boundary;

import jakarta.faces.FacesException;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.application.ViewExpiredException;
import jakarta.faces.context.ExceptionHandler;
import jakarta.faces.context.ExceptionHandlerFactory;
import jakarta.faces.context.ExceptionHandlerWrapper;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.faces.event.ExceptionQueuedEvent;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A button pressed on a page whose view the server no longer keeps (it keeps a few per session, see web.xml, and none
 * after the session ended; nor any a request names that is not the page's own, see {@link PageViews}) does nothing and
 * says so: the page is fetched again, fresh, with a message, instead of an error page. Nothing was done, so nothing is
 * lost; the operator presses the button again on the current page.
 */
public class ExpiredViews extends ExceptionHandlerFactory {

    public ExpiredViews(ExceptionHandlerFactory wrapped) {
        super(wrapped);
    }

    @Override
    public ExceptionHandler getExceptionHandler() {
        return new Handler(getWrapped().getExceptionHandler());
    }

    static final class Handler extends ExceptionHandlerWrapper {

        Handler(ExceptionHandler wrapped) {
            super(wrapped);
        }

        @Override
        public void handle() throws FacesException {
            for (Iterator<ExceptionQueuedEvent> events = getUnhandledExceptionQueuedEvents().iterator(); events.hasNext(); ) {
                Throwable thrown = events.next().getContext().getException();
                if (thrown instanceof ViewExpiredException expired) {
                    events.remove();
                    reload(expired);
                    return;
                }
            }
            getWrapped().handle();
        }

        private static void reload(ViewExpiredException expired) {
            FacesContext faces = FacesContext.getCurrentInstance();
            ExternalContext external = faces.getExternalContext();
            if (external.isResponseCommitted()) {
                return; // answered already: a posted address that is no page at all is a 404, which Faces has sent
            }
            external.getFlash().setKeepMessages(true);
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_WARN, FacesActions.OUT_OF_DATE, null));
            try {
                external.redirect(pageOf(faces, expired.getViewId(), false));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            faces.responseComplete();
        }
    }

    /**
     * The page a button was on, with its parameters (an id, a filter), to draw it again as it is now: if its view was
     * restored, the page's parameters as it was drawn with them (its view's state keeps them, {@link PageParameter});
     * otherwise the address the form was posted to, which is the page's own with its parameters ({@link PageViews}),
     * without what only Faces reads ({@code jakarta.faces.ViewState} and the like: a view state in the address of a
     * page is what brought the request here).
     */
    static String pageOf(FacesContext faces, String viewId, boolean restored) {
        ExternalContext external = faces.getExternalContext();
        if (!PAGE.matcher(viewId).matches()) {
            // the view id is the request's path, decoded: whoever wrote the address chose it (control characters, a
            // header of its own); nothing of it goes into the answer's Location, the dashboard does
            return external.getRequestContextPath() + DASHBOARD;
        }
        if (restored) {
            return faces.getApplication().getViewHandler().getRedirectURL(faces, viewId, Map.of(), true);
        }
        String query = ((HttpServletRequest) external.getRequest()).getQueryString(); // as sent: encoded, no control characters
        String parameters = query == null || query.length() > MAX_QUERY ? "" : Arrays.stream(query.split("&"))
                .filter(parameter -> !parameter.isEmpty() && !onlyForFaces(parameter)).collect(Collectors.joining("&"));
        return external.getRequestContextPath() + viewId + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** A page of this application: what a view id may be to be sent back in a redirect. */
    private static final java.util.regex.Pattern PAGE = java.util.regex.Pattern.compile("/[A-Za-z0-9][A-Za-z0-9/._-]{0,199}");
    private static final String DASHBOARD = "/admin/dashboard.xhtml";
    /** A page's parameters (an id, a filter) are short; a longer query is not sent back, the page is drawn without it. */
    private static final int MAX_QUERY = 8 * 1024;

    private static boolean onlyForFaces(String parameter) {
        try {
            return URLDecoder.decode(parameter, StandardCharsets.UTF_8).startsWith("jakarta.faces.");
        } catch (IllegalArgumentException notEncoded) {
            return true; // not a parameter a page reads either
        }
    }
}
