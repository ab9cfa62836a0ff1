package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.BulkJob;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
import dev.lazarus.deadletter.entity.RootCause;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.control.TextInput;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The investigation workflow's actions other than requeue (see {@link RequeueService}): take into
 * investigation, add a note, resolve manually, discard. The actor is always the authenticated caller, never
 * something the request says (a bulk job's is the operator who started it); the admin pages, the REST API and the
 * bulk jobs all come here.
 */
@Stateless
@RolesAllowed("operator")
public class Investigations {

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /** {@code note} is optional. */
    public DeadLetter startInvestigation(long id, String note) {
        String checked = TextInput.text("note", note, DeadLetterEvent.NOTE_LENGTH);
        return act(id, d -> d.startInvestigation(caller(), checked, clock.instant()));
    }

    public DeadLetter addNote(long id, String note) {
        String checked = requiredNote(note, "say what you found or did");
        return act(id, d -> d.addNote(caller(), checked, clock.instant()));
    }

    public DeadLetter resolve(long id, String note) {
        return resolve(id, note, null);
    }

    /** Resolves it, recording why it happened: {@code rootCause} is a {@link RootCause} name (any case), or null for none. */
    public DeadLetter resolve(long id, String note, String rootCause) {
        String checked = requiredNote(note, "say what was done");
        RootCause cause = checkedRootCause(rootCause);
        return act(id, d -> d.resolve(caller(), checked, cause, clock.instant()));
    }

    /** A root cause as a request names it, checked as every resolve checks it: one of {@link RootCause}, or none. */
    public static RootCause checkedRootCause(String rootCause) {
        try {
            return RootCause.named(rootCause);
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
    }

    public DeadLetter discard(long id, String note) {
        String checked = requiredNote(note, "say why it is not worth bringing back");
        return act(id, d -> d.discard(caller(), checked, clock.instant()));
    }

    /**
     * The discards or resolves of one batch of a bulk job ({@link BulkJobBatches}), in its transaction, which holds the
     * dead letters locked: each closed by the same rule as a single one, with who ({@code operator}, the job's requester)
     * and why ({@code note}, the job's, checked when it started) in its audit trail. One no longer open (closed meanwhile)
     * is skipped with why.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public BulkJobBatches.Outcome closeAll(BulkJob.Action action, List<DeadLetter> batch, String operator, String note) {
        return closeAll(action, batch, operator, note, null);
    }

    /** The same, a resolve recording {@code rootCause} (optional) with each dead letter. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public BulkJobBatches.Outcome closeAll(BulkJob.Action action, List<DeadLetter> batch, String operator, String note, RootCause rootCause) {
        if (!action.closes()) {
            throw new IllegalArgumentException(action + " does not close dead letters");
        }
        Instant now = clock.instant();
        int closed = 0;
        List<String> skipped = new ArrayList<>();
        for (DeadLetter deadLetter : batch) {
            try {
                if (action == BulkJob.Action.DISCARD) {
                    deadLetter.discard(operator, note, now);
                } else {
                    deadLetter.resolve(operator, note, rootCause, now);
                }
                closed++;
            } catch (IllegalStateException notOpen) {
                skipped.add(deadLetter.id() + ": " + notOpen.getMessage());
            }
        }
        return new BulkJobBatches.Outcome(closed, 0, skipped);
    }

    /** An operator's note, as every action that takes one checks it: required here, one limit everywhere. */
    static String requiredNote(String note, String why) {
        return TextInput.requiredText("note", note, DeadLetterEvent.NOTE_LENGTH, why);
    }

    private DeadLetter act(long id, Consumer<DeadLetter> action) {
        DeadLetter deadLetter = em.find(DeadLetter.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (deadLetter == null) {
            throw Problem.notFound("no dead letter " + id);
        }
        try {
            action.accept(deadLetter);
        } catch (IllegalStateException e) {
            throw Problem.conflict(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
        em.flush();
        return deadLetter;
    }

    private String caller() {
        return session.getCallerPrincipal().getName();
    }
}
