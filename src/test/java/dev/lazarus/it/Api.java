package dev.lazarus.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A caller of the Lazarus REST API, with Basic credentials (or none). */
public class Api {

    // HTTP/1.1: the client would otherwise offer an h2c upgrade on a request with a body, which a refusal before
    // the body is read turns into a connection reset instead of an answer
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String authorization;

    public Api(URL base, String user, String password) {
        this.base = URI.create(base.toString().endsWith("/") ? base.toString() : base + "/");
        this.authorization = user == null ? null
                : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public Response get(String path) {
        return send(request(path).GET());
    }

    public Response post(String path, String body) {
        return postAs(path, "application/json", body);
    }

    public Response postAs(String path, String contentType, String body) {
        return send(request(path).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body)));
    }

    /** A POST of raw bytes (for bodies that are not valid text). */
    public Response postBytes(String path, String contentType, byte[] body) {
        return send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    /**
     * A POST that declares a body of {@code length} bytes and asks, with {@code Expect: 100-continue}, whether to
     * send it, as a client sending a large body should (curl does above 1 MB): the answer of a server that
     * refuses the body by its headers. Over a plain socket, because Java 17's HTTP client waits for ever for a
     * 100 that a refusing server rightly never sends. A negative length declares a chunked body instead.
     */
    public Response postDeclaringLength(String path, String contentType, long length) {
        URI target = base.resolve(path);
        try (Socket socket = new Socket(target.getHost(), target.getPort())) {
            socket.setSoTimeout(30_000);
            String head = "POST " + target.getRawPath() + " HTTP/1.1\r\nHost: " + target.getHost() + ":" + target.getPort()
                    + "\r\nContent-Type: " + contentType
                    + (length < 0 ? "\r\nTransfer-Encoding: chunked" : "\r\nContent-Length: " + length) + "\r\nExpect: 100-continue\r\n"
                    + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            int status = Integer.parseInt(in.readLine().split(" ")[1]);
            String type = "";
            int bodyLength = 0;
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                String name = line.substring(0, line.indexOf(':')).trim().toLowerCase(java.util.Locale.ROOT);
                String value = line.substring(line.indexOf(':') + 1).trim();
                if (name.equals("content-type")) {
                    type = value;
                } else if (name.equals("content-length")) {
                    bodyLength = Integer.parseInt(value);
                }
            }
            char[] body = new char[bodyLength];
            int read = 0;
            while (read < bodyLength) {
                int n = in.read(body, read, bodyLength - read);
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return new Response(status, type, null, "", new String(body, 0, read));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON POST with one more header, e.g. an Idempotency-Key. */
    public Response post(String path, String body, String header, String value) {
        return send(request(path).header("Content-Type", "application/json").header(header, value)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The headers of a GET's answer. */
    public java.util.Map<String, java.util.List<String>> headers(String path) {
        try {
            return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.discarding()).headers().map();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts a demo run and returns its id. */
    public String startRun(String payloadJson) {
        Response created = post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":" + payloadJson + "}");
        if (created.status() != 201) {
            throw new AssertionError("could not start a run: " + created);
        }
        return created.json().getString("id");
    }

    public JsonObject run(String id) {
        return get("api/runs/" + id).ok().json();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        return builder;
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.headers().firstValue("Location").orElse(null),
                    response.headers().firstValue("WWW-Authenticate").orElse(""), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public record Response(int status, String contentType, String location, String wwwAuthenticate, String body) {

        public JsonObject json() {
            try (var reader = Json.createReader(new StringReader(body))) {
                JsonValue value = reader.readValue();
                return value.asJsonObject();
            }
        }

        public Response ok() {
            if (status != 200) {
                throw new AssertionError("expected 200, got " + this);
            }
            return this;
        }
    }
}
