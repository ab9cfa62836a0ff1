package dev.lazarus.admin.boundary;

import jakarta.enterprise.context.RequestScoped;

/**
 * What the webhooks page's create or edit form sent, for the one request that acts on it, and for drawing the form
 * again with it if the action was refused; forgotten with the request (see {@link FormInput} for why not fields of the
 * view-scoped page bean). The secret is not here: the page reads it from the request (see {@link WebhooksPage}).
 */
@RequestScoped
public class WebhookForm {

    private String name;
    private String url;
    private String[] types;
    private Boolean enabled;

    String name() { return name; }
    void name(String name) { this.name = name; }
    String url() { return url; }
    void url(String url) { this.url = url; }
    String[] types() { return types; }
    void types(String[] types) { this.types = types; }
    Boolean enabled() { return enabled; }
    void enabled(Boolean enabled) { this.enabled = enabled; }
}
