package dev.lazarus.drill;

import java.io.IOException;
import java.time.Duration;

/** A failure of the platform under Lazarus that a fault drill injects and then mends. */
enum Fault {

    /** WildFly killed with {@code kill -9} and started again with its state (data, deployment, transaction log). */
    SERVER_CRASH("crash", "WildFly killed with kill -9, started again with its state", true, Duration.ZERO) {
        @Override
        void inject(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("demo-kill");
        }

        @Override
        void mend(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("demo-restart");
        }
    },

    /** The broker killed with {@code kill -9} while WildFly keeps running, started again after the outage. */
    BROKER_CRASH("broker", "the Artemis broker killed with kill -9, started again after the outage", false, Duration.ofSeconds(10)) {
        @Override
        void inject(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("broker-kill");
        }

        @Override
        void mend(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("broker-restart");
        }
    },

    /** PostgreSQL stopped (its sessions cut) while WildFly and the broker keep running, started after the outage. */
    DATABASE_STOP("database", "PostgreSQL stopped (fast shutdown, sessions cut), started again after the outage", false,
            Duration.ofSeconds(30)) {
        @Override
        void inject(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("db-stop");
        }

        @Override
        void mend(DemoStack stack) throws IOException, InterruptedException {
            stack.stack("db-start");
        }
    },

    /**
     * On the two-node topology ({@code stack.sh cluster-up}), taking turns: node 2 killed with {@code kill -9} and
     * started again with its state; then broker 1 (node 1's, where the drill submits) stopped and started again
     * with its journal. Node 1's API stays up throughout and refuses what it cannot start while its broker is away.
     */
    TOPOLOGY("topology", "on two nodes and two brokers, taking turns: node 2 killed with kill -9, broker 1 stopped;"
            + " each started again after the outage", false, Duration.ofSeconds(20)) {
        private int strikes;

        @Override
        void inject(DemoStack stack) throws IOException, InterruptedException {
            if (strikes % 2 == 0) {
                stack.stack("cluster-node-kill", "2");
            } else {
                stack.stack("cluster-broker-stop", "1");
            }
        }

        @Override
        void mend(DemoStack stack) throws IOException, InterruptedException {
            if (strikes++ % 2 == 0) {
                stack.stack("cluster-node-start", "2");
            } else {
                stack.stack("cluster-broker-start", "1");
            }
        }
    };

    /** The drill's name: its JSON is target/drill/{name}.json. */
    final String drill;
    final String description;
    /**
     * Whether submissions wait while the fault lasts. A killed server cannot answer, and a kill in the middle
     * of a request leaves the client not knowing whether its run was created; the other faults leave the API
     * up, so clients keep submitting through them and must get a clear refusal for what cannot be started.
     */
    final boolean holdsSubmissions;
    final Duration defaultOutage;

    Fault(String drill, String description, boolean holdsSubmissions, Duration defaultOutage) {
        this.drill = drill;
        this.description = description;
        this.holdsSubmissions = holdsSubmissions;
        this.defaultOutage = defaultOutage;
    }

    abstract void inject(DemoStack stack) throws IOException, InterruptedException;

    abstract void mend(DemoStack stack) throws IOException, InterruptedException;
}
