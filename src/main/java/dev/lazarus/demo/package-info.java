/**
 * The demo pipeline, document ingestion (fetch, parse, index), written exactly as an application developer
 * would write their own. Its payload can ask a step to fail transiently, always, until requeued, or to hang,
 * so the admin pages and the Artemis console have something to show.
 */
package dev.lazarus.demo;
