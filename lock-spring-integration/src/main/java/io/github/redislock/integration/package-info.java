/**
 * Spring Integration on redis-lock:
 * {@link io.github.redislock.integration.RedisLockClientLockRegistry}.
 */
@NullMarked
package io.github.redislock.integration;

import org.jspecify.annotations.NullMarked;
