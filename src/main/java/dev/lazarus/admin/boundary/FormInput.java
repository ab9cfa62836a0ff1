package dev.lazarus.admin.boundary;

import jakarta.enterprise.context.RequestScoped;

/**
 * What a page's form sent (a note, a payload or a step's output to fix a run with, a rate), for the one request that
 * acts on it, and for drawing the page again with it if the action was refused; forgotten with the request.
 *
 * <p>Why not fields of the view-scoped page beans, which the forms name ({@code #{deadLetterPage.note}}): those live
 * as long as the session keeps their page (see {@link PageReads}), so the text would be kept with each of a session's
 * pages, each up to the request limit (1 MiB), for as long as the session lasts. The page beans hand their form's
 * values to this bean instead. The services check each value against its own limit (a note's 4 000 characters, a
 * payload's bytes) when the action runs.
 */
@RequestScoped
public class FormInput {

    private String note;
    private String payload;
    private String rootCause;
    private String output;
    private String rate;
    private String recreatePayload;

    String note() { return note; }
    void note(String note) { this.note = note; }
    String rootCause() { return rootCause; }
    void rootCause(String rootCause) { this.rootCause = rootCause; }
    String payload() { return payload; }
    void payload(String payload) { this.payload = payload; }
    String output() { return output; }
    void output(String output) { this.output = output; }
    String rate() { return rate; }
    String recreatePayload() { return recreatePayload; }
    void recreatePayload(String recreatePayload) { this.recreatePayload = recreatePayload; }
    void rate(String rate) { this.rate = rate; }
}
