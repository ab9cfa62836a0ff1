package dev.lazarus.bench;


import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueRequestor;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.activemq.artemis.api.core.management.ResourceNames;
import org.apache.activemq.artemis.api.jms.ActiveMQJMSClient;
import org.apache.activemq.artemis.api.jms.management.JMSManagementHelper;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * Bulk requeue throughput against the broker's own retry, on the same DLQ in the same run.
 *
 * <p>Against the running local stack on PostgreSQL it creates N dead-lettered runs at the parse step as a
 * failure would leave them (run rows, open dead letters, one message each in the step's DLQ), times a bulk
 * requeue job through the API until it completes, then puts N plain messages in the same DLQ and times the
 * broker's {@code retryMessages()} moving them back (to a queue without consumers, so only the move is
 * measured). Configure with -Dbench.app, -Dbench.url/user/password, -Dbench.broker, -Dbench.count (10 000).
 */
public final class BulkRequeueBenchmark {

    static final String PARSE = "lazarus.document-ingestion.parse";
    static final String DLQ = "DLQ." + PARSE;
    static final String RETRY_TARGET = "lazarus.benchmark.retry-target";

    private BulkRequeueBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String app = System.getProperty("bench.app", "http://127.0.0.1:8080/lazarus");
        String url = System.getProperty("bench.url", "jdbc:postgresql://127.0.0.1:5432/lazarus");
        int count = Integer.getInteger("bench.count", 10_000);
        String tag = "bulk-benchmark-" + UUID.randomUUID();
        ActiveMQConnectionFactory broker = new ActiveMQConnectionFactory(System.getProperty("bench.broker", "tcp://127.0.0.1:61616"), "admin", "admin");

