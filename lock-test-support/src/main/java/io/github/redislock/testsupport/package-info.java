/**
 * A real Redis for tests. For an application's Spring Boot tests,
 * {@link io.github.redislock.testsupport.AutoConfigureTestRedis} gives the context a
 * Redis shared by the test JVM, with {@link io.github.redislock.testsupport.LockRecorder}
 * and {@link io.github.redislock.testsupport.TestLocks}. For tests without Spring,
 * {@link io.github.redislock.testsupport.RedisServerExtension} gives a test class a
 * server of its own, which the test can stop, restart and pause. Either is a
 * {@code redis-server} child process, or a Testcontainers container when Testcontainers
 * is on the class path and a Docker engine answers.
 */
@NullMarked
package io.github.redislock.testsupport;

import org.jspecify.annotations.NullMarked;
