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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;

/**
 * A button pressed on a page whose view the server no longer keeps (it keeps a few per session, see web.xml, and none
 * after the session ended) does nothing and says so: the page is fetched again, fresh, with a message, instead of an
 * error page. Nothing was done, so nothing is lost; the operator presses the button again on the current page.
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
            external.getFlash().setKeepMessages(true);
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_WARN, FacesActions.OUT_OF_DATE, null));
            try {
                external.redirect(pageOf(external, expired.getViewId()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            faces.responseComplete();
        }
    }

    /**
     * The page the button was on, with its parameters (an id, a filter), which a postback does not carry: the page's own
     * address as the browser sent it (Referer: same-origin requests carry it, see SecurityHeaders), if it is a page of
     * this application on this server; otherwise the view without parameters.
     */
    static String pageOf(ExternalContext external, String viewId) {
        String page = external.getRequestContextPath() + viewId;
        String referer = external.getRequestHeaderMap().get("Referer");
        if (referer == null) {
            return page;
        }
        try {
            java.net.URI from = java.net.URI.create(referer);
            java.net.URI self = java.net.URI.create(((jakarta.servlet.http.HttpServletRequest) external.getRequest()).getRequestURL().toString());
            boolean sameOrigin = java.util.Objects.equals(from.getScheme(), self.getScheme())
                    && java.util.Objects.equals(from.getHost(), self.getHost()) && from.getPort() == self.getPort();
            if (sameOrigin && page.equals(from.getRawPath())) {
                return from.getRawPath() + (from.getRawQuery() == null ? "" : "?" + from.getRawQuery());
            }
        } catch (IllegalArgumentException notAnAddress) {
            // fall through: the view without its parameters
        }
        return page;
    }
}
