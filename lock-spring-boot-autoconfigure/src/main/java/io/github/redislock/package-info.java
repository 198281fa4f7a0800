/**
 * Distributed, reentrant locks on Redis: {@link io.github.redislock.RedisLockClient} and
 * {@link io.github.redislock.RedisLock}.
 */
@NullMarked
package io.github.redislock;

import org.jspecify.annotations.NullMarked;
