package dev.lazarus.admin.boundary;

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
