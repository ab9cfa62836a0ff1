package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.JsonObject;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What many viewers cost the server. Runs inside it, so it reads the server's own heap after a full collection and
 * its own database; it browses the pages and the API over HTTP like any client (from the same JVM: what it allocates
 * itself is garbage by the time the heap is read).
 * <ul>
 * <li>Browsing by several signed-in viewers, page after page, keeps the heap where it was: a page keeps what it shows
 * for as long as the session keeps its view, so what a session keeps must not grow with the pages it loads.</li>
 * <li>A viewer's most expensive reads (causes, statistics, the lists with every filter, the pages) answer within 5 s,
 * four at once, over 10 000 dead letters whose texts were written to hurt: lines thousands of characters long that
 * start with {@code at}, stack frames forged in the message, control characters, LIKE wildcards.</li>
 * </ul>
 */
@ExtendWith(ArquillianExtension.class)
class ResourceIT {

    /** A marker in this test's rows and payloads, so it cleans up what it made and nothing else. */
    private static final String HOSTILE_PIPELINE = "hostile-resource-test";
    private static final int HOSTILE_DEAD_LETTERS = 10_000;
    private static final Duration FAST_ENOUGH = Duration.ofSeconds(5);

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(ResourceIT.class, TestFixtures.class, Await.class, Api.class, Api.Response.class, AdminPage.class,
                        AdminPage.Answer.class, SessionCounter.class);
    }

    private TestFixtures fixtures;
    private URL base;
    private Api operator;
    private Api viewer;

    @BeforeEach
    void clients() throws Exception {
        fixtures = CDI.current().select(TestFixtures.class).get();
        int offset = Integer.getInteger("jboss.socket.binding.port-offset", 0);
        base = URI.create("http://127.0.0.1:" + (8080 + offset) + "/lazarus/").toURL();
        operator = new Api(base, "operator", "operator-pw");
        viewer = new Api(base, "viewer", "viewer-pw");
    }

    @Test
    void browsingByManyViewersKeepsTheHeapWhereItWasHoweverManyPagesTheyLoad() throws Exception {
        // 100 dead letters of runs with payloads of about 60 KB: what a page would keep if it kept rows whole
        String marker = "resource-" + Instant.now().toEpochMilli();
        List<String> runs = new ArrayList<>();
        String big = "x".repeat(60_000);
        for (int i = 0; i < 100; i++) {
            runs.add(operator.startRun("{\"url\":\"urn:" + marker + ":" + i + "\",\"blob\":\"" + big + "\","
                    + "\"failures\":{\"fetch\":{\"mode\":\"permanent\"}}}"));
        }
        List<Long> deadLetters = new ArrayList<>();
        try {
            for (String run : runs) {
                JsonObject stopped = Await.until("run " + run + " dead-lettered", Duration.ofSeconds(120), () -> viewer.run(run),
                        r -> "DEAD_LETTERED".equals(r.getString("state")));
                deadLetters.add(stopped.getJsonObject("deadLetter").getJsonNumber("id").longValue());
            }
            List<String> pages = List.of("admin/dead-letters.xhtml", "admin/runs.xhtml", "admin/dead-letter.xhtml?id=" + deadLetters.get(0),
                    "admin/run.xhtml?id=" + runs.get(0), "admin/dashboard.xhtml", "admin/investigation-queue.xhtml",
                    "admin/staleness.xhtml", "admin/steps.xhtml", "admin/webhooks.xhtml", "admin/search.xhtml?q=" + marker,
                    "admin/search.xhtml?q=" + enc("payload.url=urn:" + marker + ":7"));
            List<AdminPage> sessions = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                AdminPage session = new AdminPage(base);
                session.signIn("viewer", "viewer-pw");
                pages.forEach(page -> assertEquals(200, session.open(page).status(), page)); // warm: every page once
                sessions.add(session);
            }
            long before = heapAfterFullCollection();

            browse(sessions, pages, 25);
            long afterFirst = heapAfterFullCollection();
            List<Long> keptFirst = sessions.stream().map(s -> SessionCounter.keptBytes(s.sessionId())).toList();
            browse(sessions, pages, 25);
            long afterSecond = heapAfterFullCollection();
            List<Long> keptSecond = sessions.stream().map(s -> SessionCounter.keptBytes(s.sessionId())).toList();

            long mb = 1024 * 1024;
            String figures = "heap after a full collection: " + before / mb + " MB before, " + afterFirst / mb + " MB after 4 sessions x 25"
                    + " loads of " + pages.size() + " pages, " + afterSecond / mb + " MB after 25 more each; bytes each session keeps "
                    + keptFirst + ", then " + keptSecond;
            System.out.println(figures);
            // what a session keeps, exactly: a few views of a few kilobytes each (one page load kept whole is over 6 MB
            // here), the same after 25 more loads of every page
            for (int i = 0; i < sessions.size(); i++) {
                assertTrue(keptFirst.get(i) < 512 * 1024, "a session keeps a few small views: " + figures);
                assertTrue(keptSecond.get(i) <= keptFirst.get(i) + 16 * 1024, "what a session keeps does not grow with the pages it loads: " + figures);
            }
            // the whole heap, for what pages might keep outside their sessions: in this server, after the other tests,
            // caches and collections move it by some 20 MB between two readings; 1 100 page loads leaking 30 KB each show
            assertTrue(afterFirst - before < 48 * mb, figures);
            assertTrue(afterSecond - afterFirst < 32 * mb, "what the pages keep does not grow with the pages they load: " + figures);
        } finally {
            for (long id : deadLetters) {
                operator.post("api/dead-letters/" + id + "/discard", "{\"note\":\"made by ResourceIT\"}");
            }
        }
    }

    /**
     * Sessions are what anyone can make more of by asking: a request for a page without signing in leaves one (it keeps
     * the page asked for), a sign-in makes one. Those nobody signed in to go soon (the test server: after 5 s), and a user
     * keeps at most 20 signed-in sessions however often they sign in, so neither piles up on the heap.
     */
    @Test
    void sessionsNobodySignedInToGoSoonAndAUserKeepsAFewHoweverOftenTheySignIn() throws Exception {
        long mb = 1024 * 1024;
        long before = heapAfterFullCollection();
        int sessionsBefore = activeSessions();
        int createdBefore = SessionCounter.created();
        java.net.http.HttpClient anonymous = java.net.http.HttpClient.newHttpClient();
        // three times the number kept: enough to see the cap hold (10 000 took CI a minute more and showed nothing more)
        for (int i = 0; i < 3_000; i++) {
            // no cookie: each asks for a page it must sign in for, and the server keeps that request in a new session
            anonymous.send(java.net.http.HttpRequest.newBuilder(base.toURI().resolve("admin/dashboard.xhtml")).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        }
        int afterAnonymous = activeSessions();
        int made = SessionCounter.created() - createdBefore;
        assertTrue(made >= 3_000, "each request left a session: " + made);
        assertTrue(afterAnonymous <= sessionsBefore + 1_000, "at most 1 000 sessions nobody signed in to are kept: " + afterAnonymous);
        int ended = Await.until("the sessions nobody signed in to to end", Duration.ofSeconds(60), ResourceIT::activeSessions,
                sessions -> sessions <= sessionsBefore + 10);
        long heapAfterAnonymous = heapAfterFullCollection();

        for (int i = 0; i < 600; i++) {
            AdminPage session = new AdminPage(base);
            session.signIn("viewer", "viewer-pw");
            assertEquals(200, session.open("admin/dead-letters.xhtml").status());
        }
        int afterSignIns = activeSessions();
        for (int i = 0; i < 2_000; i++) {
            assertEquals(200, viewer.get("api/runs?limit=1").status());
        }
        int afterApi = activeSessions();
        long heapAfterSignIns = heapAfterFullCollection();
        String figures = "sessions " + sessionsBefore + ", " + afterAnonymous + " after 3 000 requests without signing in, "
                + ended + " once those ended, " + afterSignIns + " after 600 sign-ins of one user with a page each, " + afterApi
                + " after 2 000 calls of the API; heap after a full"
                + " collection " + before / mb + " MB, " + heapAfterAnonymous / mb + " MB, " + heapAfterSignIns / mb + " MB";
        System.out.println("sessions: " + figures);
        assertTrue(afterSignIns <= ended + 20 + 10, "a user keeps at most 20 signed-in sessions: " + figures);
        assertTrue(afterApi <= afterSignIns + 2, "the API keeps no session: " + figures);
        // a signed-in session that showed a page holds some 40 KB here: 600 of them would be over 20 MB
        assertTrue(heapAfterSignIns - before < 16 * mb, figures);
    }

    /** The application's sessions now, as the server created and ended them ({@link SessionCounter}). */
    private static int activeSessions() {
        return SessionCounter.live();
    }

    private static void browse(List<AdminPage> sessions, List<String> pages, int loads) throws Exception {
        ExecutorService viewers = Executors.newFixedThreadPool(sessions.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (AdminPage session : sessions) {
                done.add(viewers.submit(() -> {
                    for (int i = 0; i < loads; i++) {
                        for (String page : pages) {
                            AdminPage.Answer answer = session.open(page);
                            if (answer.status() != 200) {
                                throw new AssertionError(page + " answered " + answer.status());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            viewers.shutdownNow();
        }
    }

    /** The heap in use after the collector had its way (twice: what one collection moved, the next frees). */
    private static long heapAfterFullCollection() {
        var memory = ManagementFactory.getMemoryMXBean();
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    @Test
    void aViewersMostExpensiveReadsAnswerFastFourAtOnceOverTenThousandHostileDeadLetters() throws Exception {
        fixtures.update("delete from dead_letter where pipeline = ?", HOSTILE_PIPELINE);
        try {
            insertHostileDeadLetters();
            // their fingerprints are the sweep's to fill, by the same code as a new dead letter's (1 000 per sweep)
            Await.until("the sweeps to give every hostile dead letter its fingerprint", Duration.ofMinutes(3),
                    () -> fixtures.column("select count(*) from dead_letter where pipeline = '" + HOSTILE_PIPELINE
                            + "' and fingerprint is null").get(0), "0"::equals);

            String someCause = viewer.get("api/dead-letters/causes?pipeline=" + HOSTILE_PIPELINE).ok().json()
                    .getJsonArray("groups").getJsonObject(0).getString("cause");
            String every = "reason=UNKNOWN_STEP&status=PENDING&pipeline=" + HOSTILE_PIPELINE + "&step=step-3"
                    + "&from=2020-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&error=" + enc("%_!at x(");
            List<String> reads = List.of("api/dead-letters/causes", "api/dead-letters/causes?error=" + enc("at x("),
                    "api/dead-letters/causes?" + every, "api/dead-letters/stats", "api/dead-letters?limit=500",
                    "api/dead-letters?limit=500&" + every, "api/dead-letters?cause=" + someCause + "&limit=500",
                    "api/dead-letters?error=" + enc("[31mred") + "&limit=500", "api/dead-letters/investigation-queue?limit=500",
                    "api/requeue-jobs/dry-run?" + every.replace("status=PENDING&", ""), "api/runs?limit=500",
                    "api/staleness?limit=500", "api/events?limit=500", "api/events?after=0&limit=500", "api/webhooks",
                    "api/runs?label=" + enc("a:b") + "&label=x&limit=500", "api/dead-letters?payload.url=" + enc("%_!at x(") + "&limit=500",
                    "api/dead-letters?key=" + enc("k".repeat(200)) + "&limit=500");
            List<String> pages = List.of("admin/dashboard.xhtml", "admin/dead-letters.xhtml", "admin/dead-letters.xhtml?" + every,
                    "admin/investigation-queue.xhtml", "admin/runs.xhtml", "admin/staleness.xhtml", "admin/steps.xhtml",
                    "admin/webhooks.xhtml", "admin/search.xhtml?q=" + enc("label:vip"), "admin/search.xhtml?q=" + enc("payload.customer.id=42"));

            ExecutorService viewers = Executors.newFixedThreadPool(4);
            try {
                List<Callable<List<String>>> work = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    work.add(() -> readAll(reads, pages));
                }
                List<String> slowOrFailed = new ArrayList<>();
                for (Future<List<String>> each : viewers.invokeAll(work)) {
                    slowOrFailed.addAll(each.get());
                }
                assertEquals(List.of(), slowOrFailed, "every read answers 200 within " + FAST_ENOUGH);
            } finally {
                viewers.shutdownNow();
            }
        } finally {
            fixtures.update("delete from dead_letter where pipeline = ?", HOSTILE_PIPELINE);
            fixtures.update("delete from lazarus_event where pipeline = ?", HOSTILE_PIPELINE);
        }
    }

    /** Each read once, timed; what was slow or failed, described. */
    private List<String> readAll(List<String> reads, List<String> pages) {
        List<String> problems = new ArrayList<>();
        for (String read : reads) {
            long started = System.nanoTime();
            Api.Response answer = viewer.get(read);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            if (answer.status() != 200 || took.compareTo(FAST_ENOUGH) > 0) {
                problems.add(read + ": " + answer.status() + " in " + took.toMillis() + " ms");
            }
        }
        AdminPage session = new AdminPage(base);
        session.signIn("viewer", "viewer-pw");
        for (String page : pages) {
            long started = System.nanoTime();
            AdminPage.Answer answer = session.open(page);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            if (answer.status() != 200 || took.compareTo(FAST_ENOUGH) > 0) {
                problems.add(page + ": " + answer.status() + " in " + took.toMillis() + " ms");
            }
        }
        return problems;
    }

    /**
     * 10 000 dead letters about messages (they hold no run: no requeue or sweep touches them), written straight into the
     * table, as fast as a test needs, with the texts a hostile sender can get into a dead letter through a handler's
     * exception or a message dropped into a queue.
     */
    private void insertHostileDeadLetters() {
        String texts = "case g % 5"
                // a line of 7 600 characters that starts like a stack frame and is full of parentheses
                + " when 0 then 'java.lang.IllegalStateException: boom' || chr(10) || chr(9) || 'at ' || repeat('x(', 3800)"
                // frames forged in the message, to choose a group
                + " when 1 then 'java.lang.IllegalStateException: ' || chr(10) || chr(9) || 'at com.victim.Billing.charge(Billing.java:42)'"
                + " || chr(10) || chr(9) || 'at com.victim.Billing.run(Billing.java:7)' || chr(10) || chr(9) || 'at java.lang.Thread.run(Thread.java:1)'"
                // control characters (all but NUL, which no text column can hold)
                + " when 2 then 'java.lang.IllegalStateException: ' || chr(27) || '[31mred' || chr(1) || chr(7) || chr(127) || ' ' || g"
                // LIKE's wildcards and its escape character, thousands of them
                + " when 3 then 'java.lang.IllegalStateException: ' || repeat('%_!', 1300)"
                // thousands of short lines
                + " else 'java.lang.IllegalStateException: many' || repeat(chr(10) || chr(9) || 'at a.B.c(B.java:1)', 800) end";
        int inserted = fixtures.update("insert into dead_letter (id, run_id, open_run_id, pipeline, step_name, queue, dead_letter_queue,"
                + " reason, status, attempts, exception_class, error_message, stack_trace, detected_by, created_at, updated_at,"
                + " version, dlq_message_missing)"
                + " select nextval('dead_letter_seq'), null, null, ?, 'step-' || (g % 7), 'lazarus.hostile', 'DLQ.lazarus.hostile',"
                + " 'UNKNOWN_STEP', 'PENDING', 1, 'java.lang.IllegalStateException', left(" + texts + ", 4000), left(" + texts + ", 16000),"
                + " 'consumer', now() - g * interval '1 second', now(), 0, false from generate_series(1, " + HOSTILE_DEAD_LETTERS + ") g",
                HOSTILE_PIPELINE);
        assertEquals(HOSTILE_DEAD_LETTERS, inserted);
        // and as many events telling of them, each carrying its hostile message (GET /api/events serves 500 at most)
        int told = fixtures.update("insert into lazarus_event (id, type, at, body, pipeline, webhooks_pending)"
                + " select nextval('lazarus_event_seq'), 'dead-lettered', d.created_at, json_build_object('schema', 'lazarus.event/v1',"
                + " 'type', 'dead-lettered', 'pipeline', d.pipeline, 'step', d.step_name, 'reason', d.reason, 'cause',"
                + " json_build_object('exceptionClass', d.exception_class, 'message', d.error_message))::text, d.pipeline, false"
                + " from dead_letter d where d.pipeline = ?", HOSTILE_PIPELINE);
        assertEquals(HOSTILE_DEAD_LETTERS, told);
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
