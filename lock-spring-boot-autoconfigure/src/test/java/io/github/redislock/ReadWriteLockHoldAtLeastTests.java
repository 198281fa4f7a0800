package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code release(holdAtLeast)} of a read/write lock against a real Redis: a write
 * released sooner keeps the lock for nobody, other clients' writers and readers alike,
 * until the minimum has passed, and they get it then rather than at the end of the former
 * writer's lease; a write released while its owner still reads (a downgrade) keeps new
 * readers out until then, and writers until the read ends too; a read released sooner
 * keeps writers out, not readers; nothing is left in Redis afterwards. No acquisition may
 * succeed before the minimum, however loaded the machine: each is checked against the
 * time taken before the holder asked for the lock.
 */
class ReadWriteLockHoldAtLeastTests {

	// long enough that the checks made right after the release mostly run before it ends
	private static final Duration MINIMUM = Duration.ofMillis(1500);

	// generous: the waiters are woken by the release and sleep the time left, so only a
	// lease (30 s) would take longer
	private static final Duration SOON_AFTER = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private StringRedisTemplate redisTemplate;

	@BeforeEach
	void template() {
		this.redisTemplate = this.clients.newTemplate();
	}

	@ParameterizedTest
	@EnumSource(Side.class)
	void aShortWriteKeepsOtherClientsOutUntilTheMinimumThenTheWaiterGetsItWithoutWaitingForALease(Side other)
			throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock holder = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock others = this.clients.newClient().getReadWriteLock(name);
		long start = System.nanoTime();
		LockHandle write = holder.tryAcquireWrite(Duration.ZERO, null).orElseThrow();
		write.release(MINIMUM);
		assertThat(this.redisTemplate.opsForHash().get(key(name), "kept-write")).as("kept-write").isNotNull();
		assertNotBeforeTheMinimum(start, Side.READ.tryAcquire(others));
		assertNotBeforeTheMinimum(start, Side.WRITE.tryAcquire(others));
		assertNotBeforeTheMinimum(start, Side.WRITE.tryAcquire(holder));
		LockHandle next = takenAfterTheMinimum(other, others, start, "taken after the minimum");
		next.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aWriteReleasedWhileItsOwnerReadsKeepsNewReadersOutUntilTheMinimumAndWritersUntilTheReadEnds()
			throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock owner = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock others = this.clients.newClient().getReadWriteLock(name);
		long start = System.nanoTime();
		owner.writeLock().lock();
		owner.readLock().lock();
		owner.writeLock().unlock(MINIMUM);
		assertThat(owner.readLock().isHeldByCurrentThread()).as("the owner reads on").isTrue();
		// it re-enters its read at once
		owner.readLock().lock();
		owner.readLock().unlock();
		assertNotBeforeTheMinimum(start, Side.READ.tryAcquire(others));
		assertNotBeforeTheMinimum(start, Side.WRITE.tryAcquire(others));
		LockHandle reader = takenAfterTheMinimum(Side.READ, others, start, "read after the minimum");
		assertThat(Side.WRITE.tryAcquire(others)).as("no writer while the owner reads").isEmpty();
		reader.release();
		owner.readLock().unlock();
		Side.WRITE.tryAcquire(others).orElseThrow(() -> new AssertionError("a writer once the reads ended")).release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aDowngradeWhoseWriteAndReadAreBothReleasedWithAMinimumKeepsWritersOutUntilIt() throws Exception {
		// the read of the downgrade is released with a minimum too, while the minimum of
		// the write still runs: nothing may free the lock before
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock owner = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock others = this.clients.newClient().getReadWriteLock(name);
		long start = System.nanoTime();
		owner.writeLock().lock();
		owner.readLock().lock();
		owner.writeLock().unlock(MINIMUM);
		owner.readLock().unlock(MINIMUM);
		assertNotBeforeTheMinimum(start, Side.WRITE.tryAcquire(others));
		LockHandle writer = takenAfterTheMinimum(Side.WRITE, others, start, "written after the minimum");
		writer.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aShortReadKeepsWritersOutUntilTheMinimumButLetsReadersIn() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock holder = this.clients.newClient().getReadWriteLock(name);
		RedisReadWriteLock others = this.clients.newClient().getReadWriteLock(name);
		long start = System.nanoTime();
		LockHandle read = holder.tryAcquireRead(Duration.ZERO, null).orElseThrow();
		read.release(MINIMUM);
		assertThat(this.redisTemplate.opsForHash().get(key(name), "kept-read")).as("kept-read").isNotNull();
		LockHandle otherRead = Side.READ.tryAcquire(others).orElseThrow(() -> new AssertionError("readers come in"));
		otherRead.release();
		assertNotBeforeTheMinimum(start, Side.WRITE.tryAcquire(others));
		LockHandle writer = takenAfterTheMinimum(Side.WRITE, others, start, "written after the minimum");
		writer.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	@Test
	void aWriteHeldLongerThanTheMinimumIsFreedAtOnce() {
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock holder = this.clients.newClient().getReadWriteLock(name);
		LockHandle write = holder.tryAcquireWrite(Duration.ZERO, null).orElseThrow();
		long acquired = System.nanoTime();
		await().pollInterval(Duration.ofMillis(1))
			.until(() -> System.nanoTime() - acquired > TimeUnit.MILLISECONDS.toNanos(20));
		write.release(Duration.ofMillis(5));
		LockHandle read = this.clients.newClient()
			.getReadWriteLock(name)
			.tryAcquireRead(Duration.ZERO, null)
			.orElseThrow(() -> new AssertionError("freed at once"));
		read.release();
		LockTestClients.assertNoKeysOf(this.redisTemplate, name);
	}

	// a waiter (woken by the release, sleeping the time left) gets the lock soon, and
	// only once the minimum has passed
	private static LockHandle takenAfterTheMinimum(Side side, RedisReadWriteLock lock, long start, String what)
			throws Exception {
		LockHandle taken = side.acquire(lock).get(SOON_AFTER.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(elapsedSince(start)).as(what).isGreaterThanOrEqualTo(MINIMUM);
		return taken;
	}

	// an acquisition that got the lock must have come after the minimum
	private static void assertNotBeforeTheMinimum(long start, Optional<LockHandle> taken) {
		Duration elapsed = elapsedSince(start);
		taken.ifPresent(LockHandle::release);
		assertThat(taken.isEmpty() || elapsed.compareTo(MINIMUM) >= 0)
			.as("taken %s ms after the holder asked, before the minimum of %s ms", elapsed.toMillis(),
					MINIMUM.toMillis())
			.isTrue();
	}

	private static Duration elapsedSince(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	private static String key(String name) {
		return "lock:{" + name + "}:rw";
	}

	enum Side {

		READ {

			@Override
			Optional<LockHandle> tryAcquire(RedisReadWriteLock lock) {
				return lock.tryAcquireRead(Duration.ZERO, null);
			}

			@Override
			CompletableFuture<LockHandle> acquire(RedisReadWriteLock lock) {
				return lock.acquireReadAsync(Duration.ofSeconds(30), null);
			}

		},

		WRITE {

			@Override
			Optional<LockHandle> tryAcquire(RedisReadWriteLock lock) {
				return lock.tryAcquireWrite(Duration.ZERO, null);
			}

			@Override
			CompletableFuture<LockHandle> acquire(RedisReadWriteLock lock) {
				return lock.acquireWriteAsync(Duration.ofSeconds(30), null);
			}

		};

		abstract Optional<LockHandle> tryAcquire(RedisReadWriteLock lock);

		abstract CompletableFuture<LockHandle> acquire(RedisReadWriteLock lock);

	}

}
