package dev.lazarus.webhooks.entity;

import dev.lazarus.events.entity.EventType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A receiver of events: where they are POSTed, the secret they are signed with, which types it wants (all if none are
 * named) and whether it is enabled. One from the configuration ({@link Source#CONFIGURATION}) is written at every
 * start and changed nowhere else. The secret is kept to sign with and never given back: {@link #hasSecret} is all
 * anyone may learn of it. Its URL may be a credential too: viewers see only {@link #maskedUrl}.
 *
 * <p>Its rules are checked here, whatever the way in: a name of lower-case letters, digits and dashes; an absolute
 * http or https URL with a host and a port (if any) of 1 to 65535, at most {@value #URL_LENGTH} characters, no control character or blank; a secret of
 * {@value #SECRET_MIN} to {@value #SECRET_LENGTH} printable characters; known event types. A broken rule is an
 * {@link IllegalArgumentException} that says which.
 */
@Entity
@Table(name = "webhook")
public class Webhook {

    public static final int NAME_LENGTH = 63;
    public static final int URL_LENGTH = 2000;
    public static final int SECRET_MIN = 16;
    public static final int SECRET_LENGTH = 200;
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0," + (NAME_LENGTH - 1) + "}");

    public enum Source { API, CONFIGURATION }

    @Id
    @Column(length = 100)
    private String name;

    @Column(nullable = false, length = URL_LENGTH)
    private String url;

    @Column(length = SECRET_LENGTH)
    private String secret;

    /** The wire names of the types it wants, comma-separated; null for all. */
    @Column(length = 200)
    private String types;

    @Column(nullable = false)
    private boolean enabled;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    private Source source;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    @Column(name = "updated_by", nullable = false, length = 100)
    private String updatedBy;

    @Version
    private long version;

    protected Webhook() {
        // for JPA
    }

    public Webhook(String name, Source source, String url, String secret, Set<EventType> types, boolean enabled, String by, Instant now) {
        this.name = requireName(name);
        this.source = Objects.requireNonNull(source, "source");
        this.createdAt = Objects.requireNonNull(now, "now");
        change(url, secret, types, enabled, by, now);
    }

    /** Sets everything but the name; a null secret keeps the one it has. */
    public void change(String newUrl, String newSecret, Set<EventType> newTypes, boolean nowEnabled, String by, Instant now) {
        this.url = requireUrl(newUrl);
        if (newSecret != null) {
            this.secret = requireSecret(newSecret);
        }
        this.types = newTypes == null || newTypes.isEmpty() ? null
                : newTypes.stream().sorted().map(EventType::wireName).collect(Collectors.joining(","));
        this.enabled = nowEnabled;
        this.updatedBy = Objects.requireNonNull(by, "by");
        this.updatedAt = now;
    }

    /** Whether a webhook could have this name. */
    public static boolean isName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    public static String requireName(String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("a webhook's name is 1 to " + NAME_LENGTH + " lower-case letters, digits and dashes,"
                    + " starting with a letter or digit");
        }
        return name;
    }

    public static String requireUrl(String url) {
        if (url == null || url.isEmpty()) {
            throw new IllegalArgumentException("'url' is required: an http or https URL");
        }
        if (url.length() > URL_LENGTH) {
            throw new IllegalArgumentException("'url' has at most " + URL_LENGTH + " characters; this one has " + url.length());
        }
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c <= ' ' || c == 0x7F || !(c < 0x80)) {
                throw new IllegalArgumentException("'url' may not contain a blank, a control or a non-ASCII character (position " + i
                        + "); encode it");
            }
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'url' is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("'url' must be an http or https URL");
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("'url' needs a host, and takes no user name, password or fragment (put secrets in 'secret')");
        }
        if (uri.getPort() != -1 && (uri.getPort() < 1 || uri.getPort() > 65535)) {
            throw new IllegalArgumentException("'url' has port " + uri.getPort() + "; a port is 1 to 65535");
        }
        return url;
    }

    private static String requireSecret(String secret) {
        if (secret.length() < SECRET_MIN || secret.length() > SECRET_LENGTH) {
            throw new IllegalArgumentException("'secret' has " + SECRET_MIN + " to " + SECRET_LENGTH + " characters");
        }
        for (int i = 0; i < secret.length(); i++) {
            char c = secret.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw new IllegalArgumentException("'secret' is printable ASCII without blanks (position " + i + " is not)");
            }
        }
        return secret;
    }

    /** The types named, in the form {@code dead-lettered,held}; unknown names are refused. */
    public static Set<EventType> types(List<String> names) {
        Set<EventType> found = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String name : names) {
            EventType.ofWireName(name).ifPresentOrElse(found::add, () -> unknown.add(name));
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown event type(s); the types are "
                    + Arrays.stream(EventType.values()).map(EventType::wireName).toList());
        }
        return found;
    }

    /** Whether it wants events of this type. */
    public boolean wants(String type) {
        return types == null || Arrays.asList(types.split(",")).contains(type);
    }

    public List<String> typeNames() {
        return types == null ? List.of() : List.of(types.split(","));
    }

    /**
     * The URL as a viewer sees it, {@code scheme://host[:port]/…}: the path and query of a chat service's webhook URL
     * (Slack, Teams, Discord) are the credential that lets anyone post to it.
     */
    public String maskedUrl() {
        URI uri = URI.create(url);
        return origin(url) + (uri.getPort() == -1 ? "" : ":" + uri.getPort()) + "/…";
    }

    /** {@code scheme://host} of a URL, all a log may say of it (see {@link #maskedUrl}). */
    public static String origin(String url) {
        URI uri = URI.create(url);
        return uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost();
    }

    public boolean hasSecret() {
        return secret != null;
    }

    /** The secret, to sign a delivery with: nothing else reads it. */
    public String signingSecret() {
        return secret;
    }

    public boolean fromConfiguration() {
        return source == Source.CONFIGURATION;
    }

    public String name() { return name; }
    public String url() { return url; }
    public boolean enabled() { return enabled; }
    public Source source() { return source; }
    public Instant createdAt() { return createdAt; }
    public Instant updatedAt() { return updatedAt; }
    public String updatedBy() { return updatedBy; }
    /**
     * Which webhook of this name, as of which change: its creation time and its version (which rises with every change).
     * A form drawn at one revision changes only that one ({@code Webhooks#update}): not a newer change of it, nor another
     * webhook created under the name after this one was deleted (its version starts again at 0).
     */
    public String revision() { return createdAt + "/" + version; }
}
