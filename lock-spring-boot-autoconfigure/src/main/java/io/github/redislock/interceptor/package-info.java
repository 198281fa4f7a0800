/**
 * The AOP machinery behind {@code @DistributedLock}: operation source, key evaluation,
 * interceptor.
 */
@NullMarked
package io.github.redislock.interceptor;

import org.jspecify.annotations.NullMarked;
