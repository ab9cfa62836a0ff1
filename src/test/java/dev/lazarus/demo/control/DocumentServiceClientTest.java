package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.lazarus.pipeline.control.PermanentStepFailure;
import dev.lazarus.pipeline.control.StepContext;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demo's fetch against the stand-in document service, the very program the stacks run
 * ({@code java wildfly-config/DocumentService.java PORT}), and against servers that misbehave as a remote one
 * may: what each failure is (retried or permanent) and what it says.
 */
class DocumentServiceClientTest {

    private static final Duration SHORT = Duration.ofMillis(500);
    /** The connect timeout where no test is about connecting: a loaded machine (CI, 2 CPUs) may take a second to accept. */
    private static final Duration PATIENT = Duration.ofSeconds(10);

    private static Process service;
    private static DocumentServiceClient client;

    @BeforeAll
    static void startTheStandIn() throws Exception {
        int port = freePort();
        service = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "wildfly-config/DocumentService.java", String.valueOf(port)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!listening(port)) {
            assertTrue(service.isAlive(), "the document service exited with " + (service.isAlive() ? "" : service.exitValue()));
            assertTrue(System.nanoTime() < deadline, "the document service did not listen on " + port + " within 60 s");
            Thread.sleep(100);
        }
        client = new DocumentServiceClient("http://127.0.0.1:" + port + "/", PATIENT, Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopTheStandIn() throws InterruptedException {
        service.destroy();
        service.waitFor(10, TimeUnit.SECONDS);
    }

    @Test
    void theDocumentIsMadeFromItsUrlAloneAndTitledWithIt() throws Exception {
        String document = client.fetch("https://docs.example.org/annual-report.html");

        assertTrue(document.startsWith("Title: https://docs.example.org/annual-report.html\n"), document);
        assertEquals(document, client.fetch("https://docs.example.org/annual-report.html"), "the same every time");
        assertTrue(!document.equals(client.fetch("https://docs.example.org/faq.html")), "another URL, another document");
    }

    @Test
    void anyTextIsAUrlItServesADocumentFor() throws Exception {
        for (String url : new String[] {"urn:lazarus:demo:" + UUID.randomUUID(), "' OR '1'='1 <script>&amp;=?#",
                "\u00e9\u4e2d\ud83d\ude00 \u0000", "x".repeat(60_000)}) {
            assertTrue(client.fetch(url).startsWith("Title: " + url + "\n"), "the document for " + url.substring(0, Math.min(40, url.length())));
        }
    }

    @Test
    void aDocumentTheServiceDoesNotHaveIsAPermanentFailure() {
        PermanentStepFailure failure = assertThrows(PermanentStepFailure.class,
                () -> client.fetch("https://docs.example.org/missing/annual-report.html"));

        assertTrue(failure.getMessage().contains("answered 404: no document at https://docs.example.org/missing/annual-report.html"),
                failure.getMessage());
    }

    @Test
    void aRefusedConnectionIsRetriedAndSaysSo() throws Exception {
        DocumentServiceClient away = new DocumentServiceClient("http://127.0.0.1:" + freePort(), SHORT, SHORT);

        UncheckedIOException failure = assertThrows(UncheckedIOException.class, () -> away.fetch("https://docs.example.org/faq.html"));

        assertInstanceOf(ConnectException.class, failure.getCause());
        assertTrue(failure.getMessage().contains("refused the connection"), failure.getMessage());
    }

    @Test
    void anAnswerThatDoesNotComeInTimeIsRetried() throws Exception {
        CountDownLatch released = new CountDownLatch(1);
        HttpServer slow = server(exchange -> {
            try {
                released.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        try {
            DocumentServiceClient patient = new DocumentServiceClient("http://127.0.0.1:" + slow.getAddress().getPort(), PATIENT, SHORT);

            UncheckedIOException failure = assertThrows(UncheckedIOException.class, () -> patient.fetch("https://docs.example.org/faq.html"));

            assertInstanceOf(HttpTimeoutException.class, failure.getCause());
            assertTrue(failure.getMessage().contains("did not answer within PT0.5S"), failure.getMessage());
        } finally {
            released.countDown();
            slow.stop(0);
        }
    }

    @Test
    void aServerErrorAndTheServicesOwnRefusalsAreRetriedOtherRefusalsAreNot() throws Exception {
        for (int status : new int[] {500, 502, 503, 408, 429}) {
            UncheckedIOException failure = assertThrows(UncheckedIOException.class, () -> answering(status), "status " + status);
            assertTrue(failure.getMessage().contains("answered " + status + ": busy"), failure.getMessage());
        }
        for (int status : new int[] {400, 403, 404, 410}) {
            assertThrows(PermanentStepFailure.class, () -> answering(status), "status " + status);
        }
    }

    @Test
    void theFetchStepCarriesTheDocumentOnInThePayload() throws Exception {
        FetchDocument fetch = new FetchDocument();
        fetch.documents = client;

        JsonObject output = fetch.handle(context(JSON.createObjectBuilder().add("url", "https://docs.example.org/faq.html").add("keep", 1).build(), 1));

        String document = client.fetch("https://docs.example.org/faq.html");
        assertEquals("https://docs.example.org/faq.html", output.getString("url"));
        assertEquals(document, output.getString("content"));
        assertEquals(document.getBytes(StandardCharsets.UTF_8).length, output.getInt("fetchedBytes"));
        assertEquals(1, output.getInt("keep"), "the rest of the payload goes on as it was");
    }

    @Test
    void aFailureThePayloadAsksForComesBeforeTheCall() throws Exception {
        FetchDocument fetch = new FetchDocument();
        fetch.documents = new DocumentServiceClient("http://127.0.0.1:" + freePort(), SHORT, SHORT);
        JsonObject payload = JSON.createObjectBuilder().add("failures", JSON.createObjectBuilder()
                .add("fetch", JSON.createObjectBuilder().add("mode", "permanent"))).build();

        assertThrows(PermanentStepFailure.class, () -> fetch.handle(context(payload, 1)), "the payload's failure, not the refused connection");
    }

    private static void answering(int status) throws Exception {
        HttpServer server = server(exchange -> {
            byte[] body = "busy\nmore".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        try {
            new DocumentServiceClient("http://127.0.0.1:" + server.getAddress().getPort(), PATIENT, PATIENT).fetch("https://docs.example.org/faq.html");
        } finally {
            server.stop(0);
        }
    }

    private static HttpServer server(com.sun.net.httpserver.HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", handler);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
        return server;
    }

    private static StepContext context(JsonObject payload, int attempt) {
        return new StepContext(UUID.randomUUID(), "document-ingestion", "fetch", attempt, 4, attempt - 1, 0, "key", payload);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }
}
