package dev.lazarus.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link of the documentation (the README and every page under src/site/markdown) leads somewhere: a file of the
 * repository, a heading of the page it names, or a well-formed http(s) address (not fetched: CI has no network).
 * The first tests prove the check on pages held in memory, so that it is known to fail on a broken link.
 */
class DocumentationLinksTest {

    private static final Path README = Path.of("README.md");
    private static final Path SITE = Path.of("src/site/markdown");

    private static final Map<Path, String> SAMPLE = Map.of(
            Path.of("README.md"), """
                    # Sample
                    See [the guide](docs/guide.md#what-to-open), [its part](docs/guide.md#several-nodes-and-docker)
                    and [a lost page](docs/gone.md), [a lost heading](docs/guide.md#no-such-heading),
                    [here](#sample), [the script](tools/run.sh), [the site](https://example.org/a?b=c).
                    """,
            Path.of("docs/guide.md"), """
                    # Guide
                    ## What to open
                    ## Several nodes, and Docker
                    ## Notes
                    ## Notes
                    Back to [the start](../README.md#sample), [the second notes](#notes-1), [a third](#notes-2),
                    ```
                    [not a link](nowhere.md)
                    ```
                    `[not a link either](nowhere.md)`, [a bad address](http://), [an odd one](ftp://example.org/x).
                    """);

    private static List<MarkdownLinks.Broken> checkSample() {
        MarkdownLinks links = new MarkdownLinks(page -> Optional.ofNullable(SAMPLE.get(page)),
                path -> SAMPLE.containsKey(path) || path.equals(Path.of("tools/run.sh")) || path.equals(Path.of("docs")));
        List<MarkdownLinks.Broken> broken = new ArrayList<>();
        SAMPLE.forEach((page, text) -> broken.addAll(links.check(page, text)));
        return broken;
    }

    @Test
    void aLinkToAFileThatDoesNotExistIsReportedWithItsPageAndLine() {
        List<MarkdownLinks.Broken> broken = checkSample();
        assertTrue(broken.contains(new MarkdownLinks.Broken(README, 3, "docs/gone.md", "no such file: docs/gone.md")), broken.toString());
    }

    @Test
    void anAnchorThatNoHeadingHasIsReported() {
        List<MarkdownLinks.Broken> broken = checkSample();
        assertTrue(broken.stream().anyMatch(b -> b.page().equals(README) && b.line() == 3
                && b.target().equals("docs/guide.md#no-such-heading")), broken.toString());
        assertTrue(broken.stream().anyMatch(b -> b.target().equals("#notes-2")), "the third of two headings: " + broken);
    }

    @Test
    void goodLinksPassAndOnlyTheBrokenOnesAreReported() {
        Set<String> reported = checkSample().stream().map(MarkdownLinks.Broken::target).collect(Collectors.toSet());
        assertEquals(Set.of("docs/gone.md", "docs/guide.md#no-such-heading", "#notes-2", "http://", "ftp://example.org/x"), reported,
                "links to files, to headings (punctuation dropped, duplicates numbered), back up the tree and out to the web pass;"
                        + " links in code do not count");
    }

    @Test
    void headingsGetGitHubsSlugs() {
        assertEquals("dead-letters-reasons-workflow-retention", MarkdownLinks.slug("Dead letters: reasons, workflow, retention"));
        assertEquals("the-command-line-client", MarkdownLinks.slug("The command-line client"));
        assertEquals("lazarusstepheldlong-and-lazarus_x", MarkdownLinks.slug("`LazarusStepHeldLong` and `lazarus_x`"));
        assertEquals("see-the-guide", MarkdownLinks.slug("See [the guide](guide.md)"));
        assertEquals(Set.of("a", "a-1", "a-2"), MarkdownLinks.anchors("# A\n## A\n### A\n"));
    }

    @Test
    void everyLinkOfTheDocumentationLeadsSomewhere() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README));
        try (Stream<Path> site = Files.walk(SITE)) {
            site.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        assertTrue(pages.size() >= 6, "the README and the guides: " + pages);
        MarkdownLinks links = new MarkdownLinks(DocumentationLinksTest::read, Files::exists);
        List<MarkdownLinks.Broken> broken = new ArrayList<>();
        for (Path page : pages) {
            broken.addAll(links.check(page, read(page).orElseThrow()));
        }
        assertTrue(broken.isEmpty(), "broken links:\n" + broken.stream().map(Object::toString).collect(Collectors.joining("\n")));
    }

    private static Optional<String> read(Path page) {
        if (!Files.isRegularFile(page)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(page));
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}
