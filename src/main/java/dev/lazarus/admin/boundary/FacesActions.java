package dev.lazarus.admin.boundary;

import dev.lazarus.platform.entity.Text;
import dev.lazarus.platform.control.Problem;
import jakarta.ejb.EJBAccessException;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/** What every admin page does around an action: run it, and say what happened or why it was refused. */
final class FacesActions {

    private FacesActions() {
    }

    static <T> T act(Supplier<T> action, String done) {
        return act(action, result -> done);
    }

    /**
     * @return the action's result, or null if it was refused (the reason is shown as a message, also after the
     *         redirect that follows an action)
     */
    static <T> T act(Supplier<T> action, Function<T, String> done) {
        return act(action, done, refused -> { });
    }

    /** The same; {@code refused} learns of the refusal too (a page that decides where to go next by it). */
    static <T> T act(Supplier<T> action, Function<T, String> done, Consumer<Problem> refused) {
        FacesContext faces = FacesContext.getCurrentInstance();
        faces.getExternalContext().getFlash().setKeepMessages(true);
        try {
            T result = action.get();
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, done.apply(result), null));
            return result;
        } catch (Problem e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_WARN, e.detail(), null));
            refused.accept(e);
        } catch (EJBAccessException e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "This action needs the operator role.", null));
        }
        return null;
    }

    /**
     * Where every action on a page goes next: the same page, fetched again with its parameters in the URL (so it
     * shows what the action changed, can be reloaded without acting twice, and keeps its address).
     */
    static String reload(String view) {
        return view + "?faces-redirect=true&includeViewParams=true";
    }

    /**
     * Whether a button was pressed on a page this bean did not draw: the session no longer kept the bean that drew it
     * (it keeps a few, see web.xml), and a new one knows nothing of what the page showed (its filter, its rows). Then
     * nothing is done, and the page says so; the operator presses again on the page as it is now.
     */
    static boolean outOfDate(boolean drawn) {
        if (drawn) {
            return false;
        }
        FacesContext faces = FacesContext.getCurrentInstance();
        faces.getExternalContext().getFlash().setKeepMessages(true);
        warn(OUT_OF_DATE);
        try {
            // the page as it is now, with the parameters it was drawn with (the new bean learnt them from the view's state)
            faces.getExternalContext().redirect(ExpiredViews.pageOf(faces, faces.getViewRoot().getViewId(), true));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        faces.responseComplete();
        return true;
    }

    static final String OUT_OF_DATE = "This page was out of date (it was open too long, or in too many tabs), so nothing was"
            + " done. Here it is again: check it and try once more.";

    /**
     * A page's id parameter as a number; null when it is missing or none, and then (if {@code what} names the thing)
     * the page says so instead of showing "no such thing 0".
     */
    static Long idOf(String id, String what) {
        if (id == null || id.isBlank()) {
            if (what != null) {
                warn("No " + what + " named: the address needs ?id=");
            }
            return null;
        }
        try {
            return Long.valueOf(id.strip());
        } catch (NumberFormatException e) {
            if (what != null) {
                warn("'" + Text.printable(id, 40) + "' is not a " + what + " id (a whole number).");
            }
            return null;
        }
    }

    static void warn(String text) {
        FacesContext.getCurrentInstance().addMessage(null, new FacesMessage(FacesMessage.SEVERITY_WARN, text, null));
    }

    /** "42 s", "3 min", "5 h", "2 d": how long, for a person scanning a list. */
    static String human(Duration duration) {
        if (duration == null) {
            return "—";
        }
        long seconds = Math.max(0, duration.toSeconds());
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min";
        }
        if (seconds < 48 * 3600) {
            return seconds / 3600 + " h";
        }
        return seconds / 86400 + " d";
    }

    static String age(Instant since, Instant now) {
        return since == null ? "—" : human(Duration.between(since, now));
    }
}
