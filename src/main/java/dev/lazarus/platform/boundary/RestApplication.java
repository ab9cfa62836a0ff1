package dev.lazarus.platform.boundary;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST API lives under /api; web.xml says who may call it. */
@ApplicationPath("api")
public class RestApplication extends Application {
}
