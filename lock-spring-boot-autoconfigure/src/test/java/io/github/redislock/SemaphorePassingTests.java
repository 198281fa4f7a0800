package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.github.redislock.testsupport.WorkerJvm;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A semaphore permit released while a caller of the same client waits goes to that caller
 * without being given back in Redis: one script for its token instead of a release, a
 * message and an acquisition. The limit holds across clients, tokens still increase, a
 * run of passes ends after {@code maxLocalPasses} so other clients get permits, and a
 * permit passed in a process that dies still comes back within its lease.
 */
class SemaphorePassingTests {

	private static final Log logger = LogFactory.getLog(SemaphorePassingTests.class);

	private static final int PASSES = 4;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void aReleasedPermitGoesToAWaiterOfTheSameClientWithOneScriptAndAGreaterToken() throws Exception {
		String name = LockTestClients.uniqueName();
		Recorded recorded = recordedClient(PASSES);
		RedisSemaphore semaphore = recorded.client().getSemaphore(name, 1);
		LockHandle first = semaphore.acquire(Duration.ofSeconds(10), null);
		String member = members(name).get(0);
		CompletableFuture<LockHandle> second = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		CompletableFuture<LockHandle> third = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> LockTestClients.inspector(recorded.client()).waitingCount() == 2);
		recorded.commands().clear();
		first.release();
		LockHandle secondHandle = second.get(5, TimeUnit.SECONDS);
		// one script (the token), no release, no acquisition: the permit stayed taken,
		// under the member that took it from Redis
		assertThat(recorded.commands()).filteredOn("EVALSHA"::equals).hasSize(1);
		assertThat(secondHandle.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(members(name)).containsExactly(member);
		assertThat(secondHandle.isHeld()).isTrue();
		assertThat(semaphore.availablePermits()).isZero();
		// those two read it with a script each
		recorded.commands().clear();
		secondHandle.release();
		LockHandle thirdHandle = third.get(5, TimeUnit.SECONDS);
		assertThat(thirdHandle.fencingToken()).isGreaterThan(secondHandle.fencingToken());
		assertThat(recorded.commands()).filteredOn("EVALSHA"::equals).hasSize(1);
		thirdHandle.release();
		assertThat(members(name)).isEmpty();
		assertThat(semaphore.availablePermits()).isOne();
		LockTestClients.assertNothingLeftBehind(recorded.client());
	}

