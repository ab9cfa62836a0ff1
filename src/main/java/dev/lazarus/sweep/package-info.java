/**
 * The sweeper: a persistent EJB timer that finds runs which stopped making progress without failing
 * (a hung handler, a lost dispatch) and dead-letters them, so no run is ever silently stuck.
 */
package dev.lazarus.sweep;
