/**
 * Micrometer meters of the lock client.
 */
@NullMarked
package io.github.redislock.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
