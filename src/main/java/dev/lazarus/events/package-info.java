/**
 * Events: every dead letter, requeue, resolve, discard, stop, hold and resume, told to whoever follows Lazarus. Each is
 * written as a row in the transaction that made the change (an outbox: it exists if and only if the change committed),
 * then published after the commit as JSON ({@code lazarus.event/v1}, {@code src/main/resources/events/lazarus-event-v1.schema.json})
 * on the JMS topic {@value dev.lazarus.events.control.Events#TOPIC}, and readable again over {@code GET /api/events?after=<id>}.
 *
 * <p>It knows only the platform: the features that make the changes (dead letters, step controls) call it at the one
 * place each change happens, and the webhooks feature reads its rows.
 */
package dev.lazarus.events;
