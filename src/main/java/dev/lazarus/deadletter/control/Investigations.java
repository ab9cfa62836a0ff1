package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.platform.control.Problem;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * The investigation workflow's actions other than requeue (see {@link RequeueService}): take into
 * investigation, add a note, resolve manually, discard. The actor is always the authenticated caller, never
 * something the request says; the admin pages and the REST API both come here.
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

    public DeadLetter startInvestigation(long id, String note) {
        return act(id, d -> d.startInvestigation(caller(), blankToNull(note), clock.instant()));
    }

    public DeadLetter addNote(long id, String note) {
        return act(id, d -> d.addNote(caller(), note, clock.instant()));
    }

    public DeadLetter resolve(long id, String note) {
        return act(id, d -> d.resolve(caller(), note, clock.instant()));
    }

    public DeadLetter discard(long id, String note) {
        return act(id, d -> d.discard(caller(), note, clock.instant()));
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

    private static String blankToNull(String note) {
        return note == null || note.isBlank() ? null : note;
    }
}
