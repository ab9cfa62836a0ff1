package dev.lazarus.admin.boundary;

import dev.lazarus.webhooks.control.Webhooks;
import dev.lazarus.webhooks.entity.Webhook;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.List;

/**
 * The webhooks page ({@code /admin/webhooks.xhtml}): every webhook, where it comes from, what it wants and whether it has
 * a secret ("set"), never the secret itself; its URL masked for viewers. Read-only: webhooks are changed over {@code /api/webhooks} or in the
 * configuration.
 */
@Named
@RequestScoped
public class WebhooksPage {

    @Inject
    Webhooks webhooks;

    private List<Webhook> all;

    public List<Webhook> getAll() {
        if (all == null) {
            all = webhooks.all();
        }
        return all;
    }

    /** Whole for an operator, {@code scheme://host[:port]/…} for a viewer: a chat service's webhook URL is a credential. */
    public String url(Webhook webhook) {
        return webhooks.shownUrl(webhook);
    }

    public String types(Webhook webhook) {
        return webhook.typeNames().isEmpty() ? "all" : String.join(", ", webhook.typeNames());
    }
}
