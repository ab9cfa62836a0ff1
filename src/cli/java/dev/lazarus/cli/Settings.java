package dev.lazarus.cli;

import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Where the server is and who is asking: from the environment ({@code LAZARUS_URL}, {@code LAZARUS_USER},
 * {@code LAZARUS_PASSWORD}), else from a properties file ({@code url}, {@code user}, {@code password}) named by
 * {@code LAZARUS_CONFIG} or at {@code ~/.config/lazarus/cli.properties}, else the demo stack's URL. A password is
 * never taken from the command line, where other users of the machine see it in the process list.
 */
public record Settings(URI url, String user, String password, Path file, List<String> warnings) {

    public static final String DEFAULT_URL = "http://127.0.0.1:8080/lazarus/";
    static final String URL = "LAZARUS_URL";
    static final String USER = "LAZARUS_USER";
    static final String PASSWORD = "LAZARUS_PASSWORD";
    static final String CONFIG = "LAZARUS_CONFIG";

    /**
     * The settings of this environment; {@code home} is the user's home directory. A file that {@code LAZARUS_CONFIG}
     * names but is missing or unreadable is a usage error: a script that points at one means it.
     */
    public static Settings load(Map<String, String> env, Path home) {
        List<String> warnings = new ArrayList<>();
        String named = blankToNull(env.get(CONFIG));
        Path file = named != null ? Path.of(named) : home.resolve(".config").resolve("lazarus").resolve("cli.properties");
        Properties properties = new Properties();
        if (Files.isRegularFile(file)) {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(in);
            } catch (IOException | IllegalArgumentException e) {
                throw new Failure(Exit.USAGE, "cannot read " + file + ": " + e.getMessage());
            }
            if (readableByOthers(file)) {
                warnings.add(file + " can be read by other users and may hold a password: chmod 600 " + file);
            }
        } else if (named != null) {
            throw new Failure(Exit.USAGE, CONFIG + " names " + file + ", which is not a readable file");
        } else {
            file = null;
        }
        String url = first(env.get(URL), properties.getProperty("url"), DEFAULT_URL);
        return new Settings(url(url), first(env.get(USER), properties.getProperty("user"), null),
                password(env.get(PASSWORD), properties.getProperty("password")), file, List.copyOf(warnings));
    }

    /** The same, talking to {@code url} instead (the {@code --url} option). */
    public Settings withUrl(String url) {
        return url == null ? this : new Settings(url(url), user, password, file, warnings);
    }

    /**
     * The user and password, or a failure that says where to put them. Asked only when a request is about to be
     * sent: {@code --help} and {@code --version} need none.
     */
    public String[] credentials() {
        if (user == null || password == null) {
            String where = file == null ? "" : " (or user= and password= in " + file + ")";
            throw new Failure(Exit.NOT_ALLOWED, (user == null ? "no user name" : "no password") + " for " + url + ": set " + USER
                    + " and " + PASSWORD + where + "; the demo stack's users are operator and viewer");
        }
        return new String[] {user, password};
    }

    static URI url(String value) {
        String text = value.trim();
        URI uri;
        try {
            uri = URI.create(text.endsWith("/") ? text : text + "/");
        } catch (IllegalArgumentException e) {
            throw new Failure(Exit.USAGE, "the Lazarus URL '" + text + "' is not a URL: " + e.getMessage());
        }
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme())) || uri.getHost() == null) {
            throw new Failure(Exit.USAGE, "the Lazarus URL must be http(s)://host[:port]/path, such as " + DEFAULT_URL + ", was '" + text + "'");
        }
        return uri;
    }

    private static boolean readableByOthers(Path file) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            return permissions.contains(PosixFilePermission.GROUP_READ) || permissions.contains(PosixFilePermission.OTHERS_READ);
        } catch (UnsupportedOperationException | IOException notPosix) {
            return false; // a file system without POSIX permissions: nothing to say
        }
    }

    private static String first(String a, String b, String otherwise) {
        return blankToNull(a) != null ? a.trim() : blankToNull(b) != null ? b.trim() : otherwise;
    }

    /** A password as given, spaces and all: only an empty one counts as none. */
    private static String password(String fromEnvironment, String fromFile) {
        return fromEnvironment != null && !fromEnvironment.isEmpty() ? fromEnvironment
                : fromFile != null && !fromFile.isEmpty() ? fromFile : null;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
