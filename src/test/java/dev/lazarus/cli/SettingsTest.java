package dev.lazarus.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {

    @TempDir
    Path home;

    private Path file(String text, String permissions) throws IOException {
        Path file = home.resolve(".config/lazarus/cli.properties");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    @Test
    void withNothingConfiguredItTalksToTheDemoStackAndHasNoCredentials() {
        Settings settings = Settings.load(Map.of(), home);
        assertEquals(URI.create("http://127.0.0.1:8080/lazarus/"), settings.url());
        assertNull(settings.user());
        assertNull(settings.file());
        Failure failure = assertThrows(Failure.class, settings::credentials);
        assertEquals(Exit.NOT_ALLOWED, failure.exitCode());
        assertTrue(failure.getMessage().contains("LAZARUS_USER") && failure.getMessage().contains("LAZARUS_PASSWORD"), failure.getMessage());
    }

    @Test
    void theEnvironmentGivesUrlUserAndPassword() {
        Settings settings = Settings.load(Map.of("LAZARUS_URL", "http://node-a:8180/lazarus", "LAZARUS_USER", "operator",
                "LAZARUS_PASSWORD", " pass word "), home);
        assertEquals(URI.create("http://node-a:8180/lazarus/"), settings.url());
        assertArrayEquals(new String[] {"operator", " pass word "}, settings.credentials(), "a password is taken as it is, spaces and all");
    }

    @Test
    void theDefaultFileGivesWhatTheEnvironmentDoesNotAndAFileOnlyItsOwnerReadsIsNoWorry() throws IOException {
        Path file = file("url=http://lazarus.example:8080/lazarus\nuser=viewer\npassword=viewer-pw\n", "rw-------");
        Settings settings = Settings.load(Map.of("LAZARUS_USER", "operator", "LAZARUS_PASSWORD", "operator-pw"), home);
        assertEquals(URI.create("http://lazarus.example:8080/lazarus/"), settings.url());
        assertArrayEquals(new String[] {"operator", "operator-pw"}, settings.credentials(), "the environment wins over the file");
        assertEquals(file, settings.file());
        assertEquals(List.of(), settings.warnings());
    }

    @Test
    void aFileOthersCanReadIsWarnedAbout() throws IOException {
        Path file = file("user=viewer\npassword=viewer-pw\n", "rw-r--r--");
        Settings settings = Settings.load(Map.of(), home);
        assertArrayEquals(new String[] {"viewer", "viewer-pw"}, settings.credentials());
        assertEquals(1, settings.warnings().size());
        assertTrue(settings.warnings().get(0).contains("chmod 600 " + file), settings.warnings().get(0));
    }

    @Test
    void lazarusConfigNamesAnotherFileAndAMissingOneIsAUsageError() throws IOException {
        Path other = home.resolve("ops.properties");
        Files.writeString(other, "url=https://lazarus.internal/lazarus/\n");
        assertEquals(URI.create("https://lazarus.internal/lazarus/"), Settings.load(Map.of("LAZARUS_CONFIG", other.toString()), home).url());

        Failure missing = assertThrows(Failure.class, () -> Settings.load(Map.of("LAZARUS_CONFIG", home.resolve("nope").toString()), home));
        assertEquals(Exit.USAGE, missing.exitCode());
        assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
    }

    @Test
    void theUrlOptionWinsAndOnlyHttpUrlsAreTaken() {
        Settings settings = Settings.load(Map.of("LAZARUS_URL", "http://a:1/lazarus/"), home).withUrl("http://b:2/lazarus");
        assertEquals(URI.create("http://b:2/lazarus/"), settings.url());
        for (String bad : List.of("ftp://b/lazarus", "lazarus", "http://", "http://a b/")) {
            Failure failure = assertThrows(Failure.class, () -> settings.withUrl(bad), bad);
            assertEquals(Exit.USAGE, failure.exitCode(), bad);
        }
    }

    @Test
    void aUserWithoutAPasswordIsToldWhatIsMissing() {
        Failure failure = assertThrows(Failure.class, () -> Settings.load(Map.of("LAZARUS_USER", "operator"), home).credentials());
        assertEquals(Exit.NOT_ALLOWED, failure.exitCode());
        assertTrue(failure.getMessage().startsWith("no password"), failure.getMessage());
    }
}
