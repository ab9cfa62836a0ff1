package dev.lazarus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The staleness view where operators look: its admin page (live runs most urgent first, filtered by health and
 * pipeline in the URL) and the dashboard's count of runs at risk, over HTTP as a browser would. The run at risk hangs in
 * parse (stuck-after is 6 s on the test server) with its row held from outside ({@link HeldRun}), so that the sweeper
 * leaves it stale while the test looks; let go, the sweeper dead-letters it.
 */
class StalenessPageIT extends LazarusIT {

    private static final Pattern FIRST_HEALTH = Pattern.compile("(?s)id=\"live-runs\".*?health-(\\w+)");
    private static final Pattern STALE_AT_PARSE = Pattern.compile(
            "document-ingestion / parse</a>:\\s*<span class=\"stale-at-step\">(\\d+)</span>");
    private static final Pattern AT_RISK = Pattern.compile("id=\"runs-at-risk\"[^>]*>\\s*(\\d+)\\s*<");

    private AdminPage page;

    @BeforeEach
    void signIn() {
        page = new AdminPage(base);
        page.signIn("viewer", "viewer-pw");
    }

    @Test
    void aHangingRunIsListedStaleAtItsStepLinkingToItsRunPageAndTheFiltersNarrowTheList() {
        String runId = hangingInParse();
        try (HeldRun held = HeldRun.lock(runId, "IN_PROGRESS")) {
            String row = Await.until("the run to be listed stale", Duration.ofSeconds(30), () -> rowOn("admin/staleness.xhtml", runId),
                    found -> found != null && found.contains("health-stale"));
            assertTrue(row.contains("run.xhtml?id=" + runId), "the run opens its page: " + row);
            assertTrue(row.contains("document-ingestion") && row.contains("parse") && row.contains("IN_PROGRESS"), row);
            assertTrue(row.contains("6 s"), "its threshold, the test server's stuck-after: " + row);
            assertTrue(row.contains("STUCK_IN_PROGRESS"), "what the sweeper will record: " + row);
            Matcher first = FIRST_HEALTH.matcher(page.html());
            assertTrue(first.find() && first.group(1).equals("stale"), "most urgent first: " + page.html());

            assertNotNull(rowOn("admin/staleness.xhtml?health=stale", runId), "its health");
            assertNotNull(rowOn("admin/staleness.xhtml?health=STALE&pipeline=document-ingestion", runId), "its health and pipeline");
            assertNull(rowOn("admin/staleness.xhtml?health=warning", runId), "another health");
            assertNull(rowOn("admin/staleness.xhtml?health=healthy&pipeline=document-ingestion", runId), "another health");
            assertNull(rowOn("admin/staleness.xhtml?pipeline=another-pipeline", runId), "another pipeline");
            assertTrue(page.html().contains("value=\"another-pipeline\""), "the filter is shown as it was asked for");
        }
        awaitRun(runId, "DEAD_LETTERED");
        assertNull(rowOn("admin/staleness.xhtml", runId), "a dead-lettered run is not live");
    }

    @Test
    void aFilterThatIsNoneIsAMessageOnTheListNeverAnErrorPage() {
        AdminPage.Answer answer = page.open("admin/staleness.xhtml?health=purple");
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("Filter ignored: health must be one of [HEALTHY, WARNING, STALE]"), answer.body());
        assertTrue(answer.body().contains("id=\"live-runs\"") || answer.body().contains("No live run"), "the list, unfiltered");
    }

    /**
     * The dashboard's count of runs at risk, and where they are. Other runs on the test server may be at warning for
     * minutes (the in-container tests leave some), so the run is followed by its step's stale count, which only a run held
     * from the sweeper keeps for longer than a sweep.
     */
    @Test
    void theDashboardCountsTheRunsAtRiskByStepAndLinksToTheStalenessPage() {
        String runId = hangingInParse();
        try (HeldRun held = HeldRun.lock(runId, "IN_PROGRESS")) {
            Await.until("the dashboard to count the run stale at parse", Duration.ofSeconds(30), this::staleAtParseOnTheDashboard,
                    count -> count >= 1);
            Matcher total = AT_RISK.matcher(page.html());
            assertTrue(total.find() && Long.parseLong(total.group(1)) >= 1, "among the runs at risk: " + page.html());
            assertTrue(page.html().contains("href=\"staleness.xhtml\""), "the count opens the staleness page");
            assertTrue(page.html().contains("href=\"staleness.xhtml?pipeline=document-ingestion\""), "the step opens its pipeline's");
        }
        awaitRun(runId, "DEAD_LETTERED");
        Await.until("the dashboard to count it no more", Duration.ofSeconds(30), this::staleAtParseOnTheDashboard, count -> count == 0);
    }

    /** A run that hangs in parse for longer than the test looks at it (the sweeper fences it when it wakes up). */
    private String hangingInParse() {
        String runId = operator.startRun("{\"failures\":{\"parse\":{\"mode\":\"hang\",\"seconds\":30}}}");
        awaitRun(runId, "IN_PROGRESS");
        return runId;
    }

    private String rowOn(String path, String runId) {
        AdminPage.Answer answer = page.open(path);
        assertEquals(200, answer.status(), path + ": " + answer.body());
        return page.rowOf(runId);
    }

    /** The runs the dashboard shows stale at parse (none when it does not name the step). */
    private long staleAtParseOnTheDashboard() {
        AdminPage.Answer answer = page.open("admin/dashboard.xhtml");
        assertEquals(200, answer.status(), answer.body());
        assertTrue(AT_RISK.matcher(answer.body()).find(), "the dashboard shows the runs at risk: " + answer.body());
        Matcher parse = STALE_AT_PARSE.matcher(answer.body());
        return parse.find() ? Long.parseLong(parse.group(1)) : 0;
    }
}
