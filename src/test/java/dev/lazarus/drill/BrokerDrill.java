package dev.lazarus.drill;

/**
 * The broker drill: the Artemis broker killed with {@code kill -9} under load and started again after 10 s; WildFly's consumers must reconnect by themselves. See {@link FaultDrill} and src/site/markdown/drills.md.
 *
 * <pre>
 * mvn -Pdemo package
 * mvn -Pdrill-broker test-compile exec:java      # 3 000 runs, 2 faults (-Ddrill.runs, -Ddrill.faults, -Ddrill.outage)
 * </pre>
 */
public final class BrokerDrill {

    private BrokerDrill() {
    }

    public static void main(String[] args) throws Exception {
        FaultDrill.main(Fault.BROKER_CRASH, 3_000, 2);
    }
}
