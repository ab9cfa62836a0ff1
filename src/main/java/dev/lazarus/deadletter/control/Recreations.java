package dev.lazarus.deadletter.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.pipeline.control.Runs;
import dev.lazarus.pipeline.entity.Run;
import dev.lazarus.pipeline.entity.RunRecreation;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import jakarta.annotation.Resource;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
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
 * The old run is left as it ended, and must have ended: a live run is not recreated (stop it first).
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
    Clock clock;

    @Resource
    SessionContext session;

    /** The new run and what it was recreated from. */
    public record Recreated(Run run, UUID recreatedFrom, Long deadLetterId, boolean payloadEdited, boolean deadLetterResolved) {
    }

    /**
     * From dead letter {@code id}: a new run of its run's pipeline.
     *
     * @param payload the edited payload (already accepted as a submission's), or null for the run's own
     * @throws Problem 404 for no such dead letter (or one of no run, or whose run is gone), 409 if its run is live
     */
    @RolesAllowed("operator")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Recreated fromDeadLetter(long id, JsonObject payload, boolean resolve) {
        DeadLetter deadLetter = Optional.ofNullable(em.find(DeadLetter.class, id))
                .orElseThrow(() -> Problem.notFound("no dead letter " + id));
        if (deadLetter.runId() == null) {
            throw Problem.conflict("dead letter " + id + " is about a message of no run (" + deadLetter.reason()
                    + "): there is no run to recreate");
        }
        return recreate(deadLetter.runId(), id, payload, resolve);
    }

    /**
     * From an ended run ({@code COMPLETED} or {@code DEAD_LETTERED}): a new run of its pipeline. A dead-lettered run's
     * open dead letter, if it has one, is recorded (and resolved) as if it had been recreated from it.
     *
     * @throws Problem 404 for no such run, 409 if it is live
     */
    @RolesAllowed("operator")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Recreated fromRun(UUID runId, JsonObject payload, boolean resolve) {
        Long open = em.createQuery("select d.id from DeadLetter d where d.openRunId = :run", Long.class)
                .setParameter("run", runId).setMaxResults(1).getResultStream().findFirst().orElse(null);
        return recreate(runId, open, payload, resolve);
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

    private Recreated recreate(UUID oldRunId, Long deadLetterId, JsonObject edited, boolean resolve) {
        Run old = runs.find(oldRunId).orElseThrow(() -> Problem.notFound("no run " + oldRunId
                + (deadLetterId != null ? " (dead letter " + deadLetterId + "'s run is gone)" : "")));
        if (old.state().isLive()) {
            throw Problem.conflict("run " + oldRunId + " is still live (" + old.state() + " at step " + old.currentStep()
                    + "): only a completed or dead-lettered run is recreated; stop it first, or wait for it to end");
        }
        JsonObject payload = edited != null ? edited : parse(old.payload());
        String operator = Text.truncate(session.getCallerPrincipal().getName(), RunRecreation.ACTOR_LENGTH);
        boolean[] resolved = {false};
        Runs.Started started = runs.startAlong(old.pipeline(), payload, run -> {
            Instant now = clock.instant();
            em.persist(new RunRecreation(run.id(), oldRunId, deadLetterId, edited != null, operator, now));
            if (deadLetterId != null) {
                DeadLetter deadLetter = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
                String detail = JSON.createObjectBuilder().add("run", run.id().toString()).add("recreatedFrom", oldRunId.toString())
                        .add("payloadEdited", edited != null).build().toString();
                resolved[0] = deadLetter.recreated(operator, run.id(), resolve, detail, now);
            }
        });
        return new Recreated(started.run(), oldRunId, deadLetterId, edited != null, resolved[0]);
    }

    private static JsonObject parse(String payload) {
        try (var reader = JSON.createReader(new StringReader(payload))) {
            return reader.readObject();
        }
    }
}
