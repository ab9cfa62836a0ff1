package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.inject.spi.CDI;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
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
 * The pooled connection factory lends a broker session to one caller at a time, outside a transaction from the moment
 * the caller takes it until it closes it. A caller that still uses the session after handing it back (the resource
 * adapter deletes a connection's temporary queues when the connection closes, by then the session's next borrower may
 * be sending on it) shares it with another thread, which the broker's client reports as AMQ212051 and which may mix
 * their calls up. Runs inside the server and reads its log.
 */
@ExtendWith(ArquillianExtension.class)
class BrokerSessionsIT {

    private static final String CONCURRENT_USE = "AMQ212051";

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(BrokerSessionsIT.class);
    }

    /** The management calls of the dashboard's readings, the holds and the reconciler, made at once from six threads. */
    @Test
    void managementCallsMadeAtOnceNeverShareASession() throws Exception {
        BrokerManagement management = CDI.current().select(BrokerManagement.class).get();
        Brokers brokers = CDI.current().select(Brokers.class).get();
        long logged = serverLog().length();
        Brokers.Broker broker = brokers.all().get(0);
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
    }

    private static File serverLog() {
        return new File(System.getProperty("jboss.server.log.dir"), "server.log");
    }

    private static int occurrencesSince(long offset, String text) throws Exception {
        try (RandomAccessFile log = new RandomAccessFile(serverLog(), "r")) {
            log.seek(offset);
            byte[] added = new byte[(int) (log.length() - offset)];
            log.readFully(added);
            String since = new String(added, StandardCharsets.UTF_8);
            int count = 0;
            for (int at = since.indexOf(text); at >= 0; at = since.indexOf(text, at + 1)) {
                count++;
            }
            return count;
        }
    }
}
