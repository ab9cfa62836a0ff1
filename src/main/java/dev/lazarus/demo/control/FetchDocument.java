package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;

/**
 * Fetches the document at {@code url}. The demo has no network, so the "download" is a deterministic text
 * made from the URL, unless the payload already carries {@code content}.
 */
@ApplicationScoped
public class FetchDocument implements StepHandler {

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        DemoFailures.apply(context);
        JsonObject payload = context.payload();
        String url = payload.getString("url", "urn:lazarus:demo:" + context.runId());
        String content = payload.containsKey("content") ? payload.getString("content", "")
                : "Title: " + url + "\nLazarus fetched this document from " + url + " for run " + context.runId() + ".";
        return JSON.createObjectBuilder(payload)
                .add("url", url)
                .add("content", content)
                .add("fetchedBytes", content.length())
                .build();
    }
}
