package dev.lazarus.platform.control;

import jakarta.ejb.ApplicationException;
import java.util.List;

/**
 * A request the API refuses, with what the client needs to fix it; rendered as RFC 9457
 * {@code application/problem+json} by {@link dev.lazarus.platform.boundary.ProblemMapper}.
 */
@ApplicationException(rollback = true) // reaches the caller as itself, not wrapped, and undoes the work
public class Problem extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;

    public Problem(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    public static Problem badRequest(String detail) {
        return new Problem(400, "Bad request", detail);
    }

    public static Problem notFound(String detail) {
        return new Problem(404, "Not found", detail);
    }

    public static Problem conflict(String detail) {
        return new Problem(409, "Conflict", detail);
    }

    public static Problem tooLarge(String detail) {
        return new Problem(413, "Payload too large", detail);
    }

    public static Problem unprocessable(String detail) {
        return new Problem(422, "Unprocessable request", detail);
    }

    /** The most issues one detail lists; a client fixes those and learns of the rest on its next try. */
    static final int LISTED_ISSUES = 10;

    /** "2 of 500 runs are not valid: a; b", at most {@value #LISTED_ISSUES} issues, then how many more. */
    public static String listing(List<String> issues, String ofWhat) {
        String shown = String.join("; ", issues.subList(0, Math.min(LISTED_ISSUES, issues.size())));
        return issues.size() + " of " + ofWhat + " are not valid: " + shown
                + (issues.size() > LISTED_ISSUES ? "; and " + (issues.size() - LISTED_ISSUES) + " more" : "");
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return getMessage();
    }
}
