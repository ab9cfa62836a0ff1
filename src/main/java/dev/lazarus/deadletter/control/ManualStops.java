package dev.lazarus.deadletter.control;

import dev.lazarus.pipeline.boundary.RunStops;
import jakarta.annotation.Resource;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.util.UUID;

/**
 * An operator stops a live run by hand: the REST API and the run page both come here. Who is the authenticated caller,
 * never something the request says; why is their note, checked like every note. The stop itself is the dead-letter
 * service's ({@link DeadLetterService#stop}): a run and its dead letter change in one place.
 */
@Stateless
@RolesAllowed("operator")
public class ManualStops implements RunStops {

    @Inject
    DeadLetterService deadLetters;

    @Resource
    SessionContext session;

    @Override
    public long stop(UUID runId, String note) {
        String why = Investigations.requiredNote(note, "say why the run is stopped");
        return deadLetters.stop(runId, session.getCallerPrincipal().getName(), why).id();
    }
}
