package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * Fetches the document at {@code url} from the document service, a remote server over HTTP (see
 * {@link DocumentServiceClient} for what its failures mean). A read only: a redelivery fetches the same document
 * again and nothing else happens, so the step is idempotent.
 */
@ApplicationScoped
public class FetchDocument implements StepHandler {

    @Inject
    DocumentServiceClient documents;

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        DemoFailures.apply(context);
        JsonObject payload = context.payload();
        String url = payload.getString("url", "urn:lazarus:demo:" + context.runId());
        String content = documents.fetch(url);
        return JSON.createObjectBuilder(payload)
                .add("url", url)
                .add("content", content)
                .add("fetchedBytes", content.getBytes(StandardCharsets.UTF_8).length)
                .build();
    }
}
