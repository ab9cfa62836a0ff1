/** What every feature shares: REST activation, problem responses, schema migration, the broker's management. */
package dev.lazarus.platform;
