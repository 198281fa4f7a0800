package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReactiveRedisLockClient} never blocks a thread that must not block: BlockHound
 * fails any blocking call on Reactor's non-blocking schedulers, on Lettuce's event loops
 * (Netty's integration) and, stricter than a user needs, on the client's own asynchronous
 * thread, while pipelines contend, wait, time out, get cancelled and release.
 *
 * <p>
 * Runs in its own Surefire execution ({@code blockhound}): BlockHound instruments the JVM
 * for good, and needs {@code -XX:+AllowRedefinitionToAddDeleteMethods} on JDK 13+.
 */
class ReactiveBlockHoundTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	// recorded rather than thrown: a blocking call on one of the library's own threads
	// would otherwise fail somewhere in a future nobody looks at
	private static final List<String> violations = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void installBlockHound() {
		// with the integrations found on the class path: Reactor's (its non-blocking
		// schedulers, and what their pools do between tasks) and Netty's (event loops)
		BlockHound.install((builder) -> builder
			// Netty's buffer pool, growing as Lettuce registers a new connection, may
			// wait briefly for its own lock: Netty's doing, not a call of this library
			.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
			// every command's time limit is a task on the JDK's shared timer, cancelled
			// when
			// the answer comes: cancelling takes the timer queue's lock for a moment, as
			// scheduling does (which Reactor's integration allows), and may wait for it
			// under contention. Seen once in CI on a Lettuce event loop.
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask", "cancel")
			// Lettuce 7 takes its connection's writer lock for a moment to send any
			// command,
			// and may wait for it under contention: so does every Lettuce user (Spring
			// Data's
			// reactive templates too). This library never sends a command from Lettuce's
			// event loop. Seen in CI on a subscribing parallel thread and on the async
			// thread.
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "decrementWriters")
			// Spring Data Redis hands out its shared Lettuce connection under a lock held
			// for a moment, and waits for it when many callers ask at once (seen once
			// with
			// 400 pipelines on the async thread and on Reactor's parallel thread); the
			// reactive templates of Spring Data take it too
			.allowBlockingCallsInside("org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
					"getOrCreateSharedConnection")
			.nonBlockingThreadPredicate(
					(predicate) -> predicate.or((thread) -> thread.getName().startsWith("redis-lock-async-")))
			.blockingMethodCallback((method) -> violations.add(Thread.currentThread().getName() + ": " + method + "\n"
					+ Arrays.stream(new Throwable().getStackTrace())
						.map(StackTraceElement::toString)
						.filter((frame) -> !frame.startsWith("reactor.blockhound")
								&& !frame.contains(ReactiveBlockHoundTests.class.getSimpleName()))
						.limit(30)
						.collect(Collectors.joining("\n\t", "\t", "")))));
	}

	@BeforeEach
	void forgetViolations() {
		violations.clear();
	}

	@Test
	void blockHoundCatchesABlockingCallOnAParallelThread() {
		// the check is live: otherwise the test below could not fail
		Mono.fromCallable(() -> {
			Thread.sleep(1);
			return "slept";
		}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
		assertThat(violations).singleElement().asString().startsWith("parallel-").contains("Thread.sleep");
	}

	@Test
	void contendedWaitingCancelledAndTimedOutPipelinesNeverBlock() {
		RedisLockClient client = newClient();
		ReactiveRedisLockClient reactive = ReactiveRedisLockClient.create(client);
		RedisLockClient otherClient = newClient();
		ReactiveRedisLockClient other = ReactiveRedisLockClient.create(otherClient);
		String name = LockTestClients.uniqueName();
		AtomicInteger ran = new AtomicInteger();
		AtomicInteger notAcquired = new AtomicInteger();
		List<Throwable> unexpected = new ArrayList<>();
		Flux<Integer> work = Flux.range(0, 400).flatMap((i) -> {
			ReactiveRedisLockClient side = (i % 2 == 0) ? reactive : other;
			Duration wait = (i % 10 == 0) ? Duration.ofMillis(5) : Duration.ofSeconds(60);
			Mono<Integer> locked = side
				.withLock(name, wait, (i % 3 == 0) ? Duration.ofSeconds(10) : null,
						Mono.delay(Duration.ofMillis(1)).map((tick) -> ran.incrementAndGet()))
				.onErrorResume(LockNotAcquiredException.class, (ex) -> {
					notAcquired.incrementAndGet();
					return Mono.empty();
				});
			if (i % 7 == 0) {
				// cancelled while waiting or while held
				locked = locked.timeout(Duration.ofMillis(i % 20), Mono.empty());
			}
			return locked.subscribeOn(Schedulers.parallel());
		}, 50).doOnError(unexpected::add).onErrorResume((ex) -> Flux.empty());
		Long completed = work.count().block(Duration.ofSeconds(120));
		System.out.println("[figures] BlockHound run: " + ran + " ran, " + notAcquired + " not acquired, " + completed
				+ " emitted, no blocking call");
		assertThat(violations).isEmpty();
		assertThat(unexpected).isEmpty();
		assertThat(ran.get()).isGreaterThan(300);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (RedisLockClient each : List.of(client, otherClient)) {
				assertThat(LockTestClients.inspector(each).heldCount()).isZero();
				assertThat(LockTestClients.inspector(each).waitingCount()).isZero();
			}
			assertThat(redis.command("EXISTS", "lock:{" + name + "}")).isEqualTo("0");
		});
	}

	@Test
	void readWriteAndFairPipelinesThatWaitTimeOutAndGetCancelledNeverBlock() {
		RedisLockClient client = newClient();
		RedisLockClient otherClient = newClient();
		List<ReactiveRedisLockClient> sides = List.of(ReactiveRedisLockClient.create(client),
				ReactiveRedisLockClient.create(otherClient));
		String name = LockTestClients.uniqueName();
		AtomicInteger ran = new AtomicInteger();
		List<Throwable> unexpected = new ArrayList<>();
		Flux<Integer> work = Flux.range(0, 300).flatMap((i) -> {
			ReactiveRedisLockClient side = sides.get(i % 2);
			// mostly readers, some writers, and a fair lock of the same name beside them
			ReactiveLock lock = switch (i % 5) {
				case 0 -> side.writeLock(name);
				case 1 -> side.fairLock(name);
				default -> side.readLock(name);
			};
			Duration wait = (i % 10 == 0) ? Duration.ofMillis(5) : Duration.ofSeconds(60);
			Mono<Integer> locked = lock
				.withLock(wait, (i % 3 == 0) ? Duration.ofSeconds(10) : null,
						Mono.delay(Duration.ofMillis(1)).map((tick) -> ran.incrementAndGet()))
				.onErrorResume(LockNotAcquiredException.class, (ex) -> Mono.empty());
			if (i % 7 == 0) {
				// cancelled while waiting or while held
				locked = locked.timeout(Duration.ofMillis(i % 20), Mono.empty());
			}
			return locked.subscribeOn(Schedulers.parallel());
		}, 50).doOnError(unexpected::add).onErrorResume((ex) -> Flux.empty());
		work.count().block(Duration.ofSeconds(120));
		assertThat(violations).isEmpty();
		assertThat(unexpected).isEmpty();
		assertThat(ran.get()).isGreaterThan(200);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (RedisLockClient each : List.of(client, otherClient)) {
				assertThat(LockTestClients.inspector(each).heldCount()).isZero();
				assertThat(LockTestClients.inspector(each).waitingCount()).isZero();
			}
			assertThat(redis.command("EXISTS", "lock:{" + name + "}:rw", "lock:{" + name + "}:fair",
					"lock:{" + name + "}:fair:queue"))
				.isEqualTo("0");
		});
	}

	// Blocking is the point here, not bounds: a cold client's first subscription may take
	// longer than the 2 s default on a machine whose cores are all busy (seen in CI)
	private RedisLockClient newClient() {
		return this.clients.newClient((builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.watchdogTimeout(Duration.ofSeconds(30)));
	}

}