        List<UUID> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(UUID.randomUUID());
        }
        try (Connection db = DriverManager.getConnection(url, System.getProperty("bench.user", "lazarus"),
                System.getProperty("bench.password", "lazarus"))) {
            deadLetter(db, runs, tag);
        }
        sendToDlq(broker, runs, PARSE);
        System.out.printf(Locale.ROOT, "%,d dead-lettered runs with their message in %s%n", count, DLQ);

        // The step queue is paused while the job runs so that what is measured is the requeue, not the
        // processing of 10 000 runs competing with it for the same two cores; it is resumed afterwards.
        manage(broker, ResourceNames.QUEUE + PARSE, "pause");
        HttpClient http = HttpClient.newHttpClient();
        String auth = "Basic " + Base64.getEncoder().encodeToString("operator:operator-pw".getBytes(StandardCharsets.UTF_8));
        long start = System.nanoTime();
        HttpResponse<String> started = http.send(HttpRequest.newBuilder(URI.create(app + "/api/requeue-jobs"))
                .header("Authorization", auth).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"filter\":{\"error\":\"" + tag + "\"},\"ratePerSecond\":0}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (started.statusCode() != 202) {
            throw new IllegalStateException("the job did not start: " + started.statusCode() + " " + started.body());
        }
        String job = started.headers().firstValue("Location").orElseThrow();
        JsonObject progress;
        do {
            Thread.sleep(200); // polling the job's progress: the benchmark's clock, not a wait for a condition in a test
            progress = Json.createReader(new StringReader(http.send(HttpRequest.newBuilder(URI.create(job))
                    .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString()).body())).readObject();
        } while ("RUNNING".equals(progress.getString("state")));
        double lazarusSeconds = (System.nanoTime() - start) / 1e9;
        int requeued = progress.getInt("requeued");
        System.out.printf(Locale.ROOT, "Lazarus bulk requeue: %s, %,d requeued (%,d from the DLQ, %,d re-dispatched) in %.2f s = %,.0f/s%n",
                progress.getString("state"), requeued, requeued - progress.getInt("redispatched"), progress.getInt("redispatched"),
                lazarusSeconds, requeued / lazarusSeconds);

        manage(broker, ResourceNames.QUEUE + PARSE, "resume");

        List<UUID> plain = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plain.add(UUID.randomUUID());
        }
        manage(broker, ResourceNames.BROKER, "createQueue", Json.createObjectBuilder().add("name", RETRY_TARGET)
                .add("address", RETRY_TARGET).add("routing-type", "ANYCAST").add("durable", true).build().toString(), true);
        sendToDlq(broker, plain, RETRY_TARGET);
        start = System.nanoTime();
        int before = ((Number) manage(broker, ResourceNames.QUEUE + DLQ, "countMessages")).intValue();
        Object moved = manage(broker, ResourceNames.QUEUE + DLQ, "retryMessages");
        double brokerSeconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "Broker retryMessages() on the same DLQ (%,d messages in it): %s moved in %.2f s = %,.0f/s%n",
                before, moved, brokerSeconds, ((Number) moved).intValue() / brokerSeconds);
        System.out.printf(Locale.ROOT, "Ratio: Lazarus / broker = %.2f (Lazarus also writes each run, its dead letter and audit entry,"
                + " and sends a fresh message with provenance)%n", (requeued / lazarusSeconds) / (((Number) moved).intValue() / brokerSeconds));
        manage(broker, ResourceNames.QUEUE + RETRY_TARGET, "removeAllMessages");
    }

    /** The rows a RETRIES_EXHAUSTED failure at the parse step leaves behind. */
    private static void deadLetter(Connection db, List<UUID> runs, String tag) throws Exception {
        db.setAutoCommit(false);
        Timestamp now = Timestamp.from(Instant.now());
        try (PreparedStatement run = db.prepareStatement("insert into run (id, pipeline, state, current_step, generation, payload,"
                + " requeue_count, created_at, updated_at, finished_at, version) values (?, 'document-ingestion', 'DEAD_LETTERED',"
                + " 'parse', 1, '{}', 0, ?, ?, ?, 0)");
             PreparedStatement deadLetter = db.prepareStatement("insert into dead_letter (id, run_id, open_run_id, pipeline, step_name,"
                     + " queue, dead_letter_queue, reason, status, generation, attempts, error_message, detected_by, created_at,"
                     + " updated_at, version) values (nextval('dead_letter_seq'), ?, ?, 'document-ingestion', 'parse', ?, ?, 'RETRIES_EXHAUSTED', 'PENDING', 1, 3,"
                     + " ?, 'benchmark', ?, ?, 0)")) {
            for (UUID id : runs) {
                run.setObject(1, id);
                run.setTimestamp(2, now);
                run.setTimestamp(3, now);
                run.setTimestamp(4, now);
                run.addBatch();
                deadLetter.setObject(1, id);
                deadLetter.setObject(2, id);
                deadLetter.setString(3, PARSE);
                deadLetter.setString(4, DLQ);
                deadLetter.setString(5, "simulated for " + tag);
                deadLetter.setTimestamp(6, now);
                deadLetter.setTimestamp(7, now);
                deadLetter.addBatch();
            }
            run.executeBatch();
            deadLetter.executeBatch();
        }
        db.commit();
    }

    /** Step messages as the broker leaves them in a DLQ: the step's properties and the original address. */
    private static void sendToDlq(ActiveMQConnectionFactory broker, List<UUID> runs, String originalQueue) throws Exception {
        try (jakarta.jms.Connection connection = broker.createConnection();
             Session session = connection.createSession(true, Session.SESSION_TRANSACTED)) {
            MessageProducer producer = session.createProducer(session.createQueue(DLQ));
            int inTransaction = 0;
            for (UUID id : runs) {
                TextMessage message = session.createTextMessage("{\"runId\":\"" + id + "\",\"step\":\"parse\",\"generation\":1}");
                message.setStringProperty("lazarusRunId", id.toString());
                message.setStringProperty("lazarusStep", "parse");
                message.setLongProperty("lazarusGeneration", 1);
                message.setStringProperty("_AMQ_ORIG_ADDRESS", originalQueue);
                message.setStringProperty("_AMQ_ORIG_QUEUE", originalQueue);
                producer.send(message);
                if (++inTransaction == 500) {
                    session.commit();
                    inTransaction = 0;
                }
            }
            session.commit();
        }
    }

    private static Object manage(ActiveMQConnectionFactory broker, String resource, String operation, Object... arguments) throws Exception {
        try (QueueConnection connection = broker.createQueueConnection();
             QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE)) {
            connection.start();
            Message request = session.createMessage();
            JMSManagementHelper.putOperationInvocation(request, resource, operation, arguments);
            Message reply = new QueueRequestor(session, ActiveMQJMSClient.createQueue("activemq.management")).request(request);
            if (!JMSManagementHelper.hasOperationSucceeded(reply)) {
                throw new IllegalStateException(operation + " failed: " + JMSManagementHelper.getResult(reply));
            }
            return JMSManagementHelper.getResult(reply);
        }
    }
}
