/** The JSF admin pages operators use: dead letters and their requeue. */
package dev.lazarus.admin;
