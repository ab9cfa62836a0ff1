package dev.lazarus.drill;

/**
 * The crash drill: WildFly killed with {@code kill -9} at random moments and started again with its state. See {@link FaultDrill} and src/site/markdown/drills.md.
 *
 * <pre>
 * mvn -Pdemo package
 * mvn -Pdrill-crash test-compile exec:java      # 10 000 runs, 3 faults (-Ddrill.runs, -Ddrill.faults, -Ddrill.outage)
 * </pre>
 */
public final class CrashDrill {

    private CrashDrill() {
    }

    public static void main(String[] args) throws Exception {
        FaultDrill.main(Fault.SERVER_CRASH, 10_000, 3);
    }
}
