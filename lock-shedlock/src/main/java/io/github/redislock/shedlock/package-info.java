/**
 * ShedLock on redis-lock: {@link io.github.redislock.shedlock.RedisLockProvider}.
 */
@NullMarked
package io.github.redislock.shedlock;

import org.jspecify.annotations.NullMarked;
