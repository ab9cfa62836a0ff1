package dev.lazarus.docs;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the links of the documentation's Markdown pages without a network: a relative link must name a file or folder
 * of the repository, and its {@code #anchor} a heading of the page it names (the slug GitHub gives the heading); an
 * external link must at least be a well-formed http(s) address. Pages are read through functions so that a test can
 * hand it pages held in memory.
 */
final class MarkdownLinks {

    /** A link that leads nowhere: the page and line it is on, the target as written, and why. */
    record Broken(Path page, int line, String target, String why) {
        @Override
        public String toString() {
            return page + ":" + line + ": (" + target + ") " + why;
        }
    }

    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}#{1,6}\\s+(.*?)(\\s+#+)?\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    /** {@code [text](target)} and {@code ![alt](target)}; the text may hold one level of brackets (an image in a link). */
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*])*]\\(\\s*(<[^>]*>|[^)\\s]*)(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^\\s{0,3}\\[[^]]+]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Function<Path, Optional<String>> markdownOf;
    private final Predicate<Path> exists;
    private final Map<Path, Set<String>> anchorsByPage = new HashMap<>();

    /**
     * @param markdownOf the text of a Markdown page by its path in the repository, empty if there is none
     * @param exists whether a path of the repository (a file or a folder) exists
     */
    MarkdownLinks(Function<Path, Optional<String>> markdownOf, Predicate<Path> exists) {
        this.markdownOf = markdownOf;
        this.exists = exists;
    }

    /** Every broken link of one page, in the order they appear. */
    List<Broken> check(Path page, String text) {
        List<Broken> broken = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        boolean inFence = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            int number = i + 1;
            for (String target : targetsOf(line)) {
                why(page, target).ifPresent(why -> broken.add(new Broken(page, number, target, why)));
            }
        }
        return broken;
    }

    private static List<String> targetsOf(String line) {
        // a link written inside a code span is an example, not a link
        String prose = CODE_SPAN.matcher(line).replaceAll(match -> " ".repeat(match.group().length()));
        List<String> targets = new ArrayList<>();
        Matcher inline = INLINE_LINK.matcher(prose);
        while (inline.find()) {
            targets.add(unbracket(inline.group(1)));
        }
        Matcher definition = REFERENCE_DEFINITION.matcher(prose);
        if (definition.find()) {
            targets.add(unbracket(definition.group(1)));
        }
        return targets;
    }

    private static String unbracket(String target) {
        return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
    }

    private Optional<String> why(Path page, String target) {
        if (target.isEmpty()) {
            return Optional.of("an empty link");
        }
        if (SCHEME.matcher(target).find()) {
            return external(target);
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved;
        if (file.isEmpty()) {
            resolved = page;
        } else {
            String decoded = URLDecoder.decode(file.replace("+", "%2B"), StandardCharsets.UTF_8);
            Path parent = page.getParent() == null ? Path.of("") : page.getParent();
            resolved = parent.resolve(decoded).normalize();
            if (resolved.startsWith("..") || decoded.startsWith("/")) {
                return Optional.of("leads out of the repository");
            }
            if (!exists.test(resolved)) {
                return Optional.of("no such file: " + resolved);
            }
        }
        if (anchor == null) {
            return Optional.empty();
        }
        if (!resolved.toString().endsWith(".md")) {
            return Optional.of("an anchor into a file that is not a Markdown page: " + resolved);
        }
        Set<String> anchors = anchorsOf(resolved);
        if (!anchors.contains(anchor)) {
            return Optional.of("no heading of " + (resolved.toString().isEmpty() ? page : resolved) + " has the anchor #" + anchor);
        }
        return Optional.empty();
    }

    private static Optional<String> external(String target) {
        String scheme = target.substring(0, target.indexOf(':')).toLowerCase();
        if (scheme.equals("mailto")) {
            return Optional.empty();
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of("a link of scheme " + scheme + ": only http(s) and relative links are used");
        }
        try {
            URI uri = new URI(target);
            if (uri.getHost() == null || uri.getHost().isEmpty()) {
                return Optional.of("an address without a host");
            }
            return Optional.empty();
        } catch (URISyntaxException malformed) {
            return Optional.of("a malformed address: " + malformed.getMessage());
        }
    }

    private Set<String> anchorsOf(Path page) {
        return anchorsByPage.computeIfAbsent(page, p -> markdownOf.apply(p).map(MarkdownLinks::anchors).orElse(Set.of()));
    }

    /** The anchors GitHub gives a page's headings, duplicates numbered -1, -2 ..., and its explicit HTML anchors. */
    static Set<String> anchors(String text) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : text.split("\n", -1)) {
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /** GitHub's slug of a heading: its text as shown, lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
    static String slug(String heading) {
        String shown = heading.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        StringBuilder slug = new StringBuilder();
        shown.toLowerCase().codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }
}
