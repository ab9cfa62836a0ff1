package dev.lazarus.admin.boundary;

import dev.lazarus.deadletter.control.DeadLetters;
import dev.lazarus.deadletter.control.RequeueService;
import dev.lazarus.deadletter.entity.DeadLetter;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.EJBAccessException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Backs the dead-letter page: the list, and the requeue action (the same service as the REST API). */
@Named
@RequestScoped
public class DeadLetterAdmin {

    static final int PAGE_SIZE = 100;

    @Inject
    DeadLetters deadLetters;

    @Inject
    RequeueService requeueService;

    @Inject
    Clock clock;

    @Inject
    FacesContext faces;

    private List<DeadLetter> page;

    public List<DeadLetter> getDeadLetters() {
        if (page == null) {
            page = deadLetters.list(DeadLetters.Filter.ALL, 0, PAGE_SIZE);
        }
        return page;
    }

    public long getOpenCount() {
        return deadLetters.count(new DeadLetters.Filter(null, null, null, true));
    }

    public boolean isOperator() {
        return faces.getExternalContext().isUserInRole("operator");
    }

    public String getUser() {
        var principal = faces.getExternalContext().getUserPrincipal();
        return principal == null ? "" : principal.getName();
    }

    public void requeue(long id) {
        try {
            DeadLetter requeued = requeueService.requeue(id);
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, "Run " + requeued.runId()
                    + " requeued at step " + requeued.stepName() + " (" + requeued.requeueMethod() + ")", null));
        } catch (Problem e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_WARN, e.detail(), null));
        } catch (EJBAccessException e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Requeue needs the operator role.", null));
        }
        page = null;
    }

    /** "3 min", "2 h": how long ago, for a person scanning the list. */
    public String age(Instant since) {
        Duration age = Duration.between(since, clock.instant());
        if (age.toSeconds() < 60) {
            return Math.max(0, age.toSeconds()) + " s";
        }
        if (age.toMinutes() < 60) {
            return age.toMinutes() + " min";
        }
        if (age.toHours() < 48) {
            return age.toHours() + " h";
        }
        return age.toDays() + " d";
    }
}
