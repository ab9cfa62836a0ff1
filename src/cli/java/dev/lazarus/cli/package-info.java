/**
 * {@code lazarus}, the command-line client of the REST API: runs, dead letters, bulk jobs, steps and events from a
 * terminal or a script. It is a client like any other (HTTP Basic, the API's JSON), built into
 * {@code target/lazarus-cli.jar} beside the WAR and sharing no code with the server: it knows the API only by its
 * paths and fields, as a script would.
 */
package dev.lazarus.cli;
