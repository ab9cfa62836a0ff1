package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.inject.spi.CDI;
import java.io.File;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the server's log must not say while Lazarus works as it should: each warning here was a defect that lost
 * nothing and that only the log showed, hundreds of times per drill, each with a stack trace. Runs inside the server and
 * reads its log.
 */
@ExtendWith(ArquillianExtension.class)
class QuietServerLogIT {

    /** The broker's client: a session used by two threads at once. */
    private static final String CONCURRENT_USE = "AMQ212051";

    /** The connection manager: a database connection given back outside the call that took it. */
    private static final String UNKNOWN_CONNECTION = "IJ000311";

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(QuietServerLogIT.class, Api.class, Api.Response.class, Await.class);
    }

    /**
     * The pooled connection factory lends a broker session to one caller at a time, outside a transaction from the moment
     * the caller takes it until it closes it. A caller that still used the session after handing it back (the resource
     * adapter deletes a connection's temporary queues when the connection closes, by then the session's next borrower
     * may be sending on it) shared it with another thread. Here the management calls of the dashboard's readings, the
     * holds and the reconciler, made at once from six threads.
     */
    @Test
    void managementCallsMadeAtOnceNeverShareASession() throws Exception {
        BrokerManagement management = CDI.current().select(BrokerManagement.class).get();
        Brokers brokers = CDI.current().select(Brokers.class).get();
        long logged = serverLog().length();
        Brokers.Broker broker = brokers.all().get(0);
        int queuesBefore = queueCount(management, broker);
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                calls.add(callers.submit(() -> management.invoke(broker, BrokerManagement.BROKER, "getVersion")));
            }
            for (Future<String> call : calls) {
                assertTrue(call.get().contains("."), "the broker's version");
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(0, occurrencesSince(logged, CONCURRENT_USE), "sessions used by two threads at once (" + CONCURRENT_USE
                + " in the server's log)");
        // and each call's temporary reply queue is gone with it (one the broker could not delete stays as long as the
        // pooled connection lives: a queue per reading of the dashboard); other calls' queues come and go meanwhile
        Await.until("the calls' reply queues deleted", Duration.ofSeconds(30), () -> queueCount(management, broker),
                count -> count <= queuesBefore + 2);
    }

    private static int queueCount(BrokerManagement management, Brokers.Broker broker) {
        // the broker answers with its result in an array: [["name", ...]]
        try (jakarta.json.JsonReader reader = jakarta.json.Json.createReader(new java.io.StringReader(
                management.invoke(broker, BrokerManagement.BROKER, "getQueueNames")))) {
            jakarta.json.JsonArray answer = reader.readArray();
            return answer.get(0) instanceof jakarta.json.JsonArray names ? names.size() : answer.size();
        }
    }

    /**
     * A failing step writes its attempt in a transaction of its own, and the dead letter in another. Hibernate gave their
     * connections back while the transaction completed, after the container had closed the call that took them, and the
     * connection manager logged each as unknown (IJ000311, at INFO, with a stack trace: 2 553 in one crash drill).
     */
    @Test
    void failingStepsGiveTheirConnectionsBackWithinTheirCalls() throws Exception {
        int offset = Integer.getInteger("jboss.socket.binding.port-offset", 0);
        Api operator = new Api(URI.create("http://127.0.0.1:" + (8080 + offset) + "/lazarus/").toURL(), "operator", "operator-pw");
        long logged = serverLog().length();
        String retried = operator.startRun("{\"failures\": {\"fetch\": {\"mode\": \"always\"}}}");
        String permanent = operator.startRun("{\"failures\": {\"fetch\": {\"mode\": \"permanent\"}}}");
        Await.until("both runs dead-lettered", Duration.ofSeconds(90), () -> List.of(operator.run(retried), operator.run(permanent)),
                runs -> runs.stream().allMatch(r -> "DEAD_LETTERED".equals(r.getString("state"))));
        assertEquals(0, occurrencesSince(logged, UNKNOWN_CONNECTION), "connections the connection manager did not know ("
                + UNKNOWN_CONNECTION + " in the server's log)");
    }

    private static File serverLog() {
        return new File(System.getProperty("jboss.server.log.dir"), "server.log");
    }

    /** In the log since {@code offset}: if the log was rotated meanwhile (at midnight), the rotated file's end counts too. */
    private static int occurrencesSince(long offset, String text) throws Exception {
        File current = serverLog();
        if (current.length() >= offset) {
            return occurrences(read(current, offset), text);
        }
        File[] rotated = current.getParentFile().listFiles((dir, name) -> name.startsWith("server.log."));
        File newest = rotated == null ? null : java.util.Arrays.stream(rotated).max(java.util.Comparator.comparingLong(File::lastModified))
                .orElse(null);
        return (newest == null ? 0 : occurrences(read(newest, offset), text)) + occurrences(read(current, 0), text);
    }

    private static String read(File file, long offset) throws Exception {
        try (RandomAccessFile log = new RandomAccessFile(file, "r")) {
            long from = Math.min(offset, log.length());
            log.seek(from);
            byte[] added = new byte[(int) (log.length() - from)];
            log.readFully(added);
            return new String(added, StandardCharsets.UTF_8);
        }
    }

    private static int occurrences(String in, String text) {
        int count = 0;
        for (int at = in.indexOf(text); at >= 0; at = in.indexOf(text, at + 1)) {
            count++;
        }
        return count;
    }
}
