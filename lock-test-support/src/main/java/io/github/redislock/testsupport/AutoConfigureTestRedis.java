package io.github.redislock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the application context of a Spring test ({@code @SpringBootTest} or a test
 * slice) a real Redis started for the tests, used instead of the one
 * {@code spring.data.redis.*} names, with nothing to configure, as
 * {@code @AutoConfigureTestDatabase} does for a {@code DataSource}:
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureTestRedis
 * class OrderServiceTest {
 *     // ...
 * }
 * </pre>
 *
 * <p>
 * <b>Which Redis.</b> A {@code redis-server} child process on a free loopback port, or,
 * when {@code org.testcontainers:testcontainers} is on the test class path and a Docker
 * engine answers, a Redis container ({@code redis:7.2-alpine}). Without a Docker engine
 * Testcontainers is not asked and nothing is logged. The environment variable
 * {@code REDIS_LOCK_TEST_REDIS} set to {@code process} or {@code container} forces one,
 * and {@code REDIS_SERVER} names the executable. With neither, the context fails to start
 * with a message that says what to install.
 *
 * <p>
 * <b>How long.</b> One Redis per test JVM, started for the first context that needs it
 * and shared by every context that uses this annotation. It stops only after the JVM has
 * exited, so it outlives the contexts the test framework caches and closes at exit: their
 * connections never see it go. Its keys are not cleared between test classes.
 *
 * <p>
 * <b>How it connects.</b> The context gets Spring Boot's Redis connection details bean
 * naming the server (as {@code @ServiceConnection} gives for a container), so Boot's
 * Redis auto-configuration connects there whatever {@code spring.data.redis.*} says:
 * host, port, URL, password, Sentinel and Cluster settings are ignored; client settings
 * such as {@code spring.data.redis.timeout} still apply.
 *
 * <p>
 * <b>For locks.</b> The context also gets a {@link LockRecorder}, which records the
 * application's lock acquisitions and releases by name, and {@link TestLocks}, which
 * releases every lock of the application. After each test method the locks are released
 * and the recorder forgets what it recorded, so that a lock one test left held (a
 * scheduled job's minimum hold, a handle a failed test never released) does not change
 * the next.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureTestRedis {

}
