package dev.lazarus.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/**
 * Sends {@link ApiFuzzIT}'s requests exactly as given, and times them. Java's HTTP client refuses some of them
 * itself (a target with a malformed percent escape, a header value with a NUL): those go over a plain socket, as
 * another client would send them. A large body is offered with {@code Expect: 100-continue}, as the reference (REST API) asks of
 * clients (the server answers a body it refuses by its headers and closes the connection without reading it; a client
 * that sent it anyway may lose that answer to the reset), also over a plain socket: Java 17's client waits for ever
 * for a 100 that a refusing server rightly never sends. Every request has {@link #LIMIT} to be answered; not being
 * answered is an outcome, not an exception.
 */
final class FuzzClient {

    static final Duration LIMIT = Duration.ofSeconds(5);
    /**
     * The HTTP listener's max-header-size (lazarus.cli; the reference, "Limits"). The server refuses a longer head with a 400 and
     * closes the connection before reading the rest; a client still writing the rest may lose that answer to the reset.
     */
    static final int MAX_HEAD_BYTES = 16384;
    /** Bodies larger than this are offered with Expect: 100-continue (curl does so above 1 MB). */
    private static final int LARGE = 64 * 1024;

    // HTTP/1.1: see Api (no h2c upgrade that a refusal before the body is read would turn into a reset)
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(LIMIT).build();
    private final String host;
    private final int port;
    private final String root;

    /** What became of a request: a status (or -1 and why there was none), how long it took, the answer's body. */
    record Outcome(int status, long millis, String body, String noAnswer, boolean headOverLimit) {

        boolean answered() {
            return noAnswer == null;
        }

        /** Refused by the listener's head limit: answered with a 400, or by a connection closed at once (not a hang). */
        boolean refusedAsTooLarge() {
            return headOverLimit && (status == 400 || status == 431 || (!answered() && millis < LIMIT.toMillis()));
        }
    }

    FuzzClient(URL base) {
        this.host = base.getHost();
        this.port = base.getPort();
        this.root = base.getProtocol() + "://" + host + ":" + port;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code method} to {@code target} (a path from the server's root with its query, already encoded) with the
     * headers given and, unless {@code body} is null, the body with its content type.
     */
    Outcome send(String method, String target, Map<String, String> headers, byte[] body, String contentType) {
        boolean headOverLimit = headBytes(method, target, headers) > MAX_HEAD_BYTES;
        Outcome outcome = sendExactly(method, target, headers, body, contentType);
        return new Outcome(outcome.status(), outcome.millis(), outcome.body(), outcome.noAnswer(), headOverLimit);
    }

    private static int headBytes(String method, String target, Map<String, String> headers) {
        int bytes = (method + " " + target + " HTTP/1.1\r\n").getBytes(StandardCharsets.UTF_8).length;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            bytes += (header.getKey() + ": " + header.getValue() + "\r\n").getBytes(StandardCharsets.UTF_8).length;
        }
        return bytes;
    }

    private Outcome sendExactly(String method, String target, Map<String, String> headers, byte[] body, String contentType) {
        if (body != null && body.length > LARGE) {
            return sendRaw(method, target, headers, body, contentType);
        }
        HttpRequest request;
        try {
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(root + target)).timeout(LIMIT);
            headers.forEach(builder::header);
            if (body != null) {
                builder.header("Content-Type", contentType);
            }
            request = builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body)).build();
        } catch (IllegalArgumentException refusedByTheClient) {
            return sendRaw(method, target, headers, body, contentType);
        }
        long started = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Outcome(response.statusCode(), millisSince(started), response.body(), null, false);
        } catch (HttpTimeoutException e) {
            return new Outcome(-1, millisSince(started), "", "no answer within " + LIMIT.toSeconds() + " s", false);
        } catch (IOException e) {
            return new Outcome(-1, millisSince(started), "", "no answer: " + e, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The same request written by hand: HTTP/1.1, the connection closed after the answer; a large body only once the
     * server has asked for it with a 100 (Continue).
     */
    private Outcome sendRaw(String method, String target, Map<String, String> headers, byte[] body, String contentType) {
        long started = System.nanoTime();
        boolean offered = body != null && body.length > LARGE;
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout((int) LIMIT.toMillis());
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nConnection: close\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            headers.forEach((name, value) -> head.writeBytes((name + ": " + value + "\r\n").getBytes(StandardCharsets.UTF_8)));
            if (body != null) {
                head.writeBytes(("Content-Type: " + contentType + "\r\nContent-Length: " + body.length + "\r\n"
                        + (offered ? "Expect: 100-continue\r\n" : "")).getBytes(StandardCharsets.UTF_8));
            }
            head.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            out.write(head.toByteArray());
            InputStream in = socket.getInputStream();
            String answer = "";
            if (offered) {
                String interim = readHead(in);
                if (!interim.startsWith("HTTP/1.1 100")) {
                    answer = interim; // answered by its headers: the body is not sent
                    body = null;
                }
            }
            if (body != null) {
                out.write(body);
            }
            out.flush();
            answer += readAll(in);
            long millis = millisSince(started);
            if (!answer.startsWith("HTTP/1.")) {
                return new Outcome(-1, millis, answer, "no answer: the connection closed after " + answer.length() + " bytes", false);
            }
            int status = Integer.parseInt(answer.substring(9, 12));
            int bodyStart = answer.indexOf("\r\n\r\n");
            return new Outcome(status, millis, bodyStart < 0 ? "" : answer.substring(bodyStart + 4), null, false);
        } catch (SocketTimeoutException e) {
            return new Outcome(-1, millisSince(started), "", "no answer within " + LIMIT.toSeconds() + " s", false);
        } catch (IOException e) {
            return new Outcome(-1, millisSince(started), "", "no answer: " + e, false);
        }
    }

    /** The status line and headers of an answer, up to the empty line. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last = 0;
        for (int b = in.read(); b >= 0; b = in.read()) {
            head.write(b);
            last = last << 8 | b;
            if (last == 0x0d0a0d0a) {
                break;
            }
        }
        return head.toString(StandardCharsets.UTF_8);
    }

    /** Until the server closes the connection, or its deadline: a server that answers and then hangs is not answering. */
    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            answer.write(buffer, 0, n);
        }
        return answer.toString(StandardCharsets.UTF_8);
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }
}
