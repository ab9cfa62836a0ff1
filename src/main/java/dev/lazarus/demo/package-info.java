/**
 * The demo pipeline, document ingestion (fetch, parse, index), written exactly as an application developer
 * would write their own. Its fetch step downloads each document over HTTP from a remote service (the stand-in document
 * service every stack that runs the demo starts), so an outage of that service is a real one. Its payload can ask a
 * step to fail transiently, always, until requeued, or to hang, so the admin pages and the Artemis console have
 * something to show.
 */
package dev.lazarus.demo;
