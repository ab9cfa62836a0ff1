package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lazarus.deadletter.control.DeadLetterReconciler;
import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.RunState;
import dev.lazarus.platform.control.BrokerManagement;
import dev.lazarus.platform.control.Brokers;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.CookieManager;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the fixes of the hostile review of issue #20 still let through. Runs inside the server (it reads the server's
 * heap, sends into its queues and runs its reconciler) and drives the pages and the API over HTTP like any client.
 */
@ExtendWith(ArquillianExtension.class)
class HardeningHolesIT {

    private static final Pattern VIEW_STATE = Pattern.compile("name=\"jakarta\\.faces\\.ViewState\"[^>]*value=\"([^\"]+)\"");
    private static final Pattern REQUEUE_ALL = Pattern.compile("value=\"Requeue all (\\d+)\"");
    private static final String PERMANENT = "{\"failures\": {\"fetch\": {\"mode\": \"permanent\"}}}";

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(System.getProperty("it.war", "target/lazarus.war")))
                .addClasses(HardeningHolesIT.class, TestFixtures.class, Await.class, Api.class, Api.Response.class, AdminPage.class,
                        AdminPage.Answer.class);
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

    /**
     * README, Security: "a page keeps its parameters and the ids of the rows it showed ... and a session keeps its last 10
     * pages with buttons". A view parameter is decoded on every postback too, from whatever the request carries, and kept
     * in the page bean and in the view's state; and the session keeps 10 views of each of its last 10 pages. A viewer's
     * postbacks with 0.9 MB "filters" (the request limit is 1 MiB) so make the session hold some 50 MB.
     */
    @Test
    void aViewersPostbacksDoNotMakeTheSessionKeepTheFilterValuesTheyCarry() {
        AdminPage session = new AdminPage(base);
        session.signIn("viewer", "viewer-pw");
        String big = "x".repeat(900_000);
        try {
            long before = heapAfterFullCollection();
            for (int page = 0; page < 5; page++) {
                assertEquals(200, session.open("admin/dead-letters.xhtml").status());
                for (int postback = 0; postback < 10; postback++) {
                    assertEquals(200, session.submit("deadLetters", Map.of("error", page + "-" + postback + big)).status());
                }
            }
            long after = heapAfterFullCollection();
            long mb = 1024 * 1024;
            String figures = "heap after a full collection: " + before / mb + " MB before, " + after / mb
                    + " MB after one viewer's 50 postbacks of a 0.9 MB filter value";
            System.out.println(figures);
            assertTrue(after - before < 16 * mb, figures);
        } finally {
            session.open("logout");
        }
    }

    /**
     * README, Hostile input: a step message that is not a step message is a MALFORMED_MESSAGE dead letter whose body is
     * kept and shown "escaped on every admin page". The page indents it: 15 KB of arrays nested 995 deep become some
     * 29 MB of indentation, built in memory for each view (three viewers at once exhaust a 512 MB heap).
     */
    @Test
    void theDeadLetterPageOfAFifteenKilobyteMessageIsNotTensOfMegabytes() {
        String body = "[".repeat(995) + "0,".repeat(6_399) + "0" + "]".repeat(995);
        fixtures.send(DocumentIngestion.FETCH_QUEUE, 1, body, Map.of("testMarker", UUID.randomUUID().toString()));
        long id = Long.parseLong(Await.until("the dead letter of the nested message", Duration.ofSeconds(60),
                () -> fixtures.column("select id from dead_letter where reason = 'MALFORMED_MESSAGE' and length(message_body) = "
                        + body.length() + " order by id desc limit 1"), found -> !found.isEmpty()).get(0));

        AdminPage session = new AdminPage(base);
        session.signIn("viewer", "viewer-pw");
        try {
            AdminPage.Answer page = session.open("admin/dead-letter.xhtml?id=" + id);
            assertEquals(200, page.status());
            assertTrue(page.body().length() < 1_000_000, "the page of dead letter " + id + " (a message of " + body.length()
                    + " characters) has " + page.body().length() + " characters");
        } finally {
            session.open("logout");
        }
    }

    /**
     * README, Reconciler: a copy of the dispatch a run waits for, found in its DLQ, never stops the run; the fix waits
     * lazarus.reconcile.undeliverable-after (2 minutes) after the run last moved. A run's row does not move while its
     * message waits out a redelivery delay, and a step's backoff may be longer than 2 minutes (RetryPolicy.cap has no
     * bound; the sweeper gives a RETRYING run 30 minutes). The run's last change is set 3 minutes back here: what a step
     * with a 5-minute backoff shows 3 minutes into its wait.
     */
    @Test
    void aCopyOfTheDispatchInItsDlqDoesNotStopARunWhoseRedeliveryDelayIsLongerThanTheGrace() {
        BrokerManagement management = CDI.current().select(BrokerManagement.class).get();
        Brokers brokers = CDI.current().select(Brokers.class).get();
        UUID run = CDI.current().select(Runs.class).get().start(DocumentIngestion.NAME, Json.createObjectBuilder()
                .add("failures", Json.createObjectBuilder().add("fetch", Json.createObjectBuilder()
                        .add("mode", "transient").add("succeedOnAttempt", 4)))
                .build()).id();
        Await.until("the fetch of run " + run + " waiting out a redelivery delay", Duration.ofSeconds(30),
                () -> management.invoke(brokers.all().get(0), "queue." + DocumentIngestion.FETCH_QUEUE, "listScheduledMessagesAsJSON"),
                scheduled -> scheduled.contains(run.toString()));
        fixtures.update("update run set updated_at = ? where id = ?", Instant.now().minus(Duration.ofMinutes(3)), run);
        long generation = fixtures.generationOf(run);
        Map<String, Object> copied = new HashMap<>(Map.of("lazarusRunId", run.toString(), "lazarusStep", "fetch",
                "lazarusGeneration", generation));
        copied.put("_AMQ_ORIG_QUEUE", DocumentIngestion.FETCH_QUEUE);
        copied.put("_AMQ_ORIG_ADDRESS", DocumentIngestion.FETCH_QUEUE);
        fixtures.send("DLQ." + DocumentIngestion.FETCH_QUEUE, 1,
                "{\"runId\":\"" + run + "\",\"step\":\"fetch\",\"generation\":" + generation + "}", copied);

        CDI.current().select(DeadLetterReconciler.class).get().reconcile(); // while the dispatch's message waits

        assertNotEquals(RunState.DEAD_LETTERED, fixtures.stateOf(run), "a copy stopped a healthy run: "
                + fixtures.deadLettersOf(run).stream().map(d -> d.reason() + " " + d.errorMessage()).toList());
    }

    /**
     * README, Limits: "A body may spell any text with JSON escapes: the limits on a request's size leave room for that
     * ... so text within its limit is never refused for its spelling." An ASCII character spelt {@code \u003c} takes six
     * bytes for one (Gson and .NET escape {@code <}, {@code >} and {@code &} so by default); the room is three times.
     */
    @Test
    void aPayloadWithinItsLimitIsAcceptedWhateverItsSpelling() {
        String escaped = "\\u003c".repeat(40_000); // 40 000 bytes of '<' as compact UTF-8, within the 65 536 allowed
        Api.Response answer = operator.post("api/runs", "{\"pipeline\":\"document-ingestion\",\"payload\":{\"html\":\"" + escaped
                + "\",\"failures\":{\"fetch\":{\"mode\":\"permanent\"}}}}");
        assertEquals(201, answer.status(), answer.body());
    }

    /**
     * README, Security: "a button on an older one reloads its page with a message and does nothing, as does a button
     * whose page the session's beans no longer know". The message says "Here it is again"; but a refused "Requeue all"
     * (a rate that is none) leaves the browser at the form's address, which has no filter, and that is the page it is
     * sent to: the list of everything, with "Requeue all" of everything.
     */
    @Test
    void aButtonOnAPageWhoseBeanIsGoneReloadsThatPageWithItsFilter() throws Exception {
        String one = operator.startRun(PERMANENT);
        String other = operator.startRun(PERMANENT);
        Await.until("both runs dead-lettered", Duration.ofSeconds(60), () -> List.of(viewer.run(one), viewer.run(other)),
                runs -> runs.stream().allMatch(r -> "DEAD_LETTERED".equals(r.getString("state"))));

        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL).build();
        String filtered = base + "admin/dead-letters.xhtml?runId=" + one;
        String listAddress = base + "admin/dead-letters.xhtml";
        get(http, base + "admin/dashboard.xhtml");
        post(http, base + "j_security_check", Map.of("j_username", "operator", "j_password", "operator-pw"), null);
        String list = get(http, filtered);
        assertEquals("1", first(REQUEUE_ALL, list), "the filtered list offers its one dead letter");
        // "fast" is no rate: nothing is requeued, the page says so, drawn again at the form's address
        String refused = post(http, listAddress, form(list, Map.of("bulk:rate", "fast")), filtered);
        assertEquals("1", first(REQUEUE_ALL, refused), refused);
        for (int page = 0; page < 13; page++) {
            get(http, base + "admin/dead-letter.xhtml?id=" + (900_000 + page)); // pages without a form: beans, no views
        }
        String again = post(http, listAddress, form(refused, Map.of("bulk:rate", "0")), listAddress);

        assertTrue(again.contains("out of date"), again);
        assertEquals("1", first(REQUEUE_ALL, again), "\"Here it is again\" is the list of run " + one
                + ", not of every dead letter: " + again.replaceAll("(?s)^.*<main>", "").substring(0, 600));
    }

    /** README, Hostile input: bad input gets a message or a 4xx, never a 500 (each 500 also logs 8 KB of stack trace). */
    @Test
    void aViewStateNamedStatelessIsNotAServerError() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        int status = http.send(HttpRequest.newBuilder(URI.create(base + "login.xhtml?jakarta.faces.ViewState=stateless")).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        assertTrue(status < 500, "anonymous GET of the sign-in page with jakarta.faces.ViewState=stateless: " + status);
    }

    private static Map<String, String> form(String page, Map<String, String> fields) {
        Map<String, String> posted = new LinkedHashMap<>(fields);
        posted.put("bulk", "bulk");
        posted.put("bulk:requeueAll", "Requeue all");
        posted.put("jakarta.faces.ViewState", first(VIEW_STATE, page).replace("&#58;", ":"));
        return posted;
    }

    private static String first(Pattern pattern, String html) {
        Matcher found = pattern.matcher(html);
        return found.find() ? found.group(1) : null;
    }

    private static String get(HttpClient http, String address) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(address)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** A form post as a browser sends it: from the page at {@code referer} (Referrer-Policy same-origin). */
    private static String post(HttpClient http, String address, Map<String, String> fields, String referer) throws Exception {
        String body = fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(address)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (referer != null) {
            request.header("Referer", referer);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The heap in use after the collector had its way (twice: what one collection moved, the next frees). */
    private static long heapAfterFullCollection() {
        var memory = ManagementFactory.getMemoryMXBean();
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
