/**
 * The lock engine and the lock kinds. Not API: it may change in any release.
 * <p>
 * Everything here is package-private except a small façade for the library's other
 * packages, pinned by {@code ArchitectureTests}:
 * <ul>
 * <li>{@link io.github.redislock.internal.DefaultRedisLockClientProvider}: the engine
 * behind {@code RedisLockClient.builder()} and {@code ReactiveRedisLockClient.create},
 * found through {@link java.util.ServiceLoader} (the API imports nothing from here);</li>
 * <li>{@link io.github.redislock.internal.LockType} (the registry of kinds),
 * {@link io.github.redislock.internal.LockSpec} and
 * {@link io.github.redislock.internal.LockRequest}: what the interceptor asks for, one
 * value from the entry point to the kind;</li>
 * <li>{@link io.github.redislock.internal.ReactiveLocks}: the reactive engine the
 * interceptor runs reactive methods on;</li>
 * <li>{@link io.github.redislock.internal.LockInspector} with
 * {@link io.github.redislock.internal.KindState},
 * {@link io.github.redislock.internal.HeldLock} and
 * {@link io.github.redislock.internal.FencingCounter}: what the endpoint, the meters and
 * the tests read;</li>
 * <li>{@link io.github.redislock.internal.LockNames} and
 * {@link io.github.redislock.internal.ReplicaAcknowledgement}: the rules the annotation
 * checks and the properties share with the engine;</li>
 * <li>{@link io.github.redislock.internal.ScriptTexts}: the lock scripts as Redis runs
 * them, for the protocol model's replays, which must run exactly what the library
 * runs.</li>
 * </ul>
 * This package imports the public API, never the annotations or the interceptor.
 */
@NullMarked
package io.github.redislock.internal;

import org.jspecify.annotations.NullMarked;
