package dev.lazarus.webhooks.control;

import dev.lazarus.events.entity.EventType;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.annotation.Resource;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import jakarta.inject.Inject;

/**
 * The webhooks: the API, the admin page and the configuration all change them here. Changing needs the operator role;
 * a webhook from the configuration is read-only (409): it is rewritten at every start from the system properties.
 */
@Stateless
@PermitAll
public class Webhooks {

    @PersistenceContext
    EntityManager em;

    @Inject
    Clock clock;

    @Resource
    SessionContext session;

    /** What a create or an update says; a null secret (on an update) keeps the one the webhook has. */
    public record Change(String url, String secret, Set<EventType> types, boolean enabled) {
    }

    public List<Webhook> all() {
        return em.createQuery("select w from Webhook w order by w.name", Webhook.class).getResultList();
    }

    /** Its URL as the caller may see it: whole for an operator, {@link Webhook#maskedUrl masked} for anyone else. */
    public String shownUrl(Webhook webhook) {
        return session.isCallerInRole("operator") ? webhook.url() : webhook.maskedUrl();
    }

    /** Empty for a name no webhook can have (a NUL, say, which the database would refuse to read). */
    public Optional<Webhook> find(String name) {
        try {
            Webhook.requireName(name);
        } catch (IllegalArgumentException none) {
            return Optional.empty();
        }
        return Optional.ofNullable(em.find(Webhook.class, name));
    }

    /** 409 if one of that name exists, or is created meanwhile. */
    @RolesAllowed("operator")
    public Webhook create(String name, Change change) {
        valid(() -> {
            Webhook.requireName(name);
            return null;
        });
        if (find(name).isPresent()) {
            throw Problem.conflict("a webhook named " + name + " exists; update it instead");
        }
        if (change.secret() == null) {
            throw Problem.badRequest("'secret' is required: deliveries are signed with it");
        }
        Webhook webhook = valid(() -> new Webhook(name, Webhook.Source.API, change.url(), change.secret(), change.types(), change.enabled(),
                caller(), clock.instant()));
        em.persist(webhook);
        try {
            em.flush(); // two creates of one name at once: the second waits for the first and then clashes here, not at commit (a 500)
        } catch (PersistenceException e) {
            if (!dev.lazarus.platform.control.Failures.isDuplicateKey(e)) {
                throw e; // the database away, say: a 503, not a clash
            }
            throw Problem.conflict("a webhook named " + name + " was just created by another request; update it instead");
        }
        return webhook;
    }

    /**
     * 404 for none of that name, 409 for one from the configuration, or for one changed since {@code seenRevision} (the
     * {@link Webhook#revision} a page drew its form at; null, as from the API, for whatever it is now). A change that races another of
     * the same webhook is a 409 too, here, not at commit (which would be a 500).
     */
    @RolesAllowed("operator")
    public Webhook update(String name, String seenRevision, Change change) {
        Webhook webhook = changeable(name, seenRevision);
        valid(() -> {
            webhook.change(change.url(), change.secret(), change.types(), change.enabled(), caller(), clock.instant());
            return webhook;
        });
        flush(name);
        return webhook;
    }

    /** As {@link #update}: 404, 409 for one from the configuration, changed since {@code seenRevision} or meanwhile. */
    @RolesAllowed("operator")
    public void delete(String name, String seenRevision) {
        em.remove(changeable(name, seenRevision));
        flush(name);
    }

    /**
     * Writes the change now: of two at once, the second waits for the first and then finds the webhook's version moved
     * (or its row gone), which is a 409 to retry after a reload, not an error at commit.
     */
    private void flush(String name) {
        try {
            em.flush();
        } catch (OptimisticLockException e) {
            throw Problem.conflict("webhook " + name + " was changed or deleted by another request meanwhile: read it again and retry");
        }
    }

    private Webhook changeable(String name, String seenRevision) {
        Webhook webhook = find(name).orElseThrow(() -> Problem.notFound("no webhook named " + dev.lazarus.platform.entity.Text.printable(name, 100)));
        if (webhook.fromConfiguration()) {
            throw Problem.conflict("webhook " + name + " comes from the configuration (lazarus.webhooks." + name + ".*): change it there");
        }
        if (seenRevision != null && !seenRevision.equals(webhook.revision())) {
            throw Problem.conflict("webhook " + name + " was changed since this form was drawn (by " + webhook.updatedBy()
                    + "): nothing was changed; reload it and make the change again");
        }
        return webhook;
    }

    private static Webhook valid(java.util.function.Supplier<Webhook> change) {
        try {
            return change.get();
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
    }

    private String caller() {
        return session.getCallerPrincipal().getName();
    }
}
