/**
 * The lock engine. Not API: types here are public only so other packages of this library
 * can use them, and may change in any release.
 */
@NullMarked
package io.github.redislock.internal;

import org.jspecify.annotations.NullMarked;
