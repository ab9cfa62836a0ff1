package dev.lazarus.platform.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.platform.control.Failures;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.EJBAccessException;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every refused request gets an {@code application/problem+json} body (RFC 9457) that says what was wrong,
 * never a stack trace: the application's {@link Problem}s, the framework's own 4xx, and a role the caller
 * lacks.
 */
public final class ProblemMapper {

    public static final String PROBLEM_JSON = "application/problem+json";

    private ProblemMapper() {
    }

    static Response problem(int status, String title, String detail) {
        return Response.status(status).type(PROBLEM_JSON).entity(problemJson(status, title, detail)).build();
    }

    /** The problem body itself, for the few refusals made before JAX-RS sees the request. */
    static String problemJson(int status, String title, String detail) {
        JsonObjectBuilder body = JSON.createObjectBuilder()
                .add("type", "about:blank")
                .add("title", title)
                .add("status", status);
        if (detail != null) {
            body.add("detail", detail);
        }
        return body.build().toString();
    }

    @Provider
    public static class Problems implements ExceptionMapper<Problem> {
        @Override
        public Response toResponse(Problem problem) {
            return problem(problem.status(), problem.title(), problem.detail());
        }
    }

    @Provider
    public static class ClientErrors implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException exception) {
            Response.StatusType status = exception.getResponse().getStatusInfo();
            if (status.getStatusCode() >= 500) {
                return exception.getResponse();
            }
            return problem(status.getStatusCode(), status.getReasonPhrase(), exception.getMessage());
        }
    }

    /**
     * Anything else is a server error: logged in full with an id, answered with that id only, so no
     * internals (class names, SQL, stack traces) reach the client. When the broker or the database could not
     * be reached it is 503 with Retry-After: nothing was done, and the same request may be sent again (with an
     * Idempotency-Key when it starts a run, in case it was done after all). When a commit's outcome is not known it is
     * 503 too, saying it may have been done.
     */
    @Provider
    public static class ServerErrors implements ExceptionMapper<Exception> {
        private static final Logger LOG = Logger.getLogger(ServerErrors.class.getName());
        private static final int RETRY_AFTER_SECONDS = 5;

        @Override
        public Response toResponse(Exception exception) {
            String incident = UUID.randomUUID().toString();
            Optional<Failures.Dependency> unavailable = Failures.unavailableDependency(exception);
            if (unavailable.isPresent()) {
                LOG.log(Level.WARNING, "Request refused, incident {0}: {1} is unavailable ({2})",
                        new Object[] {incident, unavailable.get().label(), Failures.rootMessage(exception)});
                return Response.fromResponse(problem(503, "Service unavailable", unavailable.get().label()
                                + " cannot be reached; nothing was done, try again shortly (incident " + incident + ")"))
                        .header("Retry-After", RETRY_AFTER_SECONDS).build();
            }
            if (Failures.commitOutcomeUnknown(exception)) {
                // the database or the broker went away while committing: it may have been done, so no "nothing was done";
                // a run it may have stored is dispatched by the dispatch recovery, and a retry with the same
                // Idempotency-Key finds it
                LOG.log(Level.WARNING, "Request's outcome unknown, incident " + incident, exception);
                return Response.fromResponse(problem(503, "Service unavailable", "the database or the broker went away while the"
                                + " request was committing: it may have been done; look before sending it again (a run's submission"
                                + " sent again with the same Idempotency-Key finds the run it started) (incident " + incident + ")"))
                        .header("Retry-After", RETRY_AFTER_SECONDS).build();
            }
            LOG.log(Level.SEVERE, "Request failed, incident " + incident, exception);
            return problem(500, "Internal server error", "the request failed on the server; the log names incident " + incident);
        }
    }

    @Provider
    public static class AccessDenied implements ExceptionMapper<EJBAccessException> {
        @Override
        public Response toResponse(EJBAccessException exception) {
            return problem(403, "Forbidden", "this action needs the operator role");
        }
    }
}
