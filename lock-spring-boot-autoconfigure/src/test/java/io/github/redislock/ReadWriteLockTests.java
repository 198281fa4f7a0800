package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The read/write lock against a real Redis: writers are not starved, downgrade works and
 * upgrade fails at once, readers of a phase share its token, dead readers are dropped at
 * the end of their own lease, and nothing is left in Redis. That readers share and a
 * writer excludes both sides, and the leases and watchdog of each side,
 * {@link LockKindContract} checks for every kind.
 */
class ReadWriteLockTests {

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
	void readersOverlapAndNoReaderEverSeesAWriteInProgress() throws Exception {
		String name = LockTestClients.uniqueName();
		List<RedisReadWriteLock> locks = List.of(this.clients.newClient().getReadWriteLock(name),
				this.clients.newClient().getReadWriteLock(name));
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger mostReadersAtOnce = new AtomicInteger();
		AtomicInteger violations = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> work = new ArrayList<>();
		try {
			for (int t = 0; t < 8; t++) {
				RedisReadWriteLock lock = locks.get(t % 2);
				boolean writer = t < 2;
				work.add(threads.submit(() -> {
					for (int i = 0; i < 30; i++) {
						RedisLock side = writer ? lock.writeLock() : lock.readLock();
						side.lock();
						try {
							if (writer) {
								if (writers.incrementAndGet() != 1 || readers.get() != 0) {
									violations.incrementAndGet();
								}
								writes.incrementAndGet();
								spin(200);
								writers.decrementAndGet();
							}
							else {
								mostReadersAtOnce.accumulateAndGet(readers.incrementAndGet(), Math::max);
								int writesBefore = writes.get();
								spin(500);
								if (writers.get() != 0 || writes.get() != writesBefore) {
									violations.incrementAndGet();
								}
								readers.decrementAndGet();
							}
						}
						finally {
							side.unlock();
						}
					}
					return null;
				}));
			}
			for (Future<?> done : work) {
				done.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(violations).hasValue(0);
		assertThat(writes).hasValue(2 * 30);
		assertThat(mostReadersAtOnce.get()).as("readers held the lock together").isGreaterThan(1);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aWriterArrivingAmongEightBusyReadersGetsInBeforeTheyStartAgain() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock readersLock = this.clients.newClient().getReadWriteLock(name);
		RedisLockClient writerClient = this.clients.newClient();
		RedisReadWriteLock writerLock = writerClient.getReadWriteLock(name);
		// connected before it asks: the count below is of its wait, not of a connection
		RedisLock warmUp = writerClient.getLock(LockTestClients.uniqueName());
		warmUp.lock();
		warmUp.unlock();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong writerAskedAt = new AtomicLong(Long.MAX_VALUE);
		AtomicInteger startedAfterTheWriterAsked = new AtomicInteger();
		AtomicInteger readSections = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		List<Future<?>> readers = new ArrayList<>();
		try {
			for (int t = 0; t < 8; t++) {
				readers.add(threads.submit(() -> {
					while (!stop.get()) {
						readersLock.readLock().lock();
						try {
							if (System.nanoTime() > writerAskedAt.get()) {
								startedAfterTheWriterAsked.incrementAndGet();
							}
							readSections.incrementAndGet();
							spin(20_000);
						}
						finally {
							readersLock.readLock().unlock();
						}
					}
					return null;
				}));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> readSections.get() >= 40);
			writerAskedAt.set(System.nanoTime());
			boolean acquired = writerLock.writeLock().tryLock(30, TimeUnit.SECONDS);
			int startedBeforeTheWrite = startedAfterTheWriterAsked.get();
			stop.set(true);
			assertThat(acquired).isTrue();
			writerLock.writeLock().unlock();
			// About one read section per reader can have begun as the writer asked
			// (those whose acquisition raced its first attempt; on a loaded machine its
			// first attempt can take a section's length to reach Redis, so two); with
			// readers joining freely, they would keep the writer out for good (hundreds).
			assertThat(startedBeforeTheWrite).isLessThanOrEqualTo(16);
			for (Future<?> reader : readers) {
				reader.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			stop.set(true);
			threads.shutdownNow();
		}
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aReaderArrivingAmongBusyWritersGetsInAfterTheCurrentWrite() throws Exception {
		String name = LockTestClients.uniqueName();
		List<RedisReadWriteLock> writerLocks = List.of(this.clients.newClient().getReadWriteLock(name),
				this.clients.newClient().getReadWriteLock(name));
		RedisLockClient readerClient = this.clients.newClient();
		RedisReadWriteLock readerLock = readerClient.getReadWriteLock(name);
		RedisLock warmUp = readerClient.getLock(LockTestClients.uniqueName());
		warmUp.lock();
		warmUp.unlock();
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong readerAskedAt = new AtomicLong(Long.MAX_VALUE);
		AtomicInteger startedAfterTheReaderAsked = new AtomicInteger();
		AtomicInteger writeSections = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(5);
		List<Future<?>> writers = new ArrayList<>();
		try {
			for (int t = 0; t < 4; t++) {
				RedisLock write = writerLocks.get(t % 2).writeLock();
				writers.add(threads.submit(() -> {
					while (!stop.get()) {
						write.lock();
						try {
							if (System.nanoTime() > readerAskedAt.get()) {
								startedAfterTheReaderAsked.incrementAndGet();
							}
							writeSections.incrementAndGet();
							spin(10_000);
						}
						finally {
							write.unlock();
						}
					}
					return null;
				}));
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> writeSections.get() >= 20);
			AtomicInteger startedBeforeTheRead = new AtomicInteger();
			Future<Boolean> read = threads.submit(() -> {
				boolean acquired = readerLock.readLock().tryLock(30, TimeUnit.SECONDS);
				startedBeforeTheRead.set(startedAfterTheReaderAsked.get());
				if (acquired) {
					readerLock.readLock().unlock();
				}
				return acquired;
			});
			// counted from when the reader waits: its first attempt has then left its
			// mark
			// in Redis. Counted from the call, a reader thread starved of CPU on a busy
			// machine saw 7 sections begin before its first attempt reached Redis.
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> read.isDone() || LockTestClients.inspector(readerClient).waitingCount() == 1);
			readerAskedAt.set(System.nanoTime());
			boolean acquired = read.get(30, TimeUnit.SECONDS);
			stop.set(true);
			assertThat(acquired).isTrue();
			// the write under way, and perhaps one that raced the reader's first attempt;
			// with writers always first, the reader would wait until they all stopped
			assertThat(startedBeforeTheRead.get()).isLessThanOrEqualTo(3);
			for (Future<?> writer : writers) {
				writer.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			stop.set(true);
			threads.shutdownNow();
		}
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void theHolderOfTheWriteLockDowngradesToReadAndOthersMayThenReadButNotWrite() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock lock = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock other = this.clients.newClient().getReadWriteLock(name);
		lock.writeLock().lock();
		long writeToken = lock.writeLock().fencingToken();
		lock.readLock().lock();
		assertThat(triesOnOtherThread(other.readLock())).as("others read while it writes").isFalse();
		lock.writeLock().unlock();
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		assertThat(lock.readLock().fencingToken()).isGreaterThanOrEqualTo(writeToken);
		assertThat(triesOnOtherThread(other.writeLock())).isFalse();
		assertThat(triesOnOtherThread(other.readLock())).isTrue();
		lock.readLock().unlock();
		assertThat(triesOnOtherThread(other.writeLock())).isTrue();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void anUpgradeFromReadToWriteFailsAtOnceInsteadOfWaitingForItself() {
		RedisReadWriteLock lock = this.clients.newClient().getReadWriteLock(LockTestClients.uniqueName());
		lock.readLock().lock();
		// without the check, this would wait for itself until the wait time ends
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> lock.writeLock().tryLock(10, TimeUnit.SECONDS))
			.withMessageContaining("holds the read lock of '" + lock.getName() + "'")
			.withMessageContaining("Release the read lock first");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(() -> lock.writeLock().lock());
		lock.readLock().unlock();
		assertThat(lock.writeLock().tryLock()).isTrue();
		lock.writeLock().unlock();
	}

	@Test
	void bothSidesAreReentrantAndCountedInTheClient() {
		RedisReadWriteLock lock = this.clients.newClient().getReadWriteLock(LockTestClients.uniqueName());
		lock.writeLock().lock();
		lock.writeLock().lock();
		lock.readLock().lock();
		lock.readLock().lock(Duration.ofMinutes(1));
		assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
		assertThat(lock.readLock().getHoldCount()).isEqualTo(2);
		lock.writeLock().unlock();
		lock.writeLock().unlock();
		assertThat(lock.writeLock().isLocked()).isFalse();
		assertThat(lock.readLock().isLocked()).isTrue();
		lock.readLock().unlock();
		lock.readLock().unlock();
		assertThat(lock.readLock().isLocked()).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(() -> lock.readLock().unlock());
		LockTestClients.assertNoKeysOf(this.redisTemplate, lock.getName());
	}

	@Test
	void readersOfOnePhaseShareItsTokenAndEveryWriteAfterItHasAGreaterOne() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock lock = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock other = this.clients.newClient().getReadWriteLock(name);
		lock.writeLock().lock();
		long firstWrite = lock.writeLock().fencingToken();
		lock.writeLock().unlock();
		lock.readLock().lock();
		long read = lock.readLock().fencingToken();
		long otherRead = TestThreads.onOtherThread(() -> {
			other.readLock().lock();
			long token = other.readLock().fencingToken();
			other.readLock().unlock();
			return token;
		});
		lock.readLock().unlock();
		long secondWrite = TestThreads.onOtherThread(() -> {
			other.writeLock().lock();
			long token = other.writeLock().fencingToken();
			other.writeLock().unlock();
			return token;
		});
		assertThat(read).isGreaterThanOrEqualTo(firstWrite).isEqualTo(otherRead);
		assertThat(secondWrite).isGreaterThan(read);
	}

	@Test
	void aReaderThatDiedIsDroppedAtTheEndOfItsOwnLeaseWhileOthersKeepTheLockRenewed() throws Exception {
		String name = LockTestClients.uniqueName();
		// long watchdog leases for the live readers: without the dead reader's own lease
		// end, the writer would wait for the whole hash to expire
		RedisReadWriteLock live = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock dead = this.clients.newClient().getReadWriteLock(name);
		RedisLockClient writerClient = this.clients.newClient();
		RedisReadWriteLock writer = writerClient.getReadWriteLock(name);
		// taken on a thread that ends without unlocking, as a process that died would
		assertThat(TestThreads.onOtherThread(() -> dead.readLock().tryLock(Duration.ZERO, Duration.ofMillis(500))))
			.isTrue();
		live.readLock().lock();
		CompletableFuture<Long> writerWaited = CompletableFuture.supplyAsync(() -> {
			long start = System.nanoTime();
			try {
				if (!writer.writeLock().tryLock(20, TimeUnit.SECONDS)) {
					return -1L;
				}
				writer.writeLock().unlock();
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(writerClient).waitingCount() == 1);
		live.readLock().unlock();
		// the hash lives on for the live reader's 30 s lease; the writer got in on the
		// dead
		// reader's 500 ms
		assertThat(writerWaited.get(20, TimeUnit.SECONDS)).isBetween(0L, 10_000L);
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void readersWaitingBehindAWriterAllGetInWhenItReleases() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient readersClient = this.clients.newClient();
		RedisReadWriteLock writer = this.clients.newClient().getReadWriteLock(name);
		writer.writeLock().lock();
		int readers = 4;
		CyclicBarrier allInside = new CyclicBarrier(readers);
		ExecutorService threads = Executors.newFixedThreadPool(readers);
		List<Future<Boolean>> reads = new ArrayList<>();
		try {
			for (int r = 0; r < readers; r++) {
				reads.add(threads.submit(() -> {
					RedisLock read = readersClient.getReadWriteLock(name).readLock();
					if (!read.tryLock(20, TimeUnit.SECONDS)) {
						return false;
					}
					try {
						// every reader inside at once: one release let them all in
						allInside.await(10, TimeUnit.SECONDS);
						return true;
					}
					finally {
						read.unlock();
					}
				}));
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> LockTestClients.inspector(readersClient).waitingCount() == readers);
			writer.writeLock().unlock();
			for (Future<Boolean> read : reads) {
				assertThat(read.get(20, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			threads.shutdownNow();
		}
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void handlesOfBothSidesAreOwnedByTheAcquisitionAndReleasedFromAnyThread() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock lock = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock other = this.clients.newClient().getReadWriteLock(name);
		LockHandle first = lock.tryAcquireRead(Duration.ZERO, null).orElseThrow();
		LockHandle second = lock.acquireReadAsync(Duration.ofSeconds(5), Duration.ofSeconds(10))
			.get(10, TimeUnit.SECONDS);
		assertThat(first.fencingToken()).isEqualTo(second.fencingToken());
		assertThat(second.extend(Duration.ofSeconds(20))).isTrue();
		assertThat(second.remainingLease()).isPositive();
		CompletableFuture<LockHandle> writer = other.acquireWriteAsync(Duration.ofSeconds(20), null);
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !writer.isDone());
		CompletableFuture.runAsync(first::release, TestThreads.perTask()).get(10, TimeUnit.SECONDS);
		assertThat(writer).isNotDone();
		CompletableFuture.runAsync(second::release, TestThreads.perTask()).get(10, TimeUnit.SECONDS);
		LockHandle write = writer.get(10, TimeUnit.SECONDS);
		assertThat(write.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(write.extend(Duration.ofSeconds(20))).isTrue();
		assertThat(lock.tryAcquireRead(Duration.ZERO, null)).isEmpty();
		write.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aReaderThatDoesNotWaitReadsWhileAWriterWaitsAsReentrantReadWriteLocksDo() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock reader = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock writer = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock newcomer = this.clients.newClient().getReadWriteLock(name);
		reader.readLock().lock();
		CompletableFuture<LockHandle> waiting = writer.acquireWriteAsync(Duration.ofSeconds(30), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> !triesOnOtherThread(newcomer.readLock()));
		assertThat(TestThreads.onOtherThread(() -> {
			boolean acquired = newcomer.readLock().tryLock();
			if (acquired) {
				newcomer.readLock().unlock();
			}
			return acquired;
		})).as("tryLock() while nobody writes").isTrue();
		reader.readLock().unlock();
		waiting.get(10, TimeUnit.SECONDS).release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aWriterThatStopsWaitingLetsNewReadersInAtOnce() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock reader = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock writer = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock newcomer = this.clients.newClient().getReadWriteLock(name);
		reader.readLock().lock();
		// timed out: without taking its mark back, it would keep new readers out for
		// WAITING_MARK (3 s) more; it is taken back before the wait returns
		assertThat(TestThreads.onOtherThread(() -> writer.writeLock().tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(triesOnOtherThread(newcomer.readLock())).isTrue();
		// cancelled while waiting: the same
		CompletableFuture<LockHandle> waiting = writer.acquireWriteAsync(Duration.ofSeconds(30), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> !triesOnOtherThread(newcomer.readLock()));
		waiting.cancel(false);
		await().atMost(Duration.ofSeconds(1)).until(() -> triesOnOtherThread(newcomer.readLock()));
		reader.readLock().unlock();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aReadWriteLockAndTheExclusiveLockOfTheSameNameAreIndependent() {
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		client.getLock(name).lock();
		RedisReadWriteLock lock = client.getReadWriteLock(name);
		assertThat(lock.writeLock().tryLock()).isTrue();
		lock.writeLock().unlock();
		client.getLock(name).unlock();
	}

	// whether another thread (another owner) gets the lock at once; released again
	// a caller that waits, if only briefly: one that does not is let in past waiting
	// writers
	private static boolean triesOnOtherThread(RedisLock lock) throws Exception {
		return TestThreads.onOtherThread(() -> {
			boolean acquired = lock.tryLock(Duration.ofMillis(50), null);
			if (acquired) {
				lock.unlock();
			}
			return acquired;
		});
	}

	// busy work standing for a critical section, in microseconds
	private static void spin(long micros) {
		long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

}
