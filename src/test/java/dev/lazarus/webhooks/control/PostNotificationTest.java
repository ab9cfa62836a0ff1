package dev.lazarus.webhooks.control;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.lazarus.pipeline.control.PermanentStepFailure;
import dev.lazarus.pipeline.control.StepProcessor;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PostNotificationTest {

    private HttpServer server;
    private final CountDownLatch cutOff = new CountDownLatch(1);

    @BeforeEach
    void receiverThatAnswersAndThenTricklesItsBody() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/trickle", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 0); // chunked: a body without end
            try (OutputStream body = exchange.getResponseBody()) {
                for (int i = 0; i < 600; i++) { // two minutes at most
                    body.write('x');
                    body.flush();
                    Thread.sleep(200);
                }
            } catch (IOException e) {
                cutOff.countDown(); // the client closed the connection
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void anAnswerWhoseBodyTricklesFailsTheAttemptWithinTheBoundAndIsCutOff() {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/trickle"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        long started = System.nanoTime();

        HttpTimeoutException failed = assertThrows(HttpTimeoutException.class,
                () -> PostNotification.exchange(client, request, Duration.ofMillis(1500), "webhook chat"));

        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(tookMillis < 5000, "ended after " + tookMillis + " ms");
        assertTrue(failed.getMessage().contains("webhook chat did not answer completely within 1500 ms"), failed.getMessage());
        assertFalse(StepProcessor.isNonRetryable(failed), "a timeout is retried");
        assertTrue(assertDoesNotThrow(() -> cutOff.await(10, TimeUnit.SECONDS)), "the exchange was cancelled: the receiver saw the connection close");
    }

    @Test
    void aRefusalIsPermanentButTimeoutsThrottlingAndServerErrorsAreRetried() {
        assertDoesNotThrow(() -> PostNotification.requireDelivered(204, "webhook chat"));
        for (int refused : new int[] {400, 401, 403, 404, 410, 413, 422}) {
            PermanentStepFailure e = assertThrows(PermanentStepFailure.class, () -> PostNotification.requireDelivered(refused, "webhook chat"));
            assertTrue(StepProcessor.isNonRetryable(e), "HTTP " + refused);
            assertTrue(e.getMessage().contains("HTTP " + refused), e.getMessage());
        }
        for (int retried : new int[] {408, 429, 500, 502, 503, 301, 302}) {
            IOException e = assertThrows(IOException.class, () -> PostNotification.requireDelivered(retried, "webhook chat"));
            assertFalse(StepProcessor.isNonRetryable(e), "HTTP " + retried);
            assertEquals("webhook chat answered HTTP " + retried, e.getMessage());
        }
    }
}
