package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLossHarness;
import io.github.redislock.LeaseLossHarness.Outcome;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockException;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code ifLeaseLost = INTERRUPT} against a real Redis, with the lease lost (as
 * {@link LeaseLossHarness} loses it) at every step of a locked call: before the method
 * starts, while it runs, exactly as it returns or throws, and while its lock is released;
 * for blocking, {@code CompletionStage}, {@code Mono} and {@code Flux} methods. The
 * caller gets the method's outcome or {@link LeaseExpiredException}; the interrupt the
 * lock caused never stays set once the call returned, and never reaches the (pooled)
 * thread after it left the method; an interrupt that came from elsewhere stays set.
 * {@code LOG}, the default, never interrupts.
 */
class InterruptOnLeaseLossTests {

	private static final Duration TIMEOUT = LeaseLossHarness.TIMEOUT;

	// renewals are 500 ms apart (a 1.5 s watchdog): a stop sent late would come within
	private static final Duration AFTERWARDS = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LeaseLossHarness harness = new LeaseLossHarness(redis);

	@Test
	void aBlockingMethodIsInterruptedAndItsCallerGetsLeaseExpired() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			CountDownLatch started = new CountDownLatch(1);
			AtomicReference<Throwable> seenByMethod = new AtomicReference<>();
			Future<Outcome> call = this.harness
				.startOnPooledThread(() -> jobs.waitUntilInterrupted(id, started, seenByMethod));
			assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			this.harness.takeAway(name(id));
			Outcome outcome = call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(seenByMethod.get()).isInstanceOf(InterruptedException.class);
			assertThat(outcome.thrown()).isInstanceOf(LeaseExpiredException.class)
				.hasMessageContaining("'" + name(id) + "'")
				.hasMessageContaining("was stopped (ifLeaseLost = INTERRUPT)")
				.hasCauseInstanceOf(InterruptedException.class);
			// the interrupt the lock caused does not reach the caller's next blocking
			// call
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	@Test
	void aMethodThatSwallowsTheInterruptStillFailsItsCaller() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			CountDownLatch started = new CountDownLatch(1);
			Future<Outcome> call = this.harness.startOnPooledThread(() -> {
				jobs.swallowInterrupt(id, started);
				return null;
			});
			assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			this.harness.takeAway(name(id));
			Outcome outcome = call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(outcome.thrown()).isInstanceOf(LeaseExpiredException.class).hasNoCause();
			assertThat(outcome.interruptedAfter()).isFalse();
		});
	}

	// of the method's two locks, the first is lost while the call waits for the second
	// (another process holds it): the loss is found before the method starts
	@Test
	void aLeaseLostBeforeTheMethodStartsStopsItAndLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			String first = name(id + ":a");
			String second = name(id + ":b");
			RedisLock held = this.harness.holdAsAnotherProcess(second);
			AtomicBoolean interruptedAtStart = new AtomicBoolean();
			Future<Outcome> call = this.harness
				.startOnPooledThread(() -> jobs.bothWhenStarted(List.of(id + ":a", id + ":b"), interruptedAtStart));
			this.harness.awaitLocked(first);
			this.harness.takeAway(first);
			assertThat(losses.of(first)).succeedsWithin(TIMEOUT);
			held.unlock();
			Outcome outcome = call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(interruptedAtStart).as("the method started interrupted").isTrue();
			assertThat(outcome.thrown()).isInstanceOf(LeaseExpiredException.class)
				.hasMessageContaining("'" + first + "'")
				.hasMessageContaining("was stopped (ifLeaseLost = INTERRUPT)");
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	// the loss is found (on the watchdog's thread) as the method returns: either may be
	// first
	@RepeatedTest(3)
	void aLeaseLostAsTheMethodReturnsFailsTheCallOrNotButLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			Outcome outcome = this.harness
				.onPooledThread(() -> jobs.returnWhenLost(id, losses, () -> this.harness.takeAway(name(id))));
			if (outcome.thrown() != null) {
				assertThat(outcome.thrown()).isInstanceOf(LeaseExpiredException.class)
					.hasMessageContaining("'" + name(id) + "'");
			}
			else {
				assertThat(outcome.value()).isEqualTo("done");
			}
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	@RepeatedTest(3)
	void aLeaseLostAsTheMethodThrowsReportsBothAndLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			Outcome outcome = this.harness
				.onPooledThread(() -> jobs.throwWhenLost(id, losses, () -> this.harness.takeAway(name(id))));
			Throwable thrown = outcome.thrown();
			if (thrown instanceof LeaseExpiredException) {
				assertThat(thrown).hasCauseInstanceOf(IllegalStateException.class);
			}
			else {
				// the release found the loss: told beside the method's own failure
				assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("failed");
				assertThat(thrown.getSuppressed()).hasAtLeastOneElementOfType(LeaseExpiredException.class);
			}
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	// the lock is taken away as the method returns: the release, or the watchdog's
	// renewal as the release runs, finds it gone
	@RepeatedTest(3)
	void aLeaseLostAsTheLockIsReleasedFailsTheCallAndLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Outcome outcome = this.harness
				.onPooledThread(() -> jobs.returnAfter(id, () -> this.harness.takeAway(name(id))));
			assertThat(outcome.thrown()).isInstanceOf(LeaseExpiredException.class)
				.hasMessageContaining("'" + name(id) + "'");
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	// Redis stalls as the method returns: the release waits for it past the lease's end
	// by the client's clock, and the loss found meanwhile stops nothing
	@Test
	void aReleaseWaitingForAStalledRedisLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Future<Outcome> call = this.harness
				.startOnPooledThread(() -> jobs.returnAfter(id, this.harness::stallRedis));
			Outcome outcome;
			try {
				outcome = call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			}
			finally {
				this.harness.resumeRedis();
			}
			if (outcome.thrown() != null) {
				assertThat(outcome.thrown()).isInstanceOf(RedisLockException.class);
			}
			else {
				assertThat(outcome.value()).isEqualTo("done");
			}
			assertThat(outcome.interruptedAfter()).isFalse();
			this.harness.assertPooledThreadStaysUninterrupted(AFTERWARDS);
		});
	}

	@Test
	void aCompletionStageMethodsStageIsCancelledAndTheCallersFails() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = jobs.later(id, work);
			this.harness.awaitLocked(name(id));
			this.harness.takeAway(name(id));
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
			assertThat(work).isCancelled();
		});
	}

	// the method's stage is made only once the loss was found
	@Test
	void aCompletionStageMethodWhoseLeaseWasLostBeforeItsStageFailsItsCaller() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			CompletableFuture<String> result = jobs.doneWhenLost(id, losses, () -> this.harness.takeAway(name(id)),
					new CompletableFuture<>());
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
		});
	}

	// the stage completes on the thread that finds the loss, as it tells it
	@RepeatedTest(3)
	void aCompletionStageCompletedAsTheLeaseIsLostSucceedsOrFailsWithTheLoss() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			losses.of(name(id)).thenRun(() -> work.complete("done"));
			CompletableFuture<String> result = jobs.later(id, work);
			this.harness.awaitLocked(name(id));
			this.harness.takeAway(name(id));
			assertValueOrLeaseExpired(result);
		});
	}

	@Test
	void aMonoMethodsSubscriptionIsCancelledAndTheCallerGetsLeaseExpired() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			AtomicBoolean cancelled = new AtomicBoolean();
			CompletableFuture<String> result = jobs.forever(id, cancelled).toFuture();
			this.harness.awaitLocked(name(id));
			this.harness.takeAway(name(id));
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
			assertThat(cancelled).isTrue();
		});
	}

	// the Mono's value comes as the loss is found, on a pooled thread of Reactor's
	@RepeatedTest(3)
	void aMonoThatEmitsAsTheLeaseIsLostGivesItsValueOrLeaseExpiredAndLeavesNoInterrupt() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			Losses losses = context.getBean(Losses.class);
			AtomicBoolean interruptedAfter = new AtomicBoolean();
			CompletableFuture<String> result = jobs
				.emitWhenLost(id, losses, () -> this.harness.takeAway(name(id)), interruptedAfter)
				.toFuture();
			assertValueOrLeaseExpired(result);
			assertThat(interruptedAfter).isFalse();
		});
	}

	// the Flux's elements before the loss reach the subscriber; then LeaseExpired
	@Test
	void aFluxMethodStopsAtTheLossAndTheSubscriberGetsLeaseExpired() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			AtomicBoolean cancelled = new AtomicBoolean();
			Flux<String> flux = jobs.firstThenForever(id, cancelled);
			CompletableFuture<Throwable> failed = new CompletableFuture<>();
			CompletableFuture<String> first = new CompletableFuture<>();
			flux.subscribe(first::complete, failed::complete);
			assertThat(first).succeedsWithin(TIMEOUT).isEqualTo("first");
			this.harness.takeAway(name(id));
			assertThat(failed).succeedsWithin(TIMEOUT).isInstanceOf(LeaseExpiredException.class);
			assertThat(cancelled).isTrue();
		});
	}

	@Test
	void logNeverInterrupts() throws Exception {
		run((context, jobs) -> {
			String id = unique();
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch finish = new CountDownLatch(1);
			Future<Outcome> call = this.harness.startOnPooledThread(() -> jobs.logOnly(id, started, finish));
			assertThat(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			this.harness.takeAway(name(id));
			// the loss is found within a renewal (a third of the 1.5 s watchdog); the
			// method keeps waiting, uninterrupted, until told to finish
			await().during(AFTERWARDS).atMost(TIMEOUT).until(() -> !call.isDone());
			finish.countDown();
			assertThat(call.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).value()).isEqualTo(false);
		});
	}

	private static void assertValueOrLeaseExpired(CompletableFuture<String> result) {
		await().atMost(TIMEOUT).until(result::isDone);
		if (result.isCompletedExceptionally()) {
			assertThat(result).failsWithin(Duration.ZERO)
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(LeaseExpiredException.class);
		}
		else {
			assertThat(result).isCompletedWithValue("done");
		}
	}

	private void run(JobsTest test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.watchdog-timeout=1500ms")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.run(context, context.getBean(Jobs.class));
			});
	}

	private static String name(String id) {
		return "job:" + id;
	}

	private static String unique() {
		return LeaseLossHarness.uniqueName("");
	}

	@FunctionalInterface
	interface JobsTest {

		void run(AssertableApplicationContext context, Jobs jobs) throws Exception;

	}

	@FunctionalInterface
	interface Action {

		void run() throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

		@Bean
		Losses losses() {
			return new Losses();
		}

	}

	/** The losses this client told, by lock name. */
	static class Losses {

		private final Map<String, CompletableFuture<LeaseLostEvent>> told = new ConcurrentHashMap<>();

		@EventListener
		void lost(LeaseLostEvent event) {
			of(event.lockName()).complete(event);
		}

		CompletableFuture<LeaseLostEvent> of(String name) {
			return this.told.computeIfAbsent(name, (key) -> new CompletableFuture<>());
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

		@DistributedLock(name = "job", key = "#ids", waitTime = "20s", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public String bothWhenStarted(List<String> ids, AtomicBoolean interruptedAtStart) {
			interruptedAtStart.set(Thread.currentThread().isInterrupted());
			return "done";
		}

		// returns, without looking at its interrupt, once this client told the loss
		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public String returnWhenLost(String id, Losses losses, Action lose) throws Exception {
			lose.run();
			losses.of(name(id)).join();
			return "done";
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public String throwWhenLost(String id, Losses losses, Action lose) throws Exception {
			lose.run();
			losses.of(name(id)).join();
			throw new IllegalStateException("failed");
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public String returnAfter(String id, Action last) throws Exception {
			last.run();
			return "done";
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public CompletableFuture<String> later(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public CompletableFuture<String> doneWhenLost(String id, Losses losses, Action lose,
				CompletableFuture<String> work) throws Exception {
			lose.run();
			losses.of(name(id)).join();
			return CompletableFuture.completedFuture("done");
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public Mono<String> forever(String id, AtomicBoolean cancelled) {
			return Mono.<String>never().doOnCancel(() -> cancelled.set(true));
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public Mono<String> emitWhenLost(String id, Losses losses, Action lose, AtomicBoolean interruptedAfter) {
			return Mono.fromCallable(() -> {
				lose.run();
				losses.of(name(id)).join();
				return "done";
			}).subscribeOn(Schedulers.boundedElastic()).doFinally((signal) -> {
				interruptedAfter.set(Thread.currentThread().isInterrupted());
			});
		}

		@DistributedLock(name = "job", key = "#id", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public Flux<String> firstThenForever(String id, AtomicBoolean cancelled) {
			return Flux.concat(Flux.just("first"), Flux.<String>never()).doOnCancel(() -> cancelled.set(true));
		}

		@DistributedLock(name = "job", key = "#id")
		public boolean logOnly(String id, CountDownLatch started, CountDownLatch finish) throws InterruptedException {
			started.countDown();
			finish.await();
			return Thread.currentThread().isInterrupted();
		}

	}

}
