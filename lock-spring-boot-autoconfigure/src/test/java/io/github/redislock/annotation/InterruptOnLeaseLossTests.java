package io.github.redislock.annotation;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ifLeaseLost = INTERRUPT} against a real Redis: when the lock is taken from the
 * holder behind its back (force-unlocked by another process, as an expired lease would
 * be), the watchdog finds it within one renewal and the method's work is stopped; the
 * caller gets {@link LeaseExpiredException}. {@code LOG}, the default, never interrupts.
 */
class InterruptOnLeaseLossTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final OtherProcess otherProcess = new OtherProcess(redis);

	@Test
	void aBlockingMethodIsInterruptedAndItsCallerGetsLeaseExpired() throws Exception {
		run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = unique();
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch started = new CountDownLatch(1);
				AtomicReference<Throwable> seenByMethod = new AtomicReference<>();
				AtomicBoolean interruptedAfterCall = new AtomicBoolean(true);
				Future<Throwable> call = executor.submit(() -> {
					try {
						jobs.waitUntilInterrupted(id, started, seenByMethod);
						return null;
					}
					catch (Throwable ex) {
						return ex;
					}
					finally {
						interruptedAfterCall.set(Thread.currentThread().isInterrupted());
					}
				});
				assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(this.otherProcess.getLock(name(id)).forceUnlock()).isTrue();
				Throwable thrown = call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				assertThat(seenByMethod.get()).isInstanceOf(InterruptedException.class);
				assertThat(thrown).isInstanceOf(LeaseExpiredException.class)
					.hasMessageContaining("'" + name(id) + "'")
					.hasMessageContaining("was stopped (ifLeaseLost = INTERRUPT)")
					.hasCauseInstanceOf(InterruptedException.class);
				// the interrupt the lock caused does not reach the caller's next blocking
				// call
				assertThat(interruptedAfterCall).isFalse();
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void aMethodThatSwallowsTheInterruptStillFailsItsCaller() throws Exception {
		run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = unique();
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch started = new CountDownLatch(1);
				Future<Throwable> call = executor.submit(() -> {
					try {
						jobs.swallowInterrupt(id, started);
						return null;
					}
					catch (Throwable ex) {
						return ex;
					}
				});
				assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(this.otherProcess.getLock(name(id)).forceUnlock()).isTrue();
				assertThat(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(LeaseExpiredException.class)
					.hasNoCause();
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void aCompletionStageMethodsStageIsCancelledAndTheCallersFails() {
		run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = jobs.later(id, work);
			await().atMost(TIMEOUT).until(() -> this.otherProcess.getLock(name(id)).isLocked());
			assertThat(this.otherProcess.getLock(name(id)).forceUnlock()).isTrue();
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
			assertThat(work).isCancelled();
		});
	}

	@Test
	void aMonoMethodsSubscriptionIsCancelledAndTheCallerGetsLeaseExpired() {
		run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = unique();
			AtomicBoolean cancelled = new AtomicBoolean();
			CompletableFuture<String> result = jobs.forever(id, cancelled).toFuture();
			await().atMost(TIMEOUT).until(() -> this.otherProcess.getLock(name(id)).isLocked());
			assertThat(this.otherProcess.getLock(name(id)).forceUnlock()).isTrue();
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
			assertThat(cancelled).isTrue();
		});
	}

	@Test
	void logNeverInterrupts() throws Exception {
		run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			String id = unique();
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch started = new CountDownLatch(1);
				CountDownLatch finish = new CountDownLatch(1);
				Future<Boolean> call = executor.submit(() -> jobs.logOnly(id, started, finish));
				assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(this.otherProcess.getLock(name(id)).forceUnlock()).isTrue();
				// the loss is found within a renewal (a third of the 1.5 s watchdog); the
				// method
				// keeps waiting, uninterrupted, until told to finish
				await().during(Duration.ofSeconds(2)).atMost(TIMEOUT).until(() -> !call.isDone());
				finish.countDown();
				assertThat(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isFalse();
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.watchdog-timeout=1500ms")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context);
			});
	}

	private static String name(String id) {
		return "job:" + id;
	}

	private static String unique() {
		return UUID.randomUUID().toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public String waitUntilInterrupted(String id, CountDownLatch started, AtomicReference<Throwable> seen)
				throws InterruptedException {
			started.countDown();
			try {
				new CountDownLatch(1).await();
				return "never";
			}
			catch (InterruptedException ex) {
				seen.set(ex);
				throw ex;
			}
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public void swallowInterrupt(String id, CountDownLatch started) {
			started.countDown();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				// some code does this: the caller must still learn the lease was lost
			}
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public CompletableFuture<String> later(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public Mono<String> forever(String id, AtomicBoolean cancelled) {
			return Mono.<String>never().doOnCancel(() -> cancelled.set(true));
		}

		@DistributedLock(name = "job", key = "#id")
		public boolean logOnly(String id, CountDownLatch started, CountDownLatch finish) throws InterruptedException {
			started.countDown();
			finish.await();
			return Thread.currentThread().isInterrupted();
		}

	}

}
