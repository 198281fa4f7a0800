/**
 * Auto-configuration of the ShedLock provider.
 */
@NullMarked
package io.github.redislock.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
