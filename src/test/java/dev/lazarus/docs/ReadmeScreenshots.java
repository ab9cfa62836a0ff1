package dev.lazarus.docs;

import dev.lazarus.it.ArtemisConsole;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Takes the documentation's screenshots (the README's and the operator's guide's) from the running local demo stack,
 * in Debian's headless Chromium (the same browser and driver as the browser tests): {@code mvn -Pdemo package}, then
 * {@code mvn -Preadme-screenshots test-compile exec:java}. Writes {@code src/site/resources/screenshots}.
 * Configure with -Dshots.app, -Dshots.console, -Dshots.dir.
 */
public final class ReadmeScreenshots {

    private ReadmeScreenshots() {
    }

    public static void main(String[] args) throws Exception {
        String app = System.getProperty("shots.app", "http://127.0.0.1:8080/lazarus");
        String console = System.getProperty("shots.console", "http://127.0.0.1:8161/console");
        Path dir = Path.of(System.getProperty("shots.dir", "src/site/resources/screenshots"));
        Files.createDirectories(dir);
        long deadLetter = firstDeadLetter(app, "RETRIES_EXHAUSTED");

        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                        "--window-size=1400,1000", "--user-data-dir=" + Files.createTempDirectory("lazarus-shots"));
        WebDriver browser = new ChromeDriver(new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile()).build(), options);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        try {
            browser.get(app + "/admin/dashboard.xhtml");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("j_username"))).sendKeys("operator");
            browser.findElement(By.id("j_password")).sendKeys("operator-pw");
            browser.findElement(By.cssSelector("button[type=submit]")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("open-count")));
            shoot(browser, dir, "dashboard");

            // every step's state; taken while one is paused or held, it shows the banner, the cause and the buttons
            browser.get(app + "/admin/steps.xhtml");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("steps")));
            shoot(browser, dir, "steps");

            browser.get(app + "/admin/dead-letters.xhtml");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("filters")));
            shoot(browser, dir, "dead-letters");

            browser.get(app + "/admin/dead-letter.xhtml?id=" + deadLetter);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("actions")));
            shoot(browser, dir, "dead-letter");

            // the run of that dead letter, opened from its page
            browser.findElement(By.id("run-id")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[id$='dispatches']")));
            shoot(browser, dir, "run");

            browser.get(app + "/admin/runs.xhtml");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("runs")));
            shoot(browser, dir, "runs");

            // the webhooks as an operator sees them: the list and the form that creates one
            browser.get(app + "/admin/webhooks.xhtml");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("create")));
            shoot(browser, dir, "webhooks");

            // The console, with the ^DLQ preference the operator's guide asks operators to set, on its queue list.
            ArtemisConsole.browse(ArtemisConsole.queueRow(browser, wait, console, "DLQ.lazarus.document-ingestion.parse"), wait);
            shoot(browser, dir, "artemis-console-dlq");
        } finally {
            browser.quit();
        }
    }

    private static void shoot(WebDriver browser, Path dir, String name) throws Exception {
        Files.write(dir.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        System.out.println("wrote " + dir.resolve(name + ".png"));
    }

    private static long firstDeadLetter(String app, String reason) throws Exception {
        String auth = "Basic " + Base64.getEncoder().encodeToString("viewer:viewer-pw".getBytes(StandardCharsets.UTF_8));
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(app + "/api/dead-letters?reason=" + reason + "&limit=1"))
                .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString()).body();
        JsonObject page = Json.createReader(new StringReader(body)).readObject();
        if (page.getJsonArray("items").isEmpty()) {
            throw new IllegalStateException("the demo has no " + reason + " dead letter yet: wait for the demo runs to finish");
        }
        return page.getJsonArray("items").getJsonObject(0).getJsonNumber("id").longValue();
    }
}
