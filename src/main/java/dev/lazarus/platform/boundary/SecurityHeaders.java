package dev.lazarus.platform.boundary;

import io.undertow.server.HttpServerExchange;
import io.undertow.servlet.ServletExtension;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.util.HeaderMap;
import io.undertow.util.HttpString;
import jakarta.servlet.ServletContext;

/**
 * The headers that tell a browser what Lazarus's pages may do, on every answer of the deployment (pages, the login form,
 * the API, error pages): set when the answer is committed, so not even an error page goes without them.
 * <ul>
 * <li>{@code Content-Security-Policy}: scripts, styles, images and forms only from Lazarus itself, no inline script or
 * style, no plugins, and no page may show Lazarus in a frame ({@code frame-ancestors 'none'}): a page elsewhere cannot
 * lay its own buttons over an operator's Requeue (clickjacking), and text an attacker got into a dead letter (an error
 * message, a payload) can never run as script, even if some page forgot to escape it. The pages keep their data in
 * {@code data-} attributes and their one script in a file ({@code resources/lazarus.js}).</li>
 * <li>{@code X-Frame-Options: DENY}: the same for browsers that predate {@code frame-ancestors}.</li>
 * <li>{@code X-Content-Type-Options: nosniff}: a payload served as JSON or text is never run as a script or a page.</li>
 * <li>{@code Referrer-Policy: same-origin}: a link out (the Artemis console, a trace) does not carry the URL of the
 * page it was on, which may hold a run id or a filter.</li>
 * <li>{@code Cache-Control: no-store} on pages and the API: what an operator saw (payloads, errors) is not kept in the
 * browser's cache after they sign out. Static resources (the style sheet, the script) stay cacheable.</li>
 * </ul>
 */
public class SecurityHeaders implements ServletExtension {

    static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private static final HttpString CSP = new HttpString("Content-Security-Policy");
    private static final HttpString FRAME_OPTIONS = new HttpString("X-Frame-Options");
    private static final HttpString CONTENT_TYPE_OPTIONS = new HttpString("X-Content-Type-Options");
    private static final HttpString REFERRER_POLICY = new HttpString("Referrer-Policy");
    private static final HttpString CACHE_CONTROL = new HttpString("Cache-Control");

    @Override
    public void handleDeployment(DeploymentInfo deployment, ServletContext context) {
        String resources = context.getContextPath() + "/jakarta.faces.resource/";
        deployment.addInitialHandlerChainWrapper(next -> exchange -> {
            exchange.addResponseCommitListener(committed -> secure(committed, resources));
            next.handleRequest(exchange);
        });
    }

    private static void secure(HttpServerExchange exchange, String resources) {
        HeaderMap headers = exchange.getResponseHeaders();
        headers.put(CSP, POLICY);
        headers.put(FRAME_OPTIONS, "DENY");
        headers.put(CONTENT_TYPE_OPTIONS, "nosniff");
        headers.put(REFERRER_POLICY, "same-origin");
        if (!exchange.getRequestPath().startsWith(resources)) {
            headers.put(CACHE_CONTROL, "no-store");
        }
    }
}
