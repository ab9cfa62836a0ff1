package dev.lazarus.platform.control;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/** The clock every timestamp comes from (UTC), injectable so that time-dependent rules can be tested. */
@ApplicationScoped
public class Clocks {

    @Produces
    public Clock clock() {
        return Clock.systemUTC();
    }
}
