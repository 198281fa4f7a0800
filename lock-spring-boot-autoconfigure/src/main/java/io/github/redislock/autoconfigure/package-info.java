/**
 * Spring Boot auto-configuration of the lock client and the annotation support.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
