package dev.lazarus.admin.boundary;

import jakarta.faces.event.PhaseEvent;
import jakarta.faces.event.PhaseId;
import jakarta.faces.event.PhaseListener;
import java.util.Map;

/**
 * Forgets what Mojarra keeps in a session about the CDI {@code @ViewScoped} beans of views it has already let go of.
 *
 * <p>A session keeps the view maps of its last pages ({@code com.sun.faces.numberOfActiveViewMaps}, see web.xml); when a
 * page's view map is dropped, Mojarra destroys its beans but leaves the view's entry in the session attribute
 * {@value #ACTIVE_VIEW_CONTEXTS} (the names of that view's beans). Every load of a page with a view-scoped bean adds
 * one, for as long as the session lives: {@code ResourceIT} saw a session grow by some 150 bytes a page load, without
 * end (an operator's console open all day: megabytes). After each rendered page this removes the entries of views the session no longer keeps. A view being drawn right
 * now is among those kept from the moment its view map exists (before any bean of it), so nothing in use is touched.
 *
 * <p>Written for Mojarra 4.0.13 (WildFly 39). A later Mojarra (4.0.19) destroys a view map dropped while its request
 * still runs only when that request ends, reading this bookkeeping then: with it (found by its {@code releaseViewMaps}),
 * this listener does nothing and says so once in the log; {@code ResourceIT} then shows whether the growth is still
 * there. One narrow race is left to Mojarra 4.0.13's own code: a view dropped from the kept ones in the instant between
 * its bean's bookkeeping being made and read (a dozen requests of one session at once) fails that one request.
 */
public class ViewScopeBookkeeping implements PhaseListener {

    private static final long serialVersionUID = 1L;

    /** Mojarra's names of the two session attributes (4.0: {@code ViewScopeContextManager}, {@code ViewScopeManager}). */
    static final String ACTIVE_VIEW_CONTEXTS = "com.sun.faces.application.view.activeViewContexts";
    static final String ACTIVE_VIEW_MAPS = "com.sun.faces.application.view.activeViewMaps";

    @Override
    public PhaseId getPhaseId() {
        return PhaseId.RENDER_RESPONSE;
    }

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(ViewScopeBookkeeping.class.getName());

    /** Whether this Mojarra destroys dropped view maps when their requests end (then it needs its bookkeeping until then). */
    private static volatile Boolean mojarraDefersDestruction;

    @Override
    public void afterPhase(PhaseEvent event) {
        if (defersDestruction(event.getFacesContext().getClass().getClassLoader())) {
            return;
        }
        var external = event.getFacesContext().getExternalContext();
        if (external.getSession(false) == null) {
            return;
        }
        Map<String, Object> session = external.getSessionMap();
        if (session.get(ACTIVE_VIEW_CONTEXTS) instanceof Map<?, ?> contexts && session.get(ACTIVE_VIEW_MAPS) instanceof Map<?, ?> kept) {
            forgetDropped(contexts, kept);
        }
    }

    private static boolean defersDestruction(ClassLoader faces) {
        Boolean defers = mojarraDefersDestruction;
        if (defers == null) {
            defers = false;
            try {
                defers = java.util.Arrays.stream(Class.forName("com.sun.faces.application.view.ViewScopeManager", false, faces).getDeclaredMethods())
                        .anyMatch(method -> method.getName().equals("releaseViewMaps"));
            } catch (ClassNotFoundException notMojarra) {
                // not Mojarra: the attributes are not there either, and nothing is removed
            }
            if (defers) {
                LOG.info("Mojarra destroys dropped view maps when their requests end: the session's view-scope bookkeeping is left to it");
            }
            mojarraDefersDestruction = defers;
        }
        return defers;
    }

    /** Removes the entries of {@code contexts} whose view is not among {@code kept} (a synchronized map: its monitor held). */
    static void forgetDropped(Map<?, ?> contexts, Map<?, ?> kept) {
        if (contexts.size() <= kept.size()) {
            return; // nothing dropped yet: the usual case, and no lock taken
        }
        synchronized (kept) {
            contexts.keySet().removeIf(view -> !kept.containsKey(view));
        }
    }
}
