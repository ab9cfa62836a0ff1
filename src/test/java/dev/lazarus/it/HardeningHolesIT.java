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
    private static final Pattern BULK_ACTION = Pattern.compile("<form id=\"bulk\"[^>]*action=\"([^\"]+)\"");
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
     * Reference, Security: "a page keeps its parameters and the ids of the rows it showed ... and a session keeps its last 10
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
     * Reference, Hostile input: a step message that is not a step message is a MALFORMED_MESSAGE dead letter whose body is
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
     * Reference, lazarus.reconcile.undeliverable-after: a copy of the dispatch a run waits for, found in its DLQ, never stops
     * the run. A run's row does not move while its message waits out a redelivery delay (the broker holds it scheduled,
     * where no count of the queue sees it): the run's last change is set 3 minutes back here, past the grace, while its
     * step failed a moment ago and waits for its redelivery. The step's own signs of life and its longest delay decide
     * (UndeliverableJudgementTest: a step that backs off for 5 minutes, 3 minutes into its wait).
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
     * Reference, Limits: "A body may spell any text with JSON escapes: the limits on a request's size leave room for that
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
     * Reference, Security: "a button on an older one reloads its page with a message and does nothing, as does a button
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

    /**
     * The same on a dead letter's page, whose actions exist only for a dead letter it finds: a bean made anew for the
     * postback learns the page's id from the view's state before it decides which buttons exist, so the page reloads
     * saying it was out of date, with nothing done, instead of drawing "No dead letter" over a dead letter that is there.
     */
    @Test
    void aButtonOnADeadLettersPageWhoseBeanIsGoneReloadsItAndDoesNothing() throws Exception {
        String run = operator.startRun(PERMANENT);
        Await.until("run " + run + " dead-lettered", Duration.ofSeconds(60), () -> viewer.run(run).getString("state"),
                "DEAD_LETTERED"::equals);
        long id = fixtures.deadLettersOf(UUID.fromString(run)).get(0).id();
        String address = base + "admin/dead-letter.xhtml?id=" + id;
        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL).build();
        get(http, base + "admin/dashboard.xhtml");
        post(http, base + "j_security_check", Map.of("j_username", "operator", "j_password", "operator-pw"), null);
        String page = get(http, address);
        for (int other = 0; other < 13; other++) {
            get(http, base + "admin/dead-letter.xhtml?id=" + (900_000 + other)); // pages without a form: beans, no views
        }
        Map<String, String> fields = new LinkedHashMap<>(Map.of("actions", "actions", "actions:note", "pressed after its bean was gone",
                "actions:addNote", "Add note"));
        fields.put("jakarta.faces.ViewState", first(VIEW_STATE, page).replace("&#58;", ":"));
        String answer = post(http, address, fields, address);

        assertTrue(answer.contains("out of date"), answer);
        assertTrue(!answer.contains("No dead letter"), "dead letter " + id + " is there: " + answer);
        assertTrue(!viewer.get("api/dead-letters/" + id).ok().body().contains("pressed after its bean was gone"), "nothing was done");
    }

    /**
     * A form posted to an address that is no page (with a view state, as a button would send it) was a 500 and a stack
     * trace in the log, for anyone: Faces answered 404, then the out-of-date reload tried to redirect the answer it had
     * sent. And the address of a page that is out of date is sent back in a redirect, decoded: a line break in it
     * (%0D%0A) must never reach the answer's head as a header of the sender's.
     */
    @Test
    void aPostToAnAddressThatIsNoPageIsNotAServerErrorAndAddsNoHeaderToTheAnswer() throws Exception {
        URL url = new URL(base.toString());
        String noPage = rawPost(url, url.getPath() + "no-such-page.xhtml");
        assertTrue(Integer.parseInt(noPage.substring(9, 12)) < 500, noPage);
        String path = url.getPath() + "a%0D%0AX-Injected:%20yes%0D%0AX-Pad:%20" + "p".repeat(14_000) + ".xhtml";
        String head = rawPost(url, path);
        assertTrue(Integer.parseInt(head.substring(9, 12)) < 500, head.substring(0, Math.min(300, head.length())));
        for (String line : head.split("\r\n")) {
            assertTrue(!line.startsWith("X-Injected"), "a header from the address: " + line);
        }
    }

    /** The head of the answer to a form posted to {@code path} with a view state, sent as bytes (no client checks it). */
    private static String rawPost(URL url, String path) throws Exception {
        String body = "jakarta.faces.ViewState=1";
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(10_000);
            String request = "POST " + path + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                    + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body;
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            String head = answer.contains("\r\n\r\n") ? answer.substring(0, answer.indexOf("\r\n\r\n")) : answer;
            assertTrue(head.startsWith("HTTP/1.1 "), head.substring(0, Math.min(200, head.length())));
            return head;
        }
    }

    /** Reference, Hostile input: bad input gets a message or a 4xx, never a 500 (each 500 also logs 8 KB of stack trace). */
    @Test
    void aViewStateNamedStatelessIsNotAServerError() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        int status = http.send(HttpRequest.newBuilder(URI.create(base + "login.xhtml?jakarta.faces.ViewState=stateless")).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        assertTrue(status < 500, "anonymous GET of the sign-in page with jakarta.faces.ViewState=stateless: " + status);
    }

    /**
     * Reference, Security: "what one session can hold is bounded". What an operator types in a page's form (a note, a payload
     * to fix a run with) is needed for the one request that acts on it; kept in the page bean, a session's pages would
     * hold 12 of them, each up to the request limit, for as long as the session lasts. Two operators' sessions post 0.9 MB
     * notes and payloads on 12 pages each, without pressing a button.
     */
    @Test
    void anOperatorsPostbacksDoNotMakeTheSessionKeepTheTextTheyCarry() {
        String run = operator.startRun(PERMANENT);
        Await.until("run " + run + " dead-lettered", Duration.ofSeconds(60), () -> viewer.run(run).getString("state"),
                "DEAD_LETTERED"::equals);
        long deadLetter = fixtures.deadLettersOf(UUID.fromString(run)).get(0).id();
        String big = "x".repeat(900_000);
        AdminPage notes = new AdminPage(base);
        notes.signIn("operator", "operator-pw");
        AdminPage payloads = new AdminPage(base);
        payloads.signIn("operator", "operator-pw");
        try {
            long before = heapAfterFullCollection();
            for (int page = 0; page < 12; page++) {
                assertEquals(200, notes.open("admin/dead-letter.xhtml?id=" + deadLetter).status());
                assertEquals(200, notes.submit("actions", Map.of("actions:note", page + big)).status());
                assertEquals(200, payloads.open("admin/dead-letter.xhtml?id=" + deadLetter).status());
                assertEquals(200, payloads.submit("actions", Map.of("actions:fixPayload", page + big)).status());
            }
            long after = heapAfterFullCollection();
            long mb = 1024 * 1024;
            String figures = "heap after a full collection: " + before / mb + " MB before, " + after / mb
                    + " MB after two operators' postbacks of a 0.9 MB note or payload on 12 pages each";
            System.out.println(figures);
            assertTrue(after - before < 8 * mb, figures);
        } finally {
            notes.open("logout");
            payloads.open("logout");
        }
    }

    /**
     * Reference, Security: "a button acts on what its page showed". The page of one dead letter, posted with another's id
     * (in the form's body, or in the address it is posted to), adds the note to the dead letter the page showed.
     */
    @Test
    void aButtonOnADeadLettersPageActsOnThatDeadLetterWhateverIdThePostNames() throws Exception {
        String shownRun = operator.startRun(PERMANENT);
        String namedRun = operator.startRun(PERMANENT);
        Await.until("both runs dead-lettered", Duration.ofSeconds(60), () -> List.of(viewer.run(shownRun), viewer.run(namedRun)),
                runs -> runs.stream().allMatch(r -> "DEAD_LETTERED".equals(r.getString("state"))));
        long shown = fixtures.deadLettersOf(UUID.fromString(shownRun)).get(0).id();
        long named = fixtures.deadLettersOf(UUID.fromString(namedRun)).get(0).id();

        HttpClient http = signedIn("operator", "operator-pw");
        String page = get(http, base + "admin/dead-letter.xhtml?id=" + shown);
        Map<String, String> inTheBody = new LinkedHashMap<>(Map.of("actions", "actions", "actions:note", "forged in the body",
                "actions:addNote", "Add note", "id", String.valueOf(named)));
        inTheBody.put("jakarta.faces.ViewState", first(VIEW_STATE, page).replace("&#58;", ":"));
        HttpResponse<String> postedBody = send(http, base + "admin/dead-letter.xhtml", inTheBody, null);
        assertTrue(postedBody.statusCode() < 500, postedBody.statusCode() + ": " + postedBody.body());
        page = get(http, base + "admin/dead-letter.xhtml?id=" + shown);
        Map<String, String> inTheAddress = new LinkedHashMap<>(Map.of("actions", "actions", "actions:note", "forged in the address",
                "actions:addNote", "Add note"));
        inTheAddress.put("jakarta.faces.ViewState", first(VIEW_STATE, page).replace("&#58;", ":"));
        HttpResponse<String> postedAddress = send(http, base + "admin/dead-letter.xhtml?id=" + named, inTheAddress, null);
        assertTrue(postedAddress.statusCode() < 500, postedAddress.statusCode() + ": " + postedAddress.body());

        assertEquals(List.of(), fixtures.column("select note from dead_letter_event where dead_letter_id = " + named
                + " and note like 'forged%'"), "notes added to dead letter " + named + ", whose page was not posted");
        assertEquals(List.of("forged in the address", "forged in the body"), fixtures.column("select note from dead_letter_event"
                + " where dead_letter_id = " + shown + " and note like 'forged%' order by note"));
    }

    /** Reference, Hostile input: bad input gets a message or a 4xx, never a 500. One page's form, posted to another page. */
    @Test
    void aFormPostedToAnotherPageSaysItWasOutOfDate() throws Exception {
        HttpClient http = signedIn("operator", "operator-pw");
        String list = get(http, base + "admin/dead-letters.xhtml");
        String viewState = first(VIEW_STATE, list).replace("&#58;", ":");
        for (String other : List.of("admin/run.xhtml?id=" + UUID.randomUUID(), "admin/dead-letter.xhtml?id=1", "admin/requeue-job.xhtml?id=1",
                "admin/runs.xhtml", "admin/dashboard.xhtml", "login.xhtml")) {
            HttpResponse<String> answer = send(http, base + other, Map.of("deadLetters", "deadLetters", "jakarta.faces.ViewState", viewState),
                    null);
            // the sign-in page shows no messages: it is drawn again, and that is all
            assertTrue(answer.statusCode() < 500 && (other.startsWith("login") || answer.body().contains("out of date")),
                    "the form of the dead-letter list posted to " + other + ": " + answer.statusCode() + " " + answer.body());
        }
        for (String named : List.of("stateless", "0:0", "x")) {
            HttpResponse<String> answer = send(http, base + "admin/dead-letters.xhtml", Map.of("deadLetters", "deadLetters",
                    "jakarta.faces.ViewState", named), null);
            assertTrue(answer.statusCode() < 500 && answer.body().contains("out of date"), "a view state named " + named + ": "
                    + answer.statusCode() + " " + answer.body());
        }
    }

    /**
     * Reference, Hostile input: "never a 500 for bad input", and a request anyone can send must not make the server write
     * kilobytes to its log: each of these, unanswered, logged a stack trace (most with a 500).
     */
    @Test
    void noAnonymousRequestMakesTheServerLogAStackTrace() throws Exception {
        HttpClient http = HttpClient.newHttpClient(); // no cookies: each request on its own
        String form = "application/x-www-form-urlencoded";
        String boundary = "lazarus-boundary";
        String multipart = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jakarta.faces.ViewState\"\r\n\r\nstateless\r\n--"
                + boundary + "--\r\n";
        List<HttpRequest> requests = List.of(
                HttpRequest.newBuilder(URI.create(base + "login.xhtml?jakarta.faces.ViewState=stateless")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml")).header("Content-Type", form)
                        .POST(HttpRequest.BodyPublishers.ofString("jakarta.faces.ViewState=stateless")).build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml")).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofString(multipart)).build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml")).header("Content-Type", form).header("Faces-Request", "partial/ajax")
                        .POST(HttpRequest.BodyPublishers.ofString("jakarta.faces.partial.ajax=true&jakarta.faces.partial.execute=%40all"
                                + "&jakarta.faces.ViewState=stateless")).build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml?jakarta.faces.ViewState=-1:-1")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml?jakarta.faces.RenderKitId=bogus")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "login.xhtml")).header("Content-Type", form)
                        .POST(HttpRequest.BodyPublishers.ofString("jakarta.faces.ViewState=1:1&jakarta.faces.RenderKitId=bogus")).build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/.xhtml")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/.xhtml?ln=jakarta.faces")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/lazarus.css.xhtml")).header("If-Modified-Since", "yesterday")
                        .GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/lazarus.css.xhtml?ln=nope")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/lazarus.css.xhtml?ln=..%2F..%2FWEB-INF")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/web.xml.xhtml?ln=WEB-INF")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/faces.js.xhtml?ln=jakarta.faces&v=..%2F..%2Fx")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "jakarta.faces.resource/lazarus.css.xhtml?loc=..%2F..%2Fx&con=..%2Fx")).GET().build(),
                HttpRequest.newBuilder(URI.create(base + "no-such-page.xhtml")).GET().build());
        Map<String, String> found = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            HttpRequest request = requests.get(i);
            long logged = serverLog().length();
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            String trace = stackTraceOfARequestSince(logged);
            if (status >= 500 || trace != null) {
                found.put("#" + i + " " + request.method() + " " + request.uri() + " " + request.headers().map(),
                        status + (trace == null ? "" : ", logged " + trace));
            }
        }
        assertEquals(Map.of(), found);
    }

    /**
     * Reference, Security: "a button on an older one reloads its page with a message and does nothing". A refused Requeue all
     * draws the page again where the form posted to; a button pressed there once the session no longer keeps the view
     * reloads the page the browser is at: it must be the filtered list, not the list of everything.
     */
    @Test
    void aButtonOnARefusedPageWhoseViewIsGoneReloadsThatPageWithItsFilter() throws Exception {
        String one = operator.startRun(PERMANENT);
        String other = operator.startRun(PERMANENT);
        Await.until("both runs dead-lettered", Duration.ofSeconds(60), () -> List.of(viewer.run(one), viewer.run(other)),
                runs -> runs.stream().allMatch(r -> "DEAD_LETTERED".equals(r.getString("state"))));

        HttpClient http = signedIn("operator", "operator-pw");
        String filtered = base + "admin/dead-letters.xhtml?runId=" + one;
        String list = get(http, filtered);
        String at = origin() + first(BULK_ACTION, list).replace("&amp;", "&"); // where the browser posts the form
        String refused = post(http, at, form(list, Map.of("bulk:rate", "fast")), filtered);
        assertEquals("1", first(REQUEUE_ALL, refused), refused);
        for (int page = 0; page < 11; page++) {
            get(http, base + "admin/dead-letters.xhtml?status=OPEN&page=" + page); // pages with buttons: each a view
        }
        String again = post(http, origin() + first(BULK_ACTION, refused).replace("&amp;", "&"), form(refused, Map.of("bulk:rate", "0")), at);

        assertTrue(again.contains("out of date"), again);
        assertEquals("1", first(REQUEUE_ALL, again), "\"Here it is again\" is the list of run " + one
                + ", not of every dead letter: " + again.replaceAll("(?s)^.*<main>", "").substring(0, 600));
    }

    /**
     * Reference, Security: sessions nobody signed in to are at most 1 000, one more ending the oldest. A session that signs
     * in is no longer one of them: the sessions others make meanwhile do not end it before its first page.
     */
    @Test
    void aSignInIsNotUndoneByTheSessionsOthersMakeBeforeItsFirstPage() throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build(); // redirects by hand
        get(browser, base + "admin/dashboard.xhtml");
        HttpResponse<String> signedIn = send(browser, base + "j_security_check", Map.of("j_username", "viewer", "j_password", "viewer-pw"),
                null);
        String next = signedIn.headers().firstValue("Location").orElseThrow(() -> new AssertionError("no redirect after signing in"));
        HttpClient others = HttpClient.newHttpClient();
        java.util.concurrent.ExecutorService flood = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<Integer>> asked = new java.util.ArrayList<>();
            for (int i = 0; i < 1_100; i++) {
                asked.add(flood.submit(() -> others.send(HttpRequest.newBuilder(URI.create(base + "admin/dashboard.xhtml")).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode()));
            }
            for (var each : asked) {
                each.get();
            }
        } finally {
            flood.shutdownNow();
        }
        String page = get(browser, next);
        assertTrue(page.contains("Dashboard") && !page.contains("j_security_check"), "the first page after signing in: " + page);
    }

    private URI origin() {
        return URI.create(base.getProtocol() + "://" + base.getAuthority());
    }

    private HttpClient signedIn(String user, String password) throws Exception {
        HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL).build();
        get(http, base + "admin/dashboard.xhtml");
        post(http, base + "j_security_check", Map.of("j_username", user, "j_password", password), null);
        return http;
    }

    private static File serverLog() {
        return new File(System.getProperty("jboss.server.log.dir"), "server.log");
    }

    /**
     * The first stack trace a request thread wrote to the server's log after {@code offset}, as its log line; null if none
     * (other threads, the broker's client say, have their own reasons).
     */
    private static String stackTraceOfARequestSince(long offset) throws Exception {
        try (java.io.RandomAccessFile log = new java.io.RandomAccessFile(serverLog(), "r")) {
            log.seek(offset);
            byte[] added = new byte[(int) (log.length() - offset)];
            log.readFully(added);
            String record = null;
            for (String line : new String(added, StandardCharsets.UTF_8).split("\n")) {
                if (line.matches("^\\d{4}-\\d\\d-\\d\\d .*")) {
                    record = line.contains("(default task-") ? line : null;
                } else if (record != null && line.startsWith("\tat ")) {
                    return record;
                }
            }
            return null;
        }
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

    /** A form post as a browser sends it, and the whole answer. */
    private static HttpResponse<String> send(HttpClient http, String address, Map<String, String> fields, String referer) throws Exception {
        String body = fields.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(address)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (referer != null) {
            request.header("Referer", referer);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
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