	@Test
	void aPassedPermitIsReportedWithItsCurrentHolderHereAndItsFirstHolderInRedis() throws Exception {
		String name = LockTestClients.uniqueName();
		MeterRegistry meters = new SimpleMeterRegistry();
		RedisLockClient client = this.clients
			.newClient((builder) -> builder.maxLocalPasses(PASSES).meterRegistry(meters));
		RedisSemaphore semaphore = client.getSemaphore(name, 1);
		LockHandle first = semaphore.acquire(Duration.ofSeconds(10), null);
		String member = members(name).get(0);
		CompletableFuture<LockHandle> second = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		first.release();
		LockHandle passed = second.get(5, TimeUnit.SECONDS);
		// this client's holds name the handle holding it now, with its own token; Redis
		// (and so the endpoint's holders) the member that took it from Redis
		assertThat(LockTestClients.inspector(client).heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.fencingToken()).isEqualTo(passed.fencingToken());
			assertThat(held.owner()).isNotEqualTo(member);
			assertThat(held.mode()).isEqualTo("semaphore");
		});
		assertThat(members(name)).containsExactly(member);
		passed.release();
		// two holds, each acquired and held once
		assertThat(meters.get("redis.lock.acquire")
			.tags("name", name, "mode", "semaphore", "outcome", "acquired")
			.timer()
			.count()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(
					meters.get("redis.lock.hold").tags("name", name, "mode", "semaphore").timer().count())
				.isEqualTo(2));
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void aRunOfPassesEndsAfterMaxLocalPassesAndGivesThePermitBackToRedis() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients
			.newClient((builder) -> builder.maxLocalPasses(2).commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(name, 1);
		LockHandle holder = semaphore.acquire(Duration.ofSeconds(10), null);
		String member = members(name).get(0);
		List<Long> tokens = new ArrayList<>(List.of(holder.fencingToken()));
		// two passes under the same member, then the third release gives it back
		for (int pass = 0; pass < 3; pass++) {
			CompletableFuture<LockHandle> next = semaphore.acquireAsync(Duration.ofSeconds(10), null);
			await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
			holder.release();
			holder = next.get(5, TimeUnit.SECONDS);
			tokens.add(holder.fencingToken());
			if (pass < 2) {
				assertThat(members(name)).as("after pass " + (pass + 1)).containsExactly(member);
			}
		}
		assertThat(members(name)).as("taken anew from Redis").hasSize(1).doesNotContain(member);
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		holder.release();
		assertThat(members(name)).isEmpty();
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void anotherClientsWaiterGetsAPermitWhileThreadsOfOneClientKeepPassingThem() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient busy = this.clients
			.newClient((builder) -> builder.maxLocalPasses(PASSES).commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
		RedisSemaphore busySemaphore = busy.getSemaphore(name, 2);
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger acquisitions = new AtomicInteger();
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			threads.add(CompletableFuture.runAsync(() -> {
				while (!stop.get()) {
					try (LockHandle permit = busySemaphore.acquire(Duration.ofSeconds(30), null)) {
						acquisitions.incrementAndGet();
						LockSupport.parkNanos(1_000_000);
					}
				}
			}, TestThreads.perTask()));
		}
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> acquisitions.get() > 50);
			RedisLockClient other = this.clients
				.newClient((builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
			long start = System.nanoTime();
			LockHandle permit = other.getSemaphore(name, 2).acquire(Duration.ofSeconds(20), null);
			logger.info("Another client's waiter got a permit after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms of 4 threads passing them");
			permit.release();
		}
		finally {
			stop.set(true);
			CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		LockTestClients.assertNothingLeftBehind(busy);
	}

	@Test
	void twoClientsPassingPermitsNeverExceedTheLimitAndTokensIncreaseInRealTime() throws Exception {
		String name = LockTestClients.uniqueName();
		int permits = 2;
		List<Recorded> recorded = List.of(recordedClient(PASSES), recordedClient(PASSES));
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<long[]> holds = Collections.synchronizedList(new ArrayList<>());
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (Recorded client : recorded) {
			RedisSemaphore semaphore = client.client().getSemaphore(name, permits);
			for (int i = 0; i < 4; i++) {
				threads.add(CompletableFuture.runAsync(() -> {
					for (int n = 0; n < 40; n++) {
						// as the history checker times a hold: from the call that asks
						// for
						// it to the return of its release, so that it surely spans it
						long from = System.nanoTime();
						LockHandle permit = semaphore.acquire(Duration.ofSeconds(30), null);
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						LockSupport.parkNanos(200_000);
						inside.decrementAndGet();
						permit.release();
						holds.add(new long[] { from, System.nanoTime(), permit.fencingToken() });
					}
				}, TestThreads.perTask()));
			}
		}
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		assertThat(most.get()).as("holders at once").isLessThanOrEqualTo(permits);
		assertThat(holds).hasSize(320);
		// a hold that began after another ended has a greater token, whichever client
		// and whichever permit: a block of tokens reserved ahead would break this
		for (long[] later : holds) {
			for (long[] earlier : holds) {
				if (earlier[1] < later[0]) {
					assertThat(later[2]).as("token of a hold that began after one with token " + earlier[2] + " ended")
						.isGreaterThan(earlier[2]);
				}
			}
		}
		long scripts = 0;
		for (Recorded client : recorded) {
			scripts += client.commands().stream().filter("EVALSHA"::equals).count();
			LockTestClients.assertNothingLeftBehind(client.client());
		}
		logger.info("320 acquisitions of 2 permits by 2 clients of 4 threads: " + scripts + " scripts");
		assertThat(members(name)).isEmpty();
	}

	@Test
	void threadsOfOneClientSharingPermitsRunMostlyOnPassesWithinTheLimit() throws Exception {
		String name = LockTestClients.uniqueName();
		Recorded recorded = recordedClient(PASSES);
		RedisSemaphore semaphore = recorded.client().getSemaphore(name, 2);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			threads.add(CompletableFuture.runAsync(() -> {
				for (int n = 0; n < 50; n++) {
					try (LockHandle permit = semaphore.acquire(Duration.ofSeconds(30), null)) {
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						LockSupport.parkNanos(500_000);
						inside.decrementAndGet();
					}
				}
			}, TestThreads.perTask()));
		}
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		assertThat(most.get()).as("holders at once").isEqualTo(2);
		long scripts = recorded.commands().stream().filter("EVALSHA"::equals).count();
		logger.info("300 acquisitions of 2 permits by 6 threads of one client: " + scripts + " scripts");
		// Without passing each acquisition is an acquire and a release script at least
		// (600), and most a failed attempt too. With it, a pass is one script, and every
		// PASSES passes the permit goes back to Redis (a release, an acquisition, perhaps
		// failed attempts, more of them on a busy machine): about 400.
		assertThat(scripts).as("scripts for 300 acquisitions").isLessThan(600);
		LockTestClients.assertNothingLeftBehind(recorded.client());
		assertThat(members(name)).isEmpty();
	}

	@Test
	void passesRacingWaitersWhoseTimeEndsLeaveNoPermitBehind() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients
			.newClient((builder) -> builder.maxLocalPasses(PASSES).commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(name, 1);
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger gaveUp = new AtomicInteger();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			threads.add(CompletableFuture.runAsync(() -> {
				for (int n = 0; n < 60; n++) {
					// waits about as long as a hold: many end just as a permit is passed
					Duration wait = Duration.ofNanos(ThreadLocalRandom.current().nextLong(200_000, 3_000_000));
					semaphore.tryAcquire(wait, null).ifPresentOrElse((permit) -> {
						most.accumulateAndGet(inside.incrementAndGet(), Math::max);
						LockSupport.parkNanos(500_000);
						inside.decrementAndGet();
						acquired.incrementAndGet();
						permit.release();
					}, gaveUp::incrementAndGet);
				}
			}, TestThreads.perTask()));
		}
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		logger.info("Short waits racing passes: " + acquired + " acquired, " + gaveUp + " gave up");
		assertThat(most.get()).isOne();
		assertThat(acquired.get()).isPositive();
		LockTestClients.assertNothingLeftBehind(client);
		assertThat(members(name)).isEmpty();
		semaphore.tryAcquire(Duration.ZERO, null).orElseThrow().release();
	}

	@Test
	void aPermitFoundLostAtItsPassIsReportedAndTheWaiterTakesOneFromRedis() throws Exception {
		String name = LockTestClients.uniqueName();
		List<LeaseLostEvent> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		// a watchdog renewing every 10 s: with the tests' 1.5 s one, a renewal on a busy
		// machine could fall between the deletion and the release, find the loss first,
		// and the release would then tell it instead of the pass
		RedisLockClient client = this.clients.newClient((builder) -> builder.maxLocalPasses(PASSES)
			.leaseLostListener(lost::add)
			.watchdogTimeout(Duration.ofSeconds(30)));
		RedisSemaphore semaphore = client.getSemaphore(name, 1);
		LockHandle holder = semaphore.acquire(Duration.ofSeconds(10), null);
		CompletableFuture<LockHandle> waiter = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		// gone behind the client's back, between two renewals
		redis.command("DEL", "lock:{" + name + "}:sem");
		holder.release();
		LockHandle next = waiter.get(5, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
		assertThat(lost).singleElement().satisfies((event) -> assertThat(event.lockName()).isEqualTo(name));
		// taken from Redis under its own member, with a greater token
		assertThat(members(name)).hasSize(1);
		assertThat(next.isHeld()).isTrue();
		assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
		next.release();
		assertThat(members(name)).isEmpty();
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void aPassedPermitReleasedWithHoldAtLeastIsKeptForNobodyAndNotPassed() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients
			.newClient((builder) -> builder.maxLocalPasses(PASSES).commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(name, 1);
		LockHandle first = semaphore.acquire(Duration.ofSeconds(10), null);
		CompletableFuture<LockHandle> second = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		// the minimum hold counts from the pass, which this release makes
		long passedAt = System.nanoTime();
		first.release();
		LockHandle passed = second.get(5, TimeUnit.SECONDS);
		CompletableFuture<LockHandle> third = semaphore.acquireAsync(Duration.ofSeconds(10), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		passed.release(Duration.ofSeconds(1));
		assertThat(members(name)).singleElement().asString().startsWith("kept:");
		LockHandle thirdHandle = third.get(10, TimeUnit.SECONDS);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - passedAt))
			.as("kept for nobody until the minimum hold ended")
			.isGreaterThanOrEqualTo(995);
		assertThat(thirdHandle.fencingToken()).isGreaterThan(passed.fencingToken());
		thirdHandle.release();
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void aPermitPassedInAProcessThatDiesComesBackWithinItsLease() throws Exception {
		String name = LockTestClients.uniqueName();
		long watchdogMillis = 1_500;
		RedisSemaphore semaphore = this.clients.newClient().getSemaphore(name, 2);
		Process worker = new ProcessBuilder(WorkerJvm.command(SemaphoreHolderWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, "2", "2", Long.toString(watchdogMillis), "pass"))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> !redis.command("GET", name + ":passed").isBlank());
			// still the two members that took the permits from Redis, renewed by the
			// watchdog for their current holders
			await().during(Duration.ofMillis(watchdogMillis * 2))
				.atMost(Duration.ofMillis(watchdogMillis * 4))
				.until(() -> members(name).size() == 2);
		}
		finally {
			worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		long killedAt = System.nanoTime();
		List<CompletableFuture<LockHandle>> waiters = List.of(semaphore.acquireAsync(Duration.ofSeconds(30), null),
				semaphore.acquireAsync(Duration.ofSeconds(30), null));
		CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
		logger.info("A killed process's passed permit came back after " + waited + " ms");
		assertThat(waited).isLessThan(watchdogMillis + 3_000);
		long passedToken = Long.parseLong(redis.command("GET", name + ":passed").trim());
		for (CompletableFuture<LockHandle> waiter : waiters) {
			assertThat(waiter.join().fencingToken()).isGreaterThan(passedToken);
			waiter.join().release();
		}
		assertThat(members(name)).isEmpty();
	}

	// the semaphore's members in Redis: the holders Redis knows
	private static List<String> members(String name) {
		String reply = redis.command("ZRANGE", "lock:{" + name + "}:sem", "0", "-1");
		List<String> members = new ArrayList<>();
		for (String line : reply.split("\\R")) {
			if (!line.isBlank()) {
				members.add(line.trim());
			}
		}
		return members;
	}

	private Recorded recordedClient(int maxLocalPasses) {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		RedisLockClient client = RedisLockClient.builder(factory)
			.maxLocalPasses(maxLocalPasses)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.build();
		LockTestClients.awaitConnected(client);
		commands.clear();
		return new Recorded(client, commands);
	}

	private record Recorded(RedisLockClient client, List<String> commands) {
	}

}
