package dev.lazarus.admin.boundary;

import dev.lazarus.events.entity.EventType;
import dev.lazarus.platform.control.Problem;
import dev.lazarus.platform.entity.Text;
import dev.lazarus.webhooks.control.Webhooks;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.faces.context.FacesContext;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The webhooks page ({@code /admin/webhooks.xhtml}): every webhook, where it comes from, what it wants and whether it has
 * a secret ("set"), never the secret itself; its URL masked for viewers. Operators create one, and edit or delete one
 * made over the API or here ({@code ?edit=name}); one from the configuration is changed there only. Every change goes
 * through {@link Webhooks}, which judges it as it judges the API's: what it refuses is a message on the page, and the
 * form is drawn again with what was typed (but the secret, which is never drawn).
 *
 * <p>View-scoped so a button is decoded by the bean that drew its page ({@link FacesActions#outOfDate}); it keeps only
 * the name the address gave and the {@link Webhook#revision revision} of the webhook its edit form was drawn for (a save
 * or delete from a form older than the webhook's last change, or than the webhook, changes nothing and says so). The
 * list is read per request ({@link PageReads}) and the form's values live for their request ({@link WebhookForm}); the
 * secret is a plain password field read from the request, never a component's value, which the view state would keep
 * when any other field is refused.
 */
@Named
@ViewScoped
public class WebhooksPage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    Webhooks webhooks;

    @Inject
    PageReads reads;

    @Inject
    WebhookForm form;

    private String edit;
    private boolean drawn;
    /** The revision of the webhook the edit form was drawn for; null when the page drew no edit form. */
    private String editRevision;

    /** The page's view action: this bean drew it; an edit of no webhook, or of one from the configuration, says why there is no form. */
    public void draw() {
        drawn = true;
        if (isEditing()) {
            Webhook webhook = getWebhook();
            if (webhook == null) {
                FacesActions.warn("No webhook named " + Text.printable(edit, 100) + ".");
                if (!Webhook.isName(edit)) {
                    edit = null; // the view keeps no address-long text that names nothing
                }
            } else if (webhook.fromConfiguration()) {
                FacesActions.warn("Webhook " + webhook.name() + " comes from the configuration (lazarus.webhooks." + webhook.name()
                        + ".*): change it there; the page cannot.");
            } else {
                editRevision = webhook.revision();
            }
        }
    }

    /**
     * Whether this view drew an edit form: decided when it was drawn, so a save of a webhook deleted since is decoded and
     * answered (no webhook of that name), not dropped without a word with the form.
     */
    public boolean isEditForm() {
        return editRevision != null;
    }

    public List<Webhook> getAll() {
        return reads.once("webhooks", webhooks::all);
    }

    /** Whole for an operator, {@code scheme://host[:port]/…} for a viewer: a chat service's webhook URL is a credential. */
    public String url(Webhook webhook) {
        return webhooks.shownUrl(webhook);
    }

    public String types(Webhook webhook) {
        return webhook.typeNames().isEmpty() ? "all" : String.join(", ", webhook.typeNames());
    }

    /** Whether the address names a webhook to edit ({@code ?edit=name}); else the page offers the create form. */
    public boolean isEditing() {
        return edit != null && !edit.isEmpty();
    }

    /** The webhook the address names, or null if there is none of that name. */
    public Webhook getWebhook() {
        return reads.<Optional<Webhook>>once("editing", () -> isEditing() ? webhooks.find(edit) : Optional.empty()).orElse(null);
    }

    /** The event types a webhook may want, by the names events carry: the form's boxes. */
    public List<String> getEventTypes() {
        return Arrays.stream(EventType.values()).map(EventType::wireName).toList();
    }

    public String create() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        Webhook created = FacesActions.act(() -> webhooks.create(form.name(), change("create")), w -> "Webhook " + w.name() + " created.");
        return created == null ? stay() : list();
    }

    public String save() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        boolean newSecret = secret("edit") != null;
        Webhook saved = FacesActions.act(() -> webhooks.update(edit, editRevision, change("edit")),
                w -> "Webhook " + w.name() + " saved" + (newSecret ? " with its new secret." : "; its secret is unchanged."));
        return saved == null ? stay() : list();
    }

    public String delete() {
        if (FacesActions.outOfDate(drawn)) {
            return null;
        }
        String deleted = FacesActions.act(() -> {
            webhooks.delete(edit, editRevision);
            return edit;
        }, name -> "Webhook " + name + " deleted.");
        return deleted == null ? stay() : list();
    }

    /**
     * What the form asks for. An empty secret field is no secret: on an edit the webhook keeps its own, on a create the
     * webhooks say one is needed. The types are named as the API names them, and judged where the API's are.
     */
    private Webhooks.Change change(String formId) {
        Set<EventType> types;
        try {
            types = Webhook.types(form.types() == null ? List.of() : Arrays.asList(form.types()));
        } catch (IllegalArgumentException e) {
            throw Problem.badRequest(e.getMessage());
        }
        return new Webhooks.Change(form.url(), secret(formId), types, isEnabled());
    }

    /** The secret field of the form, as sent; null when it was left empty. */
    private static String secret(String formId) {
        String secret = FacesContext.getCurrentInstance().getExternalContext().getRequestParameterMap().get(formId + ":secret");
        return secret == null || secret.isEmpty() ? null : secret;
    }

    /** After a change: the list, fresh, at its own address (no edit form; a reload does not act again). */
    private static String list() {
        return "webhooks?faces-redirect=true";
    }

    /**
     * After a refusal: the same page, drawn again in this request with the form as it was sent, and the message shown
     * now (not kept for the next page too, as it would be for the redirect after a change).
     */
    private static String stay() {
        FacesContext.getCurrentInstance().getExternalContext().getFlash().setKeepMessages(false);
        return null;
    }

    // the form's fields: what was sent, or else (to edit) the webhook's own; never its secret

    public String getName() { return form.name(); }
    public void setName(String name) { form.name(name); }

    public String getUrl() {
        return form.url() != null || getWebhook() == null ? form.url() : webhooks.shownUrl(getWebhook());
    }

    public void setUrl(String url) { form.url(url); }

    /** What the secret field shows when empty: whether the webhook has one to keep. */
    public String getSecretPlaceholder() {
        return getWebhook() != null && getWebhook().hasSecret() ? "set; leave empty to keep it" : "none";
    }

    public String[] getTypes() {
        return form.types() != null || getWebhook() == null ? form.types() : getWebhook().typeNames().toArray(String[]::new);
    }

    public void setTypes(String[] types) { form.types(types); }

    /** A new webhook is enabled unless the box is unticked. */
    public boolean isEnabled() {
        return form.enabled() != null ? form.enabled() : getWebhook() == null || getWebhook().enabled();
    }

    public void setEnabled(boolean enabled) { form.enabled(enabled); }

    public String getEdit() { return edit; }
    public void setEdit(String edit) { this.edit = edit; }
}
