package dev.lazarus.demo.boundary;

import static dev.lazarus.platform.control.Jsonp.JSON;

import jakarta.ejb.Stateless;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * What the demo's index step committed, for the fault drills: {@code GET /api/demo/index-effects} counts the
 * effects, the dispatches they belong to, and the effects beyond one per dispatch (with
 * up to 20 of their keys). The last number must be 0 whatever crashed.
 */
@Path("demo/index-effects")
@Stateless
@Produces(MediaType.APPLICATION_JSON)
public class IndexEffectsResource {

    @PersistenceContext
    EntityManager em;

    @GET
    public JsonObject effects() {
        long effects = em.createQuery("select count(e) from IndexEffect e", Long.class).getSingleResult();
        long dispatches = em.createQuery("select count(distinct e.idempotencyKey) from IndexEffect e", Long.class).getSingleResult();
        JsonArrayBuilder examples = JSON.createArrayBuilder();
        em.createQuery("select e.idempotencyKey, count(e) from IndexEffect e group by e.idempotencyKey having count(e) > 1",
                        Object[].class)
                .setMaxResults(20)
                .getResultList()
                .forEach(row -> examples.add(JSON.createObjectBuilder().add("key", (String) row[0]).add("effects", (Long) row[1])));
        return JSON.createObjectBuilder()
                .add("effects", effects)
                .add("dispatches", dispatches)
                .add("duplicateEffects", effects - dispatches)
                .add("examples", examples)
                .build();
    }
}
