/**
 * The {@code @DistributedLock} annotation and what it refers to.
 */
@NullMarked
package io.github.redislock.annotation;

import org.jspecify.annotations.NullMarked;
