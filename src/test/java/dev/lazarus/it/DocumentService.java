package dev.lazarus.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The test stack's stand-in document service (wildfly-config/DocumentService.java), which the demo's fetch step
 * calls: read directly, and taken down and brought back with the stack script's {@code documents-stop} and
 * {@code documents-start}, as an operator or the outage drill would. Every other test needs it running: a test that
 * stops it starts it again whatever happens ({@code documents-start} does nothing if it runs).
 */
public final class DocumentService {

    private final int port = Integer.getInteger("it.documents.port", 8190);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    /** The document the service serves for {@code url}, as text. */
    public String document(String url) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/documents?url=" + URLEncoder.encode(url, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new AssertionError("the document service answered " + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Takes it down: from now on a connection to it is refused. */
    public void stop() {
        stackScript("documents-stop");
    }

    /** Brings it back (nothing happens if it runs). */
    public void start() {
        stackScript("documents-start");
    }

    private static void stackScript(String command) {
        Path repo = Path.of(System.getProperty("it.repo.dir", "."));
        ProcessBuilder script = new ProcessBuilder("bash", repo.resolve("wildfly-config/stack.sh").toString(), command)
                .redirectErrorStream(true);
        // the test stack's directory (target/it), where the service keeps its pid and port; the JDK running the tests runs it
        script.environment().put("STACK_DIR", Path.of(System.getProperty("it.base.dir", "target/it/wildfly")).getParent().toString());
        script.environment().put("JAVA_HOME", System.getProperty("java.home"));
        try {
            Process process = script.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException("stack.sh " + command + " failed:\n" + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
