/**
 * Distributed, reentrant locks on Redis: {@link io.github.redislock.RedisLockClient} and
 * {@link io.github.redislock.RedisLock}.
 */
package io.github.redislock;
