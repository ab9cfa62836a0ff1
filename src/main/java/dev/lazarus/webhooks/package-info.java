/**
 * Webhooks: operators name an HTTP(S) endpoint, a secret and the event types it wants, by API, admin page or
 * configuration, and Lazarus POSTs each event to it, signed with HMAC-SHA256. Bursts are coalesced: the events of one
 * type and cause within {@code lazarus.webhooks.coalesce-interval} become one notification with their count, kept in
 * the database ({@code webhook_window}) so that two nodes share one window.
 *
 * <p>A delivery is a run of the built-in pipeline {@value dev.lazarus.webhooks.control.WebhookDelivery#NAME} (one step,
 * {@code post}): its retries, backoff, dead-letter queue, dead letters, requeue and holds are Lazarus's own. Events about
 * that pipeline's runs go to the topic and the API, never to a webhook (no loops).
 *
 * <p>It builds on the pipeline and events features and knows nothing of the others.
 */
package dev.lazarus.webhooks;
