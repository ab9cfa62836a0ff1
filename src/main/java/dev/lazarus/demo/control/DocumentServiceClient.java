package dev.lazarus.demo.control;

import dev.lazarus.pipeline.control.PermanentStepFailure;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The remote document service the demo fetches from ({@code wildfly-config/DocumentService.java} stands in for it;
 * every stack that runs the demo starts one). What can go wrong is told apart, so that a step's failures say what
 * happened and the same outage reads as one cause: a connection refused, none accepted or no answer in time, or a
 * {@code 5xx} (the service is away or unwell: retrying may help, so an {@link UncheckedIOException} around what
 * happened, and the broker redelivers with the step's backoff), and a {@code 4xx} (the document is not there or
 * the request is wrong: retrying cannot help, a {@link PermanentStepFailure}).
 */
@ApplicationScoped
public class DocumentServiceClient {

    @Inject
    @ConfigProperty(name = "lazarus.demo.documents-url", defaultValue = "http://127.0.0.1:8090")
    String serviceUrl;

    @Inject
    @ConfigProperty(name = "lazarus.demo.documents-connect-timeout", defaultValue = "PT2S")
    Duration connectTimeout;

    @Inject
    @ConfigProperty(name = "lazarus.demo.documents-timeout", defaultValue = "PT2S")
    Duration timeout;

    /** One for every fetch: it keeps the connections to the service open between fetches. */
    private HttpClient http;

    private URI documents;

    public DocumentServiceClient() {
        // for CDI; the settings are injected
    }

    DocumentServiceClient(String serviceUrl, Duration connectTimeout, Duration timeout) {
        this.serviceUrl = serviceUrl;
        this.connectTimeout = connectTimeout;
        this.timeout = timeout;
        connect();
    }

    @PostConstruct
    void connect() {
        documents = URI.create(serviceUrl.replaceFirst("/+$", "") + "/documents");
        // HTTP/1.1: the client would otherwise try an upgrade to HTTP/2 on every new connection
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
    }

    /** The text of the document at {@code url}, as the service serves it. */
    public String fetch(String url) throws PermanentStepFailure, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(documents + "?url=" + URLEncoder.encode(url, StandardCharsets.UTF_8)))
                .timeout(timeout).GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new UncheckedIOException("the document service at " + serviceUrl + " refused the connection", e);
        } catch (HttpConnectTimeoutException e) {
            throw new UncheckedIOException("the document service at " + serviceUrl + " accepted no connection within " + connectTimeout, e);
        } catch (HttpTimeoutException e) {
            throw new UncheckedIOException("the document service at " + serviceUrl + " did not answer within " + timeout, e);
        } catch (IOException e) {
            throw new UncheckedIOException("the document service at " + serviceUrl + " could not be read from: " + e, e);
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return response.body();
        }
        String answer = "the document service at " + serviceUrl + " answered " + status + ": " + firstLine(response.body());
        // 408 and 429 are the service's bad moment (too slow, too busy), not the document's
        if (status >= 400 && status < 500 && status != 408 && status != 429) {
            throw new PermanentStepFailure(answer);
        }
        throw new UncheckedIOException(answer, new IOException("HTTP " + status));
    }

    private static String firstLine(String body) {
        String line = body == null ? "" : body.lines().findFirst().orElse("");
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }
}
