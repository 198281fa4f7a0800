/**
 * The {@code locks} Actuator endpoint.
 */
@NullMarked
package io.github.redislock.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
