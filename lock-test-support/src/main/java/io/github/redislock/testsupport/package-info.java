/**
 * A real Redis for tests: a redis-server child process, or a Testcontainers container
 * when a Docker engine works, started and owned by one test class.
 */
@NullMarked
package io.github.redislock.testsupport;

import org.jspecify.annotations.NullMarked;
