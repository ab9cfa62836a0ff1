package dev.lazarus.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** CPU time a process has used (Linux {@code /proc/<pid>/stat}), so a benchmark can say what each step costs. */
final class ProcessCpu {

    /** Clock ticks per second of {@code /proc} times: 100 on every Linux this runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {
    }

    /** User + system CPU milliseconds of the process whose pid is in {@code pidFile}; 0 if it cannot be read. */
    static long millis(Path pidFile) {
        try {
            return millis(Long.parseLong(Files.readString(pidFile).trim()));
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }

    /**
     * The one running WildFly (a java process started through jboss-modules), or -1 if there is none or more than
     * one; {@code -Dbench.wildfly-pid} chooses.
     */
    static long wildfly() {
        Long chosen = Long.getLong("bench.wildfly-pid");
        if (chosen != null) {
            return chosen;
        }
        try (var processes = Files.list(Path.of("/proc"))) {
            List<Long> found = processes.map(p -> p.getFileName().toString()).filter(name -> name.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong).filter(pid -> {
                        try {
                            String cmdline = Files.readString(Path.of("/proc", String.valueOf(pid), "cmdline")).replace('\0', ' ');
                            String program = cmdline.split(" ", 2)[0];
                            return program.endsWith("java") && cmdline.contains("jboss-modules.jar");
                        } catch (IOException | RuntimeException gone) {
                            return false;
                        }
                    }).toList();
            return found.size() == 1 ? found.get(0) : -1;
        } catch (IOException unreadable) {
            return -1;
        }
    }

    /** User + system CPU milliseconds of a process; 0 if it cannot be read. */
    static long millis(long pid) {
        return pid < 0 ? 0 : ticks(pid, false) * 1000 / TICKS_PER_SECOND;
    }

    /** The parent of a process; -1 if it cannot be read. */
    static long parent(long pid) {
        String[] fields = fields(pid);
        return fields == null ? -1 : Long.parseLong(fields[1]);
    }

    /**
     * CPU milliseconds of a process and its children, the living and the ended ones (PostgreSQL: the postmaster and
     * its backends).
     */
    static long treeMillis(long root) {
        long ticks = ticks(root, true);
        try (var processes = Files.list(Path.of("/proc"))) {
            ticks += processes.map(p -> p.getFileName().toString()).filter(name -> name.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong).filter(pid -> parent(pid) == root).map(pid -> ticks(pid, false)).sum();
        } catch (IOException unreadable) {
            return 0;
        }
        return ticks * 1000 / TICKS_PER_SECOND;
    }

    private static long ticks(long pid, boolean withEndedChildren) {
        String[] fields = fields(pid);
        if (fields == null) {
            return 0;
        }
        // utime and stime are fields 14 and 15 of the line, the ended children's cutime and cstime 16 and 17
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return withEndedChildren ? ticks + Long.parseLong(fields[13]) + Long.parseLong(fields[14]) : ticks;
    }

    /** The fields of /proc/<pid>/stat after the command name (which is in parentheses and may hold spaces): state first. */
    private static String[] fields(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }
}
