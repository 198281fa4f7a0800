package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fair lock against a real Redis: granted in request order across clients, the
 * waiters of a killed process leave the queue within 10 s, and nothing is left in Redis.
 * What every kind keeps (a waiter that times out or is interrupted leaves the queue at
 * once, exclusion, leases, tokens) {@link LockKindContract} checks.
 */
class FairLockTests {

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(FairLockTests.class);

	/** Waiters that time out in {@link #manyWaitersThatTimeOutLeaveNoKeyBehind()}. */
	private static final int TIMED_OUT_WAITERS = Integer.getInteger("redislock.test.fairWaiters", 500);

	/**
	 * Waiters (asynchronous handles) of the killed process in
	 * {@link #aKilledProcessesManyWaitersLeaveNoKeyBehind()}.
	 */
	private static final int KILLED_WAITERS = Integer.getInteger("redislock.test.killedFairWaiters", 100);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private StringRedisTemplate redisTemplate;

	@BeforeEach
	void createTemplate() {
		this.redisTemplate = this.clients.newTemplate();
	}

	@Test
	void waitersOfTwoClientsGetTheLockInTheOrderTheyAsked() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		List<RedisLockClient> waitingClients = List.of(this.clients.newClient(), this.clients.newClient());
		holder.lock();
		List<Integer> granted = Collections.synchronizedList(new ArrayList<>());
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> waiters = new ArrayList<>();
		try {
			for (int i = 0; i < 8; i++) {
				int position = i;
				// the clients take turns asking, one waiter at a time: each is queued
				// before the next asks
				RedisLock lock = waitingClients.get(i % 2).getFairLock(name);
				waiters.add(threads.submit(() -> {
					lock.lock();
					try {
						granted.add(position);
					}
					finally {
						lock.unlock();
					}
				}));
				await().atMost(Duration.ofSeconds(10)).until(() -> queued(name) == position + 1);
			}
			holder.unlock();
			for (Future<?> waiter : waiters) {
				waiter.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(granted).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void contendingThreadsOfTwoClientsNeverOverlapAndTakeTurnsInsteadOfBarging() throws Exception {
		String name = LockTestClients.uniqueName();
		String counter = "counter:{" + name + "}";
		int iterations = 20;
		List<Integer> holders = Collections.synchronizedList(new ArrayList<>());
		List<Future<?>> work = new ArrayList<>();
		List<RedisLockClient> lockClients = List.of(this.clients.newClient(), this.clients.newClient());
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			for (int t = 0; t < 8; t++) {
				int thread = t;
				RedisLock lock = lockClients.get(t % 2).getFairLock(name);
				StringRedisTemplate template = this.clients.newTemplate();
				work.add(threads.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						lock.lock();
						try {
							holders.add(thread);
							MutualExclusionTests.increment(template, counter);
						}
						finally {
							lock.unlock();
						}
					}
					return null;
				}));
			}
			for (Future<?> done : work) {
				done.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(this.redisTemplate.opsForValue().get(counter)).isEqualTo(Integer.toString(8 * iterations));
		// A thread that releases and asks again queues behind the others waiting: it
		// gets the lock twice in a row only when nobody else waits (as the first threads
		// start, and the last ones finish). A lock that lets a newcomer barge in ahead of
		// the waiter whose turn it is would give the releasing thread most of them.
		int twiceInARow = 0;
		for (int i = 1; i < holders.size(); i++) {
			if (holders.get(i).equals(holders.get(i - 1))) {
				twiceInARow++;
			}
		}
		assertThat(twiceInARow).as("grants to the thread that had the lock just before, of %d", holders.size())
			.isLessThan(2 * 8);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void sleepingWaitersKeepTheirPlacesLongerThanAWaiterCountsAsAliveWithoutAsking() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		holder.lock(Duration.ofSeconds(30));
		List<Integer> granted = Collections.synchronizedList(new ArrayList<>());
		List<CompletableFuture<Void>> waiters = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			int position = i;
			RedisFairLock lock = this.clients.newClient().getFairLock(name);
			// each sleeps until the release that names it (or the holder's lease end, 30
			// s):
			// only its client's heartbeats keep its place past 6 s
			waiters.add(lock.acquireAsync(Duration.ofSeconds(60), null).thenAccept((handle) -> {
				granted.add(position);
				handle.release();
			}));
			await().atMost(Duration.ofSeconds(10)).until(() -> queued(name) == position + 1);
		}
		await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(10)).until(() -> queued(name) == 2);
		holder.unlock();
		for (CompletableFuture<Void> waiter : waiters) {
			waiter.get(20, TimeUnit.SECONDS);
		}
		assertThat(granted).containsExactly(0, 1);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aKilledProcessesWaitersLeaveTheQueueWithinTenSecondsAndTheirKeysExpire() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		RedisLock live = this.clients.newClient().getFairLock(name);
		RedisLock newcomer = this.clients.newClient().getFairLock(name);
		holder.lock();
		Process worker = new ProcessBuilder(WorkerJvm.command(FairWaiterWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, "50"))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> queued(name) == 50);
		}
		finally {
			worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		long killedAt = System.nanoTime();
		CompletableFuture<Long> liveWaiter = CompletableFuture.supplyAsync(() -> {
			try {
				if (!live.tryLock(30, TimeUnit.SECONDS)) {
					return -1L;
				}
				long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
				live.unlock();
				return waited;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> queued(name) == 51);
		holder.unlock();
		// free, but the dead are still ahead: nobody who waits passes the queue; a caller
		// that does not wait takes the free lock, as a fair ReentrantLock's tryLock()
		// does
		assertThat(TestThreads.onOtherThread(() -> newcomer.tryLock(100, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(TestThreads.onOtherThread(() -> {
			boolean taken = newcomer.tryLock();
			if (taken) {
				newcomer.unlock();
			}
			return taken;
		})).isTrue();
		assertThat(liveWaiter.get(30, TimeUnit.SECONDS)).isBetween(0L, 10_000L);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aKilledProcessesManyWaitersLeaveNoKeyBehind() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		holder.lock();
		Process worker = new ProcessBuilder(WorkerJvm.command(FairWaiterWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, Integer.toString(KILLED_WAITERS), "handles"))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			await().atMost(Duration.ofSeconds(120)).until(() -> queued(name) == KILLED_WAITERS);
		}
		finally {
			worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		long killedAt = System.nanoTime();
		holder.unlock();
		// nobody asks any more: the queue's keys end with the last heartbeat
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
		logger.info(KILLED_WAITERS + " killed fair waiters: no key of the lock left "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt) + " ms after the kill");
	}

	@Test
	void theNextWaiterGetsTheLockWhenAHolderThatDiedLosesItsLease() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		RedisLock waiter = this.clients.newClient().getFairLock(name);
		// taken on a thread that ends without unlocking, as a process that died would
		assertThat(TestThreads.onOtherThread(() -> holder.tryLock(Duration.ZERO, Duration.ofMillis(500)))).isTrue();
		long start = System.nanoTime();
		assertThat(waiter.tryLock(10, TimeUnit.SECONDS)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		waiter.unlock();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void handlesQueueInTurnAndACancelledOneLeavesTheQueue() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		RedisFairLock lock = this.clients.newClient().getFairLock(name);
		holder.lock();
		List<CompletableFuture<LockHandle>> handles = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			handles.add(lock.acquireAsync(Duration.ofSeconds(20), null));
			int queuedNow = i + 1;
			await().atMost(Duration.ofSeconds(10)).until(() -> queued(name) == queuedNow);
		}
		handles.get(1).cancel(false);
		await().atMost(Duration.ofSeconds(1)).until(() -> queued(name) == 2);
		assertThat(lock.tryAcquire(Duration.ZERO, null)).as("held").isEmpty();
		holder.unlock();
		LockHandle first = handles.get(0).get(10, TimeUnit.SECONDS);
		assertThat(handles.get(2)).isNotDone();
		CompletableFuture.runAsync(first::release, TestThreads.perTask()).get(10, TimeUnit.SECONDS);
		LockHandle third = handles.get(2).get(10, TimeUnit.SECONDS);
		assertThat(third.fencingToken()).isGreaterThan(first.fencingToken());
		third.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void manyWaitersThatTimeOutLeaveNoKeyBehind() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		RedisLockClient waiting = this.clients.newClient();
		holder.lock();
		AtomicInteger acquired = new AtomicInteger();
		int batch = 200;
		for (int started = 0; started < TIMED_OUT_WAITERS; started += batch) {
			List<Thread> threads = new ArrayList<>(batch);
			for (int i = 0; i < batch; i++) {
				// a thread per waiter: each its own owner, its own place in the queue
				Thread thread = new Thread(() -> {
					RedisLock lock = waiting.getFairLock(name);
					try {
						if (lock.tryLock(50, TimeUnit.MILLISECONDS)) {
							acquired.incrementAndGet();
							lock.unlock();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				thread.start();
				threads.add(thread);
			}
			for (Thread thread : threads) {
				thread.join(30_000);
			}
		}
		assertThat(acquired).hasValue(0);
		holder.unlock();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
		assertThat(LockTestClients.inspector(waiting).waitingCount()).isZero();
	}

	private long queued(String name) {
		Long size = this.redisTemplate.opsForZSet().zCard("lock:{" + name + "}:fair:queue");
		return (size != null) ? size : 0;
	}

}
