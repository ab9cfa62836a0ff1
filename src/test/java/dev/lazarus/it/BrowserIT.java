package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's path in a real browser (Debian's headless Chromium through its chromedriver): sign in,
 * filter, dry run, bulk requeue with live progress, what an error containing markup looks like, and Retry in
 * the Artemis console. Every step leaves a screenshot in target/browser-screenshots.
 */
class BrowserIT extends LazarusIT {

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private WebDriver browser;
    private WebDriverWait wait;
    private String testName;
    private int shot;

    @BeforeEach
    void openBrowser(TestInfo test) throws IOException {
        boolean available = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (Boolean.getBoolean("lazarus.browser.required")) {
            assertTrue(available, "Chromium and chromedriver are required here (apt-get install chromium chromium-driver)");
        }
        assumeTrue(available, "no Chromium/chromedriver on this machine: apt-get install chromium chromium-driver");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                        "--window-size=1400,1000", "--user-data-dir=" + Files.createTempDirectory("lazarus-chromium"));
        // the console's messages, where the browser reports what the Content-Security-Policy refused
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build(), options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        testName = test.getTestMethod().map(m -> m.getName()).orElse("browser");
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            screenshot("last");
            browser.quit();
        }
    }

    private String page(String path) {
        return base.toString().replaceAll("/$", "") + "/" + path;
    }

    private void signIn(String user, String password) {
        browser.get(page("admin/dashboard.xhtml"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("j_username"))).sendKeys(user);
        browser.findElement(By.id("j_password")).sendKeys(password);
        browser.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("open-count")));
        screenshot("dashboard");
    }

    @Test
    void operatorFiltersDryRunsAndBulkRequeuesWithLiveProgress() {
        Instant from = Instant.now();
        List<String> runs = List.of(operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}"),
                operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}"),
                operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"until-requeued\"}}}"));
        runs.forEach(id -> awaitRun(id, "DEAD_LETTERED"));

        signIn("operator", "operator-pw");
        browser.findElement(By.linkText("Dead letters")).click();
        WebElement filters = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("filters")));
        filters.findElement(By.name("step")).sendKeys("parse");
        filters.findElement(By.name("from")).sendKeys(from.toString());
        filters.findElement(By.name("error")).sendKeys("outage in parse");
        browser.findElement(By.id("apply-filter")).click();
        wait.until(ExpectedConditions.textToBe(By.id("requeueable"), "3"));
        screenshot("filtered-dry-run");

        WebElement rate = browser.findElement(By.id("bulk:rate"));
        rate.clear();
        rate.sendKeys("2");
        browser.findElement(By.id("bulk:requeueAll")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.urlContains("requeue-job.xhtml"));
        screenshot("job-progress");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-state"), "COMPLETED"));
        assertTrue(browser.findElement(By.id("job-progress")).getText().startsWith("3 of 3 requeued"),
                browser.findElement(By.id("job-progress")).getText());
        screenshot("job-completed");
        runs.forEach(id -> awaitRun(id, "COMPLETED"));
    }

    @Test
    void aRunPageOpensFromItsDeadLetterShowsItsStepsAndTraceAndLeadsBack() {
        String id = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");
        long deadLetterId = run.getJsonObject("deadLetter").getInt("id");

        signIn("viewer", "viewer-pw");
        browser.get(page("admin/dead-letter.xhtml?id=" + deadLetterId));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("run-id"))).click();
        wait.until(ExpectedConditions.urlContains("run.xhtml"));
        assertEquals(id, wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("run-id"))).getText());
        assertEquals(run.getString("traceId"), browser.findElement(By.id("trace-id")).getText(), "the run's trace id");
        List<WebElement> dispatches = browser.findElements(By.cssSelector("[id$='dispatches'] tbody tr"));
        assertEquals(2, dispatches.size(), "fetch, then parse: " + browser.findElement(By.cssSelector("[id$='dispatches']")).getText());
        assertTrue(dispatches.get(0).getText().contains("fetch") && dispatches.get(0).getText().contains("submitted")
                && dispatches.get(0).getText().contains("COMPLETED"), dispatches.get(0).getText());
        assertTrue(dispatches.get(1).getText().contains("parse") && dispatches.get(1).getText().contains("after step fetch completed")
                && dispatches.get(1).getText().contains("FAILED") && dispatches.get(1).getText().contains("3 failed"), dispatches.get(1).getText());
        assertTrue(browser.findElement(By.cssSelector("[id$='timeline']")).getText().contains("DEAD_LETTER"), "the timeline shows the dead letter");
        screenshot("run-page");

        dispatches.get(1).findElement(By.cssSelector("a.dead-letter-link")).click();
        wait.until(ExpectedConditions.urlContains("dead-letter.xhtml?id=" + deadLetterId));
        assertEquals(id, wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("run-id"))).getText(), "back on the dead letter");
    }

    @Test
    void anOperatorFixesThePayloadOnTheDeadLetterPageAndTheRunCompletes() {
        String id = operator.startRun("{\"url\":\"http://example.org/fixable\",\"failures\":{\"parse\":{\"mode\":\"always\"}}}");
        JsonObject run = awaitRun(id, "DEAD_LETTERED");
        long deadLetterId = run.getJsonObject("deadLetter").getInt("id");
        String fixed = jakarta.json.Json.createObjectBuilder(run.getJsonObject("payload")).remove("failures").build().toString();

        signIn("operator", "operator-pw");
        browser.get(page("admin/dead-letter.xhtml?id=" + deadLetterId));
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#fix summary"))).click();
        WebElement payload = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:fixPayload")));
        assertTrue(payload.getAttribute("value").contains("\"failures\""), "the box starts with the run's payload");
        ((JavascriptExecutor) browser).executeScript("arguments[0].value = arguments[1]", payload, fixed);
        browser.findElement(By.id("actions:note")).sendKeys("removed the failure switch");
        screenshot("fix-payload");
        browser.findElement(By.id("actions:editAndRequeue")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("messages"), "Payload replaced and requeued"));
        awaitRun(id, "COMPLETED");
        browser.navigate().refresh();
        String trail = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[id$='history']"))).getText();
        assertTrue(trail.contains("PAYLOAD_EDITED") && trail.contains("removed the failure switch"), trail);
        screenshot("fixed");
    }

    @Test
    void markupInAnErrorOrPayloadIsShownAsTextNeverRun() {
        String script = "<script>window.lazarusInjected = true</script>";
        String id = operator.startRun("{\"note\":\"" + script.replace("\"", "\\\"") + "\",\"failures\":{\"fetch\":{\"mode\":\"always\",\"message\":\""
                + script + "\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");

        signIn("viewer", "viewer-pw");
        browser.get(page("admin/dead-letters.xhtml?error=lazarusInjected"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("summary")));
        assertTrue(browser.findElement(By.tagName("main")).getText().contains(script), "the error is shown as text");
        assertEquals(Boolean.FALSE, ((JavascriptExecutor) browser).executeScript("return window.lazarusInjected === true"));
        assertTrue(browser.findElements(By.cssSelector("[id$=':requeue']")).isEmpty(), "a viewer gets no Requeue button");

        browser.get(page("admin/dead-letter.xhtml?id=" + deadLetterId));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload")));
        assertTrue(browser.findElement(By.id("payload")).getText().contains("window.lazarusInjected"), "the payload is shown as text");
        assertEquals(Boolean.FALSE, ((JavascriptExecutor) browser).executeScript("return window.lazarusInjected === true"));
        screenshot("escaped");
    }

    @Test
    void retryInTheArtemisConsoleResumesTheRun() {
        String id = operator.startRun("{\"failures\":{\"index\":{\"mode\":\"until-requeued\"}}}");
        long deadLetterId = awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id");
        Await.until("the message in DLQ." + INDEX, Duration.ofSeconds(15), () -> broker.messagesOfRun("DLQ." + INDEX, id).size(), n -> n == 1);

        String console = "http://127.0.0.1:" + Integer.getInteger("it.console.port", 8261) + "/console";
        WebElement row = ArtemisConsole.queueRow(browser, wait, console, "DLQ." + INDEX);
        screenshot("console-queues");
        ArtemisConsole.browse(row, wait);
        By ourMessage = ArtemisConsole.MESSAGE_ROW;
        // select exactly this run's message: the DLQ may hold others from earlier tests
        browser.findElement(By.cssSelector("input[type=search], input[aria-label*='ilter'], input[type=text]"))
                .sendKeys("lazarusRunId = '" + id + "'");
        browser.findElement(By.xpath("//button[normalize-space()='Filter']")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(ourMessage, 1));
        browser.findElement(By.xpath("//tbody/tr//input[@type='checkbox']")).click();
        screenshot("console-selected");
        browser.findElement(By.xpath("//button[normalize-space()='Retry']")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//button[normalize-space()='Confirm']"))).click();
        screenshot("console-retried");

        awaitRun(id, "COMPLETED");
        JsonObject deadLetter = viewer.get("api/dead-letters/" + deadLetterId).ok().json();
        assertEquals("REPLAYED_FROM_CONSOLE", deadLetter.getString("requeueMethod"));
        assertEquals("artemis-console", deadLetter.getString("requeuedBy"));
    }

    /** Dead letters of runs whose {@code step} fails until requeued: their ids, once all exist. */
    private List<Long> deadLetters(int count, String step) {
        List<String> runs = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            runs.add(operator.startRun("{\"failures\":{\"" + step + "\":{\"mode\":\"until-requeued\"}}}"));
        }
        return runs.stream().map(id -> (long) awaitRun(id, "DEAD_LETTERED").getJsonObject("deadLetter").getInt("id")).toList();
    }

    private JsonObject deadLetter(long id) {
        return viewer.get("api/dead-letters/" + id).ok().json();
    }

    /** Presses a button and accepts the confirmation it asks for, if any; waits for the page it leads to. */
    private void press(By button) {
        WebElement pressed = wait.until(ExpectedConditions.elementToBeClickable(button));
        for (int tries = 1; ; tries++) {
            try {
                pressed.click();
                break;
            } catch (org.openqa.selenium.StaleElementReferenceException reloaded) {
                if (tries == 3) {
                    throw reloaded;
                }
                // a page that refreshes itself (a running job's) was reloaded under the click: find it again
                pressed = wait.until(ExpectedConditions.elementToBeClickable(button));
            }
        }
        try {
            new WebDriverWait(browser, Duration.ofSeconds(2)).until(ExpectedConditions.alertIsPresent()).accept();
        } catch (org.openqa.selenium.TimeoutException noConfirmation) {
            // an action that does not ask first
        }
        wait.until(ExpectedConditions.stalenessOf(pressed));
    }

    private String messages() {
        return browser.findElements(By.id("messages")).stream().map(WebElement::getText).findFirst().orElse("");
    }

    @Test
    void rowRequeueOnAFilteredListRequeuesThatRowsDeadLetter() {
        List<Long> ids = deadLetters(3, "index");
        String runB = deadLetter(ids.get(1)).getString("runId");

        signIn("operator", "operator-pw");
        browser.get(page("admin/dead-letters.xhtml?runId=" + runB));
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[id$=':requeue']"), 1));
        screenshot("filtered-to-one-run");
        press(By.cssSelector("[id$=':requeue']"));

        assertTrue(messages().contains("Run " + runB + " requeued"), messages());
        assertTrue(browser.getCurrentUrl().contains("runId=" + runB), "the page keeps its filter: " + browser.getCurrentUrl());
        screenshot("requeued");
        assertEquals("REQUEUED", deadLetter(ids.get(1)).getString("status"), "the row shown was requeued");
        assertEquals("PENDING", deadLetter(ids.get(0)).getString("status"), "and no other");
        assertEquals("PENDING", deadLetter(ids.get(2)).getString("status"), "and no other");
    }

    @Test
    void everyActionOnADirectLinkedDeadLetterActsOnThatDeadLetter() {
        List<Long> ids = deadLetters(3, "index");
        signIn("operator", "operator-pw");

        browser.get(page("admin/dead-letter.xhtml?id=" + ids.get(0)));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:note"))).sendKeys("looking into it");
        press(By.id("actions:investigate"));
        assertEquals("INVESTIGATING", deadLetter(ids.get(0)).getString("status"), messages());
        assertTrue(browser.getCurrentUrl().contains("id=" + ids.get(0)), "the page keeps its address: " + browser.getCurrentUrl());

        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:note"))).sendKeys("the index was down");
        press(By.id("actions:addNote"));
        assertTrue(deadLetter(ids.get(0)).getJsonArray("history").toString().contains("the index was down"), messages());

        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:note"))).sendKeys("re-indexed by hand");
        press(By.id("actions:resolve"));
        assertEquals("RESOLVED_MANUALLY", deadLetter(ids.get(0)).getString("status"), messages());
        screenshot("resolved");

        browser.get(page("admin/dead-letter.xhtml?id=" + ids.get(1)));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:note"))).sendKeys("a test document");
        press(By.id("actions:discard"));
        assertEquals("DISCARDED", deadLetter(ids.get(1)).getString("status"), messages());

        browser.get(page("admin/dead-letter.xhtml?id=" + ids.get(2)));
        press(By.id("actions:requeue"));
        assertEquals("REQUEUED", deadLetter(ids.get(2)).getString("status"), messages());
        assertTrue(messages().contains("Requeued"), messages());
        screenshot("requeued");
    }

    @Test
    void bulkRequeueFromAFilteredListRequeuesOnlyWhatItCounted() {
        List<Long> ids = deadLetters(2, "index");
        String runA = deadLetter(ids.get(0)).getString("runId");

        signIn("operator", "operator-pw");
        browser.get(page("admin/dead-letters.xhtml?runId=" + runA));
        wait.until(ExpectedConditions.textToBe(By.id("requeueable"), "1"));
        press(By.id("bulk:requeueAll"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-state"), "COMPLETED"));
        assertTrue(browser.findElement(By.id("job-progress")).getText().startsWith("1 of 1 requeued"),
                browser.findElement(By.id("job-progress")).getText());
        assertTrue(browser.findElement(By.id("job-filter")).getText().contains(runA), "the job shows its filter");
        screenshot("one-run-job");
        assertEquals("REQUEUED", deadLetter(ids.get(0)).getString("status"));
        assertEquals("PENDING", deadLetter(ids.get(1)).getString("status"), "outside the filter");
    }

    @Test
    void bulkDiscardFromAFilteredListAsksWithTheCountAndDiscardsOnlyWhatItCounted() {
        List<Long> ids = deadLetters(2, "index");
        String runA = deadLetter(ids.get(0)).getString("runId");

        signIn("operator", "operator-pw");
        browser.get(page("admin/dead-letters.xhtml?runId=" + runA));
        wait.until(ExpectedConditions.textToBe(By.id("closeable"), "1"));
        browser.findElement(By.id("bulk:note")).sendKeys("a test document, never a real one");
        screenshot("discard-note");
        browser.findElement(By.id("bulk:discardAll")).click();
        org.openqa.selenium.Alert confirmation = wait.until(ExpectedConditions.alertIsPresent());
        assertEquals("Discard all 1 matching dead letters?", confirmation.getText(), "the confirmation states the count");
        confirmation.accept();
        wait.until(ExpectedConditions.urlContains("requeue-job.xhtml"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("job-state"), "COMPLETED"));
        assertTrue(browser.findElement(By.id("job-progress")).getText().startsWith("1 of 1 discarded"),
                browser.findElement(By.id("job-progress")).getText());
        assertTrue(browser.findElement(By.id("job-note")).getText().contains("a test document, never a real one"), "the job shows its note");
        screenshot("discard-job");
        JsonObject discarded = deadLetter(ids.get(0));
        assertEquals("DISCARDED", discarded.getString("status"));
        assertEquals("operator", discarded.getString("closedBy"));
        assertEquals("PENDING", deadLetter(ids.get(1)).getString("status"), "outside the filter");
    }

    @Test
    void cancelOnADirectLinkedJobPageStopsThatJob() {
        Instant from = Instant.now();
        deadLetters(10, "index");
        Api.Response started = operator.post("api/requeue-jobs", "{\"filter\":{\"step\":\"index\",\"from\":\"" + from
                + "\"},\"ratePerSecond\":1}");
        assertEquals(202, started.status(), started.body());
        long job = started.json().getInt("id");

        signIn("operator", "operator-pw");
        browser.get(page("admin/requeue-job.xhtml?id=" + job));
        press(By.id("job:cancel"));
        JsonObject cancelled = Await.until("the job to stop", Duration.ofSeconds(30), () -> viewer.get("api/requeue-jobs/" + job).ok().json(),
                j -> !"RUNNING".equals(j.getString("state")));
        assertEquals("CANCELLED", cancelled.getString("state"), cancelled.toString());
        assertTrue(cancelled.getInt("requeued") < 10, cancelled.toString());
        screenshot("cancelled");
    }

    /**
     * Every page says what a browser may do with it (no framing, no inline script or style, no sniffing, no referrer out),
     * the pages break none of it (the browser reports no refusal while an operator walks through them), a page elsewhere
     * that frames the admin pages gets nothing, and a confirmation still asks, from the script file: dismissed, nothing
     * is done.
     */
    @Test
    void everyPageForbidsFramingAndInlineScriptAndStillWorks() {
        List<Long> ids = deadLetters(2, "index"); // the first is requeued by a job, the second stays open
        String runId = deadLetter(ids.get(0)).getString("runId");
        Api.Response job = operator.post("api/requeue-jobs", "{\"filter\":{\"runId\":\"" + runId + "\"},\"ratePerSecond\":0}");
        assertEquals(202, job.status(), job.body());
        List<String> pages = List.of("admin/dashboard.xhtml", "admin/investigation-queue.xhtml", "admin/dead-letters.xhtml",
                "admin/dead-letter.xhtml?id=" + ids.get(0), "admin/runs.xhtml", "admin/run.xhtml?id=" + runId,
                "admin/requeue-jobs.xhtml", "admin/requeue-job.xhtml?id=" + job.json().getInt("id"), "admin/staleness.xhtml",
                "admin/staleness.xhtml?health=purple", "admin/steps.xhtml", "admin/webhooks.xhtml",
                "admin/webhooks.xhtml?edit=from-configuration");

        // the headers, on every page, the login form, the API, an error and a missing page
        AdminPage session = new AdminPage(base);
        session.signIn("viewer", "viewer-pw");
        List<String> everywhere = new java.util.ArrayList<>(pages);
        everywhere.addAll(List.of("login.xhtml", "admin/no-such-page.xhtml", "api/runs?state=BOGUS"));
        for (String path : everywhere) {
            AdminPage.Answer answer = path.startsWith("api/") ? new AdminPage.Answer(0, "", headersOf(viewer, path)) : session.open(path);
            String policy = answer.header("Content-Security-Policy");
            assertTrue(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'")
                    && policy.contains("style-src 'self'") && !policy.contains("unsafe-inline"), path + ": " + policy);
            assertEquals("DENY", answer.header("X-Frame-Options"), path);
            assertEquals("nosniff", answer.header("X-Content-Type-Options"), path);
            assertEquals("same-origin", answer.header("Referrer-Policy"), path);
            assertEquals("no-store", answer.header("Cache-Control"), path);
        }

        // the pages in the browser: nothing refused while an operator walks through them
        signIn("operator", "operator-pw");
        for (String path : pages) {
            browser.get(page(path));
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.tagName("h1")));
        }
        screenshot("walked-through");
        List<String> refused = browser.manage().logs().get(org.openqa.selenium.logging.LogType.BROWSER).getAll().stream()
                .map(entry -> entry.getMessage()).filter(message -> message.contains("Content Security Policy")).toList();
        assertEquals(List.of(), refused, "the browser refused nothing on the pages");

        // a confirmation asks, from the script file; dismissed, nothing is done
        browser.get(page("admin/dead-letter.xhtml?id=" + ids.get(1)));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions:note"))).sendKeys("not yet");
        browser.findElement(By.id("actions:discard")).click();
        wait.until(ExpectedConditions.alertIsPresent()).dismiss();
        assertEquals("PENDING", deadLetter(ids.get(1)).getString("status"), "a dismissed confirmation does nothing");

        // a page of another origin framing the admin pages: the browser does not show them
        // (without the headers the frame would show the login form, or the dashboard itself)
        browser.get("data:text/html,<iframe id='victim' src='" + page("admin/dashboard.xhtml") + "'></iframe>");
        wait.until(ExpectedConditions.frameToBeAvailableAndSwitchToIt("victim"));
        wait.until(driver -> "complete".equals(((JavascriptExecutor) driver).executeScript("return document.readyState")));
        assertEquals(List.of(), browser.findElements(By.cssSelector("#j_username, #open-count, header")),
                "the framed page shows nothing of Lazarus");
        browser.switchTo().defaultContent();
        screenshot("framed");
    }

    /** The headers of an API answer. */
    private static java.util.Map<String, List<String>> headersOf(Api api, String path) {
        return api.headers(path);
    }

    private void screenshot(String name) {
        try {
            Path directory = Path.of(System.getProperty("it.screenshots", "target/browser-screenshots"));
            Files.createDirectories(directory);
            byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
            Files.write(directory.resolve(String.format("%s-%02d-%s.png", testName, ++shot, name)), png);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            // a screenshot is an artifact, never the reason a test fails
        }
    }
}
