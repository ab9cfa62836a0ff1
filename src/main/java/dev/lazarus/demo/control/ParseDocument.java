package dev.lazarus.demo.control;

import static dev.lazarus.platform.control.Jsonp.JSON;

import dev.lazarus.pipeline.control.StepContext;
import dev.lazarus.pipeline.control.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.Arrays;
import java.util.Locale;
import java.util.TreeSet;

/** Parses the fetched text: its title (first line) and its distinct words. */
@ApplicationScoped
public class ParseDocument implements StepHandler {

    @Override
    public JsonObject handle(StepContext context) throws Exception {
        DemoFailures.apply(context);
        String content = context.payload().getString("content", "");
        String title = content.lines().findFirst().orElse("").replaceFirst("^Title:\\s*", "");
        TreeSet<String> words = new TreeSet<>();
        Arrays.stream(content.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
                .filter(w -> w.length() > 2)
                .forEach(words::add);
        JsonArrayBuilder terms = JSON.createArrayBuilder();
        words.forEach(terms::add);
        return JSON.createObjectBuilder(context.payload())
                .add("title", title)
                .add("terms", terms)
                .build();
    }
}
