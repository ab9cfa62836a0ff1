package dev.lazarus.it;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.spi.Container;
import org.jboss.arquillian.container.spi.ServerKillProcessor;
import org.jboss.arquillian.core.spi.LoadableExtension;

/**
 * What {@code ContainerController.kill} does for the managed WildFly (the container adapter has no kill of
 * its own): SIGKILL to the server's JVM, found by the base directory on its command line, and wait until it
 * is gone. Also how the crash test tells Arquillian that a server which halted by itself is dead.
 */
public class ServerKiller implements ServerKillProcessor {

    @Override
    public void kill(Container container) throws Exception {
        String baseDir = "-Djboss.server.base.dir=" + System.getProperty("it.base.dir");
        for (ProcessHandle server : ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(line -> line.contains(baseDir) && line.contains("jboss-modules")).orElse(false))
                .toList()) {
            server.destroyForcibly();
            server.onExit().get(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Registers the killer with Arquillian (META-INF/services/org.jboss.arquillian.core.spi.LoadableExtension). */
    public static class Extension implements LoadableExtension {
        @Override
        public void register(ExtensionBuilder builder) {
            builder.service(ServerKillProcessor.class, ServerKiller.class);
        }
    }
}
