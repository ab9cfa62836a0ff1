/**
 * What an operator watches: the gauges read from the database and the brokers (open dead letters, DLQ depths,
 * bulk jobs, when the timers last finished, live runs at risk of going stale), registered with WildFly's Micrometer
 * subsystem next to the counters the other features report ({@link dev.lazarus.platform.control.Metrics}). It reads the
 * other features and nothing depends on it.
 */
package dev.lazarus.observability;
