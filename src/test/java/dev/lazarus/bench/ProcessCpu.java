package dev.lazarus.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time a process has used (Linux {@code /proc/<pid>/stat}), so a benchmark can say what each step costs. */
final class ProcessCpu {

    /** Clock ticks per second of {@code /proc} times: 100 on every Linux this runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {
    }

    /** User + system CPU milliseconds of the process whose pid is in {@code pidFile}; 0 if it cannot be read. */
    static long millis(Path pidFile) {
        try {
            String pid = Files.readString(pidFile).trim();
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            // the fields after the command name (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 1000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }
}
