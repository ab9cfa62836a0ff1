package dev.lazarus.drill;

/**
 * The database drill: PostgreSQL stopped for 30 s under load and started again (the demo stack's own, or the machine's under -Dlazarus.db=postgresql). See {@link FaultDrill} and src/site/markdown/drills.md.
 *
 * <pre>
 * mvn -Pdemo package                              # or -Dlazarus.db=postgresql
 * mvn -Pdrill-database test-compile exec:java      # 3 000 runs, 2 faults (-Ddrill.runs, -Ddrill.faults, -Ddrill.outage)
 * </pre>
 */
public final class DatabaseDrill {

    private DatabaseDrill() {
    }

    public static void main(String[] args) throws Exception {
        FaultDrill.main(Fault.DATABASE_STOP, 3_000, 2);
    }
}
