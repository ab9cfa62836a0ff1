import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's stand-in for a remote document server: the fetch step of document ingestion calls it over HTTP, so
 * that an outage is a real one (a refused connection, a timeout) and not a flag in a payload. The stack script
 * starts one with every stack that runs the demo and stops it with the stack; {@code stack.sh documents-stop} and
 * {@code documents-start} take it down and bring it back by hand (the outage drill does the same). It needs nothing
 * but the JDK:
 *
 * <pre>java wildfly-config/DocumentService.java PORT [BIND-ADDRESS]     (127.0.0.1 unless told)</pre>
 *
 * <ul>
 *   <li>{@code GET /documents?url=U}: {@code 200} with a short text document made from {@code U} alone (the same
 *       text for the same {@code U}, every time), whose first line is {@code Title: U}; {@code 404} when a segment
 *       of {@code U}'s path is {@code missing} (a document that does not exist); {@code 400} without a {@code url}.</li>
 *   <li>{@code GET /health}: {@code 200 ok}.</li>
 * </ul>
 *
 * It is meant to cost next to nothing beside WildFly, a broker and a database on two cores (50 documents a second
 * for the length of a drill): no log line per request, a handful of threads, keep-alive connections; it says
 * when it starts and stops, and how many documents it served.
 */
public final class DocumentService {

    private static final AtomicLong served = new AtomicLong();

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: java DocumentService.java PORT [BIND-ADDRESS]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        InetAddress bind = args.length > 1 ? InetAddress.getByName(args[1]) : InetAddress.getLoopbackAddress();
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 128);
        ExecutorService workers = Executors.newFixedThreadPool(4, task -> {
            Thread thread = new Thread(task, "documents");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(workers);
        server.createContext("/documents", DocumentService::document);
        server.createContext("/health", exchange -> answer(exchange, 200, "ok\n"));
        server.createContext("/", exchange -> answer(exchange, 404, "no such resource: GET /documents?url=... or /health\n"));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            System.out.println("document service on port " + port + " stopped after serving " + served.get() + " documents");
        }));
        server.start();
        System.out.println("document service listening on http://" + bind.getHostAddress() + ":" + port + "/documents?url=...");
    }

    private static void document(HttpExchange exchange) throws IOException {
        if (!"GET".equals(exchange.getRequestMethod())) {
            answer(exchange, 405, "GET only\n");
            return;
        }
        String url = null;
        String query = exchange.getRequestURI().getRawQuery();
        for (String parameter : query == null ? new String[0] : query.split("&")) {
            if (parameter.startsWith("url=")) {
                try {
                    url = URLDecoder.decode(parameter.substring(4), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException malformed) {
                    answer(exchange, 400, "the url parameter is not URL-encoded: " + malformed.getMessage() + "\n");
                    return;
                }
            }
        }
        if (url == null || url.isEmpty()) {
            answer(exchange, 400, "which document? GET /documents?url=...\n");
        } else if (missing(url)) {
            answer(exchange, 404, "no document at " + url + "\n");
        } else {
            served.incrementAndGet();
            answer(exchange, 200, "Title: " + url + "\n"
                    + "The document at " + url + ", as the stand-in document service serves it to Lazarus over HTTP.\n");
        }
    }

    /** A document that does not exist: a segment of its URL's path (after the scheme and host) is "missing". */
    private static boolean missing(String url) {
        String path = url.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", "").replaceFirst("[?#].*", "");
        for (String segment : path.split("/")) {
            if (segment.equals("missing")) {
                return true;
            }
        }
        return false;
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
