package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterStatus;
import dev.lazarus.pipeline.control.NewRuns;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.platform.control.Failures;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunRecreation;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.annotation.Resource;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJBException;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.io.StringReader;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Recreate: a new run of the same pipeline from a dead letter's run or from an ended run, with the same payload or an
 * edited one, rather than resuming the old run. The new run is submitted as any other ({@link Runs}: stored, then its
 * first step dispatched after the commit, the dispatch recovery behind it); in its transaction the link is stored
 * ({@link RunRecreation}: the new run knows the run and dead letter it came from; they find it by index) and, from a
 * dead letter, its audit trail records who recreated it as which run. That dead letter is then resolved with the note
 * "recreated as run ..." unless the operator asks otherwise ({@code resolve: false}); a closed one is only noted.
 * The old run is left as it ended, and must have ended: a live run is not recreated (stop it first). That is checked
 * again in the transaction that starts the new run, with the dead letter and the old run locked as a requeue locks them:
 * a requeue that committed after the old run was read makes the recreate a 409 that starts nothing, never a second run
 * doing the same work. With an Idempotency-Key a retry (or a second click) answers the run the first request started.
 *
 * <p>The payload, unless an edited one is given, is the old run's as it is now: what its last step received (for a
 * run stopped at its first step, what it was submitted with; for a completed run, its final output).
 */
@Stateless
@PermitAll // reading the links is a viewer's; the two actions say who may take them (WildFly denies an unannotated method)
public class Recreations {

    @PersistenceContext
    EntityManager em;

    @Inject
    Runs runs;

    @Inject
    NewRuns newRuns;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /** The new run and what it was recreated from. */
    /** {@code created}: false for the run an earlier request with the same Idempotency-Key started (a retry's answer). */
    public record Recreated(Run run, UUID recreatedFrom, Long deadLetterId, boolean payloadEdited, boolean deadLetterResolved,
                            boolean created) {
    }

    /**
     * From dead letter {@code id}: a new run of its run's pipeline, with {@code payload} (the edited one, already accepted
     * as a submission's) or, when null, the run's own; 404 for no such dead letter (or one of no run), 409 if its run is
     * live. With the client's Idempotency-Key ({@code submissionKey}, null for none) a retry of the very request
     * answers the run the first one started ({@link Recreated#created()} false), whatever happened to the old run since;
     * the key used for another request (another source, payload or resolve, or a submission) is refused (422).
     */
    @RolesAllowed("operator")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Recreated fromDeadLetter(long id, JsonObject payload, boolean resolve, String submissionKey) {
        DeadLetter deadLetter = Optional.ofNullable(em.find(DeadLetter.class, id))
                .orElseThrow(() -> Problem.notFound("no dead letter " + id));
        if (deadLetter.runId() == null) {
            throw Problem.conflict("dead letter " + id + " is about a message of no run (" + deadLetter.reason()
                    + "): there is no run to recreate");
        }
        return recreate(deadLetter.runId(), id, payload, resolve, submissionKey, "dead letter " + id);
    }

    /**
     * From run {@code runId} that has ended: a new run of its pipeline (its open dead letter, if any, recorded and
     * resolved as if recreated from it); 404 for no such run, 409 if it is live. The Idempotency-Key as
     * {@link #fromDeadLetter(long, JsonObject, boolean, String)} takes it.
     */
    @RolesAllowed("operator")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Recreated fromRun(UUID runId, JsonObject payload, boolean resolve, String submissionKey) {
        Long open = em.createQuery("select d.id from DeadLetter d where d.openRunId = :run", Long.class)
                .setParameter("run", runId).setMaxResults(1).getResultStream().findFirst().orElse(null);
        return recreate(runId, open, payload, resolve, submissionKey, "run " + runId);
    }

    /** The runs recreated from {@code runId}, oldest first (at most 100). */
    public List<RunRecreation> recreatedAs(UUID runId) {
        return em.createQuery("select r from RunRecreation r where r.recreatedFrom = :run order by r.createdAt", RunRecreation.class)
                .setParameter("run", runId).setMaxResults(100).getResultList();
    }

    /** The runs recreated from dead letter {@code id}, oldest first (at most 100). */
    public List<RunRecreation> recreatedFromDeadLetter(long id) {
        return em.createQuery("select r from RunRecreation r where r.deadLetterId = :id order by r.createdAt", RunRecreation.class)
                .setParameter("id", id).setMaxResults(100).getResultList();
    }

    /** A recreation as the run's story tells it: the other run, the dead letter, who and when. */
    public record Link(UUID run, Long deadLetterId, boolean payloadEdited, String by, Instant at) {
    }

    /** Where {@code runId} came from (null if it was submitted) and the runs recreated from it. */
    public record Links(Link recreatedFrom, List<Link> recreatedAs) {
    }

    public Links links(UUID runId) {
        Link from = recreatedFrom(runId).map(r -> new Link(r.recreatedFrom(), r.deadLetterId(), r.payloadEdited(), r.createdBy(),
                r.createdAt())).orElse(null);
        return new Links(from, recreatedAs(runId).stream().map(r -> new Link(r.runId(), r.deadLetterId(), r.payloadEdited(),
                r.createdBy(), r.createdAt())).toList());
    }

    /** What {@code runId} was recreated from, if it was. */
    public Optional<RunRecreation> recreatedFrom(UUID runId) {
        return Optional.ofNullable(em.find(RunRecreation.class, runId));
    }

