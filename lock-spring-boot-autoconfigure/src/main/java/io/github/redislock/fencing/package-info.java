/**
 * Stores that refuse a stale holder: {@link io.github.redislock.fencing.FencingGuard}
 * accepts a write only under a fencing token at least the highest it has accepted for the
 * resource, and throws {@link io.github.redislock.fencing.StaleFencingTokenException}
 * otherwise. {@link io.github.redislock.fencing.JdbcFencingGuard} keeps the tokens in a
 * table, inside the caller's transaction;
 * {@link io.github.redislock.fencing.RedisFencedValues} keeps a value and its token in
 * one Redis hash.
 */
@NullMarked
package io.github.redislock.fencing;

import org.jspecify.annotations.NullMarked;
