package io.github.redislock.annotation;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.RedisLockException;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A {@code @DistributedLock} method whose Redis freezes or dies while it runs returns (or
 * throws its own failure) within its own run time plus {@code redis-lock.command-timeout}
 * (2 s by default), in an application that, like most, leaves
 * {@code spring.data.redis.timeout} unset, so that Lettuce would wait 60 s for each
 * command.
 */
@ExtendWith(OutputCaptureExtension.class)
class CommandTimeoutAnnotationTests {

	private static final Log logger = LogFactory.getLog(CommandTimeoutAnnotationTests.class);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** {@code redis-lock.command-timeout} when not set. */
	private static final Duration LOCK_COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** The {@code waitTime} of {@link SlowService#run}. */
	private static final Duration WAIT = Duration.ofSeconds(2);

	/** How long the method works after the fault, before it returns. */
	private static final Duration WORK = Duration.ofMillis(1500);

	private static final Duration SLACK = Duration.ofMillis(500);

	/** Lettuce's default command timeout, with some margin: what a regression costs. */
	private static final long NO_HANG_SECONDS = 70;

	// no spring.data.redis.timeout: Lettuce's default applies
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port())
		.withUserConfiguration(Services.class);

	@Test
	void aMethodRunningWhenRedisFreezesReturnsWithinItsRunTimePlusTheLockCommandTimeout(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertLettuceWaitsAMinute(context);
			String id = UUID.randomUUID().toString();
			SlowService service = context.getBean(SlowService.class);
			Run run = Run.start(service, id, false);
			run.awaitInside();
			redis.server().pause();
			try {
				run.faultInjected();
				Object outcome = run.outcome();
				assertWithin(run.took(), run.bodyTook().plus(LOCK_COMMAND_TIMEOUT).plus(SLACK),
						"the call from its method's start, the method running " + run.bodyTook().toMillis()
								+ " ms, Redis FROZEN");
				assertThat(outcome).isEqualTo("done");
				// the release that failed is told once for the whole outage, by the
				// client
				// (the release itself logs at DEBUG), with what to tune
				assertThat(output).contains("io.github.redislock.connection - Redis at")
					.contains("cannot be reached: no answer within")
					.contains("redis-lock.command-timeout")
					.contains("holds whose release failed are released in the background")
					.doesNotContain("cleanly:");
				assertANewCallFailsWithinItsWaitPlusTheLockCommandTimeout(service);
			}
			finally {
				redis.server().resume();
			}
		});
	}

	@Test
	void aMethodRunningWhenRedisIsKilledThrowsItsOwnFailureWithinItsRunTimePlusTheLockCommandTimeout() {
		this.contextRunner.run((context) -> {
			assertLettuceWaitsAMinute(context);
			String id = UUID.randomUUID().toString();
			SlowService service = context.getBean(SlowService.class);
			Run run = Run.start(service, id, true);
			run.awaitInside();
			redis.server().stop();
			try {
				run.faultInjected();
				Object outcome = run.outcome();
				assertWithin(run.took(), run.bodyTook().plus(LOCK_COMMAND_TIMEOUT).plus(SLACK),
						"the call from its method's start, the method running " + run.bodyTook().toMillis()
								+ " ms, Redis KILLED");
				assertThat(outcome).isInstanceOfSatisfying(IllegalStateException.class,
						(ex) -> assertThat(ex).hasMessage("the method's own failure")
							.satisfies((failure) -> assertThat(failure.getSuppressed()).singleElement()
								.isInstanceOf(RedisLockException.class)
								.extracting(Throwable::getMessage, InstanceOfAssertFactories.STRING)
								.contains("'SlowService.run:" + id + "'")
								.contains("redis-lock.command-timeout")));
				assertANewCallFailsWithinItsWaitPlusTheLockCommandTimeout(service);
			}
			finally {
				redis.server().start();
			}
		});
	}

	private static void assertANewCallFailsWithinItsWaitPlusTheLockCommandTimeout(SlowService service) {
		String id = UUID.randomUUID().toString();
		long start = System.nanoTime();
		Throwable thrown = catchThrowable(() -> service.run(id, Duration.ZERO, false));
		assertWithin(Duration.ofNanos(System.nanoTime() - start), WAIT.plus(LOCK_COMMAND_TIMEOUT).plus(SLACK),
				"a new call with a 2s wait");
		assertThat(thrown).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("'SlowService.run:" + id + "'")
			.hasMessageContaining("redis-lock.command-timeout");
		assertThat(service.bodyRuns()).as("runs of the body").isOne();
	}

	private static void assertWithin(Duration took, Duration bound, String what) {
		logger.info(what + ": " + took.toMillis() + " ms (bound " + bound.toMillis() + " ms)");
		assertThat(took).as(what).isLessThan(bound);
	}

	private static void assertLettuceWaitsAMinute(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		assertThat(context.getBean(LettuceConnectionFactory.class).getClientConfiguration().getCommandTimeout())
			.isEqualTo(Duration.ofSeconds(60));
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		SlowService slowService() {
			return new SlowService();
		}

	}

	/** A locked method that lets the test in, then works for a while. */
	static class SlowService {

		private final AtomicLong bodyRuns = new AtomicLong();

		private final CountDownLatch inside = new CountDownLatch(1);

		private final CountDownLatch faultInjected = new CountDownLatch(1);

		private volatile long bodyStart;

		private volatile long bodyNanos;

		@DistributedLock(key = "#id", waitTime = "2s")
		public String run(String id, Duration work, boolean fail) throws InterruptedException {
			long start = System.nanoTime();
			this.bodyStart = start;
			this.bodyRuns.incrementAndGet();
			this.inside.countDown();
			if (!this.faultInjected.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The test did not inject its fault");
			}
			// the method's own work, while Redis cannot answer
			TimeUnit.NANOSECONDS.sleep(work.toNanos());
			this.bodyNanos = System.nanoTime() - start;
			if (fail) {
				throw new IllegalStateException("the method's own failure");
			}
			return "done";
		}

		public long bodyRuns() {
			return this.bodyRuns.get();
		}

		public void awaitInside() throws InterruptedException {
			assertThat(this.inside.await(10, TimeUnit.SECONDS)).as("the method started").isTrue();
		}

		public void faultInjected() {
			this.faultInjected.countDown();
		}

		public Duration bodyTook() {
			return Duration.ofNanos(this.bodyNanos);
		}

		public long bodyStart() {
			return this.bodyStart;
		}

	}

	/** One call of the locked method on its own thread, timed from the caller's side. */
	private static final class Run {

		private final SlowService service;

		private final CompletableFuture<Object> outcome;

		private volatile long returnedAt;

		private Run(SlowService service, String id, boolean fail) {
			this.service = service;
			this.outcome = CompletableFuture.supplyAsync(() -> {
				try {
					return service.run(id, WORK, fail);
				}
				catch (Exception ex) {
					return ex;
				}
				finally {
					this.returnedAt = System.nanoTime();
				}
			}, (task) -> {
				// not a shared pool, which a hanging call would block for the tests after
				// it
				Thread thread = new Thread(task, "locked-method-caller");
				thread.setDaemon(true);
				thread.start();
			});
		}

		static Run start(SlowService service, String id, boolean fail) {
			return new Run(service, id, fail);
		}

		void awaitInside() throws InterruptedException {
			this.service.awaitInside();
		}

		void faultInjected() {
			this.service.faultInjected();
		}

		Object outcome() throws InterruptedException, ExecutionException {
			try {
				return this.outcome.get(NO_HANG_SECONDS, TimeUnit.SECONDS);
			}
			catch (TimeoutException ex) {
				throw new AssertionError("The call did not return within " + NO_HANG_SECONDS + "s", ex);
			}
		}

		/**
		 * From the start of the method's body (the lock was taken before, while Redis was
		 * well) until the call returned or threw.
		 */
		Duration took() {
			return Duration.ofNanos(this.returnedAt - this.service.bodyStart());
		}

		Duration bodyTook() {
			return this.service.bodyTook();
		}

	}

}
