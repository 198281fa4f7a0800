/**
 * Auto-configuration of the Spring Integration lock registry.
 */
@NullMarked
package io.github.redislock.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
