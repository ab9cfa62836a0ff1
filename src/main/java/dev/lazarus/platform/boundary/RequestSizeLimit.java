package dev.lazarus.platform.boundary;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.servlet.ServletExtension;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.util.Headers;
import jakarta.servlet.ServletContext;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one limit on request bodies, answered like every other refusal. WildFly's HTTP listener would refuse a
 * body over its {@code max-post-size} itself, with a bare 400 and no body, before the application sees the
 * request; {@code wildfly-config/lazarus.cli} therefore lifts that limit (0) and this handler, the first of the
 * deployment (before security, forms and servlets), enforces {@code lazarus.http.max-request-bytes} (1 MiB by
 * default) instead: a declared length over it is answered 413 with a problem body and the connection closed
 * without reading the body; a body without a declared length (chunked) is cut off when it passes the limit,
 * and refused (411) outside the API, where the server would parse it whole as a form.
 * The API's own, smaller limits (a run's payload) still apply after it.
 */
public class RequestSizeLimit implements ServletExtension {

    private static final Logger LOG = Logger.getLogger(RequestSizeLimit.class.getName());
    public static final String PROPERTY = "lazarus.http.max-request-bytes";
    static final long DEFAULT = 1024 * 1024;

    @Override
    public void handleDeployment(DeploymentInfo deployment, ServletContext context) {
        long limit = limit();
        LOG.log(Level.INFO, "Request bodies are limited to {0,number,#} bytes ({1})", new Object[] {limit, PROPERTY});
        String api = context.getContextPath() + "/api/";
        deployment.addInitialHandlerChainWrapper(next -> limited(next, limit, api));
    }

    /** The most bytes a request body may have ({@value #PROPERTY}, a system property). */
    public static long limit() {
        return Long.getLong(PROPERTY, DEFAULT);
    }

    private static HttpHandler limited(HttpHandler next, long limit, String api) {
        return exchange -> {
            long declared = exchange.getRequestContentLength();
            if (declared > limit) {
                refuse(exchange, 413, "Payload too large",
                        "the request body has " + declared + " bytes; this server accepts at most " + limit + " (" + PROPERTY + ")");
                return;
            }
            if (declared < 0 && exchange.getRequestHeaders().contains(Headers.TRANSFER_ENCODING)
                    && !exchange.getRequestPath().startsWith(api)) {
                // A form (login, admin pages) is parsed whole by the server, which could only fail half-way through
                // a body too long; browsers always declare a form's length, so a form without one is refused here.
                // The API reads bodies itself, within its own smaller limits.
                refuse(exchange, 411, "Length required", "a form must declare its Content-Length");
                return;
            }
            exchange.setMaxEntitySize(limit);
            next.handleRequest(exchange);
        };
    }

    private static void refuse(HttpServerExchange exchange, int status, String title, String detail) {
        exchange.setStatusCode(status);
        exchange.setPersistent(false); // the body is never read: close the connection rather than drain it
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON);
        exchange.getResponseSender().send(ProblemMapper.problemJson(status, title, detail));
    }
}
