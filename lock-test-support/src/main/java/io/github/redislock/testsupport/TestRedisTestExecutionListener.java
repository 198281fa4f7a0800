package io.github.redislock.testsupport;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * After each test method of an {@link AutoConfigureTestRedis} test, releases the
 * application's locks ({@link TestLocks#releaseAll()}) and clears the
 * {@link LockRecorder}: after the test's own {@code @AfterEach} methods, before a
 * {@code @DirtiesContext} closes the context. Listed in
 * {@code META-INF/spring.factories}.
 */
class TestRedisTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		// after-test callbacks run in reverse order: this runs before
		// DirtiesContextTestExecutionListener (3000)
		return Ordered.LOWEST_PRECEDENCE - 100;
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		if (!testContext.hasApplicationContext() || !TestContextAnnotationUtils
			.hasAnnotation(testContext.getTestClass(), AutoConfigureTestRedis.class)) {
			return;
		}
		ApplicationContext context = testContext.getApplicationContext();
		// a context without Redis (a slice that leaves it out) has no locks to release
		if (context.getBeanNamesForType(RedisConnectionFactory.class).length > 0) {
			context.getBeanProvider(TestLocks.class).ifAvailable(TestLocks::releaseAll);
		}
		context.getBeanProvider(LockRecorder.class).ifAvailable(LockRecorder::clear);
	}

}
