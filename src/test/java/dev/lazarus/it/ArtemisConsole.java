package dev.lazarus.it;

import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/** The Artemis web console as an operator reaches a DLQ in it: the steps the operator's guide describes (Retrying from the Artemis console). */
public final class ArtemisConsole {

    private ArtemisConsole() {
    }

    /**
     * Signs in with the ^DLQ dead-letter preference set (the console offers Retry only on queues matching it)
     * and opens the queue list; returns the row of {@code queue}.
     */
    public static WebElement queueRow(WebDriver browser, WebDriverWait wait, String consoleUrl, String queue) {
        browser.get(consoleUrl);
        ((JavascriptExecutor) browser).executeScript("var k = 'artemis.preferences';"
                + "var p = JSON.parse(localStorage.getItem(k) || '{}'); p.artemisDLQ = '^DLQ'; localStorage.setItem(k, JSON.stringify(p));");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("input[type=password]")));
        browser.findElement(By.cssSelector("input[type=text]")).sendKeys("admin");
        browser.findElement(By.cssSelector("input[type=password]")).sendKeys("admin");
        browser.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.xpath("//a[normalize-space()='Queues'] | //button[normalize-space()='Queues']"))).click();
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.xpath("//tr[td[normalize-space()='" + queue + "']]")));
    }

    /** Browses the queue of {@code row} (its message count is the link) and waits for its messages. */
    public static void browse(WebElement row, WebDriverWait wait) {
        List<WebElement> links = row.findElements(By.tagName("a"));
        links.get(links.size() - 1).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(MESSAGE_ROW));
    }

    public static final By MESSAGE_ROW = By.xpath("//tbody/tr[.//input[@type='checkbox']]");
}