    private Recreated recreate(UUID oldRunId, Long deadLetterId, JsonObject edited, boolean resolve, String submissionKey,
                               String source) {
        Run old = runs.find(oldRunId).orElseThrow(() -> Problem.notFound("no run " + oldRunId
                + (deadLetterId != null ? " (dead letter " + deadLetterId + "'s run is gone)" : "")));
        // what a retry with the Idempotency-Key must repeat: where from, the edited payload (if any), whether to resolve
        String request = submissionKey == null ? null : "recreate " + source + "\n" + (edited == null ? "-" : NewRuns.canonical(edited))
                + "\nresolve " + resolve;
        if (submissionKey != null) {
            // a retry is answered before the checks below: the old run may have been requeued since the first request
            Optional<Recreated> replayed = replay(old.pipeline(), submissionKey, request);
            if (replayed.isPresent()) {
                return replayed.get();
            }
        }
        if (old.state().isLive()) {
            throw live(old);
        }
        // what the new run is made of was read here, outside the transaction: checked again there, under lock
        long generation = old.generation();
        DeadLetterStatus status = deadLetterId == null ? null
                : Optional.ofNullable(em.find(DeadLetter.class, deadLetterId)).map(DeadLetter::status).orElse(null);
        JsonObject payload = edited != null ? edited : parse(old.payload());
        String operator = Text.truncate(session.getCallerPrincipal().getName(), RunRecreation.ACTOR_LENGTH);
        boolean[] resolved = {false};
        Runs.Started started;
        try {
            started = runs.startAlong(old.pipeline(), payload, submissionKey, request, run -> {
                // the dead letter, then its run: the order every requeue locks them in
                DeadLetter deadLetter = deadLetterId == null ? null : em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
                Run current = em.find(Run.class, oldRunId, LockModeType.PESSIMISTIC_WRITE);
                if (current == null) {
                    throw Problem.notFound("no run " + oldRunId + " (it was deleted meanwhile)");
                }
                if (current.state().isLive()) {
                    throw live(current); // requeued (by hand, a job or the console's Retry) since it was read
                }
                if (current.generation() != generation || deadLetter == null && deadLetterId != null
                        || deadLetter != null && deadLetter.status() != status) {
                    throw Problem.conflict("run " + oldRunId + " changed while it was being recreated (it is " + current.state()
                            + " at step " + current.currentStep() + ", dispatch " + current.generation() + (deadLetter != null
                            ? "; dead letter " + deadLetterId + " is " + deadLetter.status() : "") + "): nothing was started;"
                            + " look at it again, and recreate it if it still should be");
                }
                Instant at = clock.instant();
                em.persist(new RunRecreation(run.id(), oldRunId, deadLetterId, edited != null, operator, at));
                if (deadLetter != null) {
                    String detail = JSON.createObjectBuilder().add("run", run.id().toString()).add("recreatedFrom", oldRunId.toString())
                            .add("payloadEdited", edited != null).build().toString();
                    resolved[0] = deadLetter.recreated(operator, run.id(), resolve, detail, at);
                }
            });
        } catch (Problem refused) {
            // a retry that raced the first request waited for its locks and then found the run it had read changed by it
            if (submissionKey != null && refused.status() == 409) {
                return replay(old.pipeline(), submissionKey, request).orElseThrow(() -> refused);
            }
            throw refused;
        } catch (EJBException raced) {
            // the same request twice at once: the later one's insert fails on the key, and the earlier one's run is there
            if (submissionKey != null && Failures.isDuplicateKey(raced)) {
                return replay(old.pipeline(), submissionKey, request).orElseThrow(() -> raced);
            }
            if (submissionKey != null && Failures.isLockTimeout(raced)) {
                throw Problem.conflict("a recreate with this Idempotency-Key is still in progress; retry it shortly");
            }
            throw raced;
        }
        if (!started.created()) {
            return replay(old.pipeline(), submissionKey, request).orElseThrow();
        }
        return new Recreated(started.run(), oldRunId, deadLetterId, edited != null, resolved[0], true);
    }

    /** The run an earlier recreate with this Idempotency-Key started, as that request answered it. */
    private Optional<Recreated> replay(String pipeline, String submissionKey, String request) {
        return newRuns.earlier(pipeline, submissionKey, request).map(run -> {
            RunRecreation link = recreatedFrom(run.id()).orElseThrow(() -> Problem.unprocessable("Idempotency-Key '"
                    + submissionKey + "' was already used to submit run " + run.id() + "; a recreate needs a key of its own"));
            DeadLetter deadLetter = link.deadLetterId() == null ? null : em.find(DeadLetter.class, link.deadLetterId());
            // resolved by that request: resolved by its hand at the very instant the link was recorded
            boolean resolvedThen = deadLetter != null && deadLetter.status() == DeadLetterStatus.RESOLVED_MANUALLY
                    && link.createdAt().equals(deadLetter.closedAt()) && link.createdBy().equals(deadLetter.closedBy());
            return new Recreated(run, link.recreatedFrom(), link.deadLetterId(), link.payloadEdited(), resolvedThen, false);
        });
    }

    private static Problem live(Run run) {
        return Problem.conflict("run " + run.id() + " is still live (" + run.state() + " at step " + run.currentStep()
                + "): only a completed or dead-lettered run is recreated; stop it first, or wait for it to end");
    }

    private static JsonObject parse(String payload) {
        try (var reader = JSON.createReader(new StringReader(payload))) {
            return reader.readObject();
        }
    }
}
