/**
 * Auto-configuration of a {@link io.github.redislock.fencing.FencingGuard} on the
 * application's database.
 */
@NullMarked
package io.github.redislock.autoconfigure.fencing;

import org.jspecify.annotations.NullMarked;
