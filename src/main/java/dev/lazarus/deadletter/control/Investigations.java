package dev.lazarus.deadletter.control;

import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.deadletter.entity.DeadLetterEvent;
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
        String checked = requiredNote(note, "say what was done");
        return act(id, d -> d.resolve(caller(), checked, clock.instant()));
    }

    public DeadLetter discard(long id, String note) {
        String checked = requiredNote(note, "say why it is not worth bringing back");
        return act(id, d -> d.discard(caller(), checked, clock.instant()));
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
