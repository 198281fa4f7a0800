package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.internal.ScriptTexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter of another client than the holder's counts itself in on the lock, so that the
 * holder's release keeps the lock a moment for the other clients rather than for its own
 * threads; a waiter that stops waiting without the lock counts itself out, so that a
 * release with nobody left waiting frees the lock, and {@code tryLock()} on a free lock
 * succeeds at once, whoever asks.
 */
class WaiterMarkTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	enum GivingUp {

		TIMEOUT, INTERRUPT, CANCEL

	}

	@ParameterizedTest
	@EnumSource(GivingUp.class)
	void aReleaseAfterTheOtherClientsWaiterGaveUpFreesTheLockForEveryone(GivingUp how) throws Exception {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		RedisLockClient first = this.clients.newClient();
		RedisLockClient second = this.clients.newClient();
		RedisLockClient third = this.clients.newClient();
		RedisLock held = first.getLock(name);
		held.lock();
		waitAndGiveUp(second, name, how);
		// the waiter counted itself in, then out: before its call returned, but for a
		// cancel (in the background then, as the caller does not wait for the answer)
		if (how == GivingUp.CANCEL) {
			await().atMost(Duration.ofSeconds(10)).until(() -> "0".equals(redis.command("HEXISTS", key, "contended")));
		}
		assertThat(redis.command("HEXISTS", key, "contended")).as("counted out").isEqualTo("0");
		held.unlock();
		assertThat(redis.command("EXISTS", key)).as("freed, not kept for nobody").isEqualTo("0");
		assertThat(held.tryLock()).as("tryLock() by the releasing client").isTrue();
		held.unlock();
		assertThat(TestThreads.onOtherThread(() -> {
			RedisLock other = third.getLock(name);
			boolean taken = other.tryLock();
			other.unlock();
			return taken;
		})).as("tryLock() by a third client").isTrue();
	}

	@Test
	void whileAWaiterOfAnotherClientWaitsTheReleaseKeepsTheLockForItAndItGetsIt() throws Exception {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		RedisLockClient first = this.clients.newClient();
		RedisLockClient second = this.clients.newClient();
		RedisLock held = first.getLock(name);
		held.lock();
		CompletableFuture<LockHandle> waiting = second.acquireAsync(name, Duration.ofSeconds(20), null);
		await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(redis.command("HGET", key, "contended")));
		held.unlock();
		// kept for the other client's waiter: the releasing client's tryLock() does not
		// barge in before it
		LockHandle handle = waiting.get(10, TimeUnit.SECONDS);
		assertThat(redis.command("HEXISTS", key, "contended")).as("the waiter counted itself out").isEqualTo("0");
		handle.release();
		LockTestClients.assertNothingLeftBehind(second);
	}

	@Test
	void aLockKeptForTheWaitersOfOtherClientsIsTakenByATryLockOfTheReleasingClientButNotByItsWaiters()
			throws Exception {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		RedisLock lock = this.clients.newClient().getLock(name);
		lock.lock();
		String client = redis.command("HGET", key, "client");
		lock.unlock();
		// as its release leaves it while a waiter of another client is counted
		// (unlock.lua),
		// for longer than the 20 ms it lasts, so that the test can look at it
		redis.command("HSET", key, "yielded-by", client, "token", "1", "w:other:1", "1", "contended", "1");
		redis.command("PEXPIRE", key, "30000");
		assertThat(TestThreads.onOtherThread(() -> lock.tryLock(Duration.ofMillis(100), null)))
			.as("a caller that waits waits for the other client's turn")
			.isFalse();
		assertThat(redis.command("HGET", key, "contended")).as("and it took its own mark back").isEqualTo("1");
		assertThat(lock.tryLock()).as("a caller that does not wait takes a lock nobody holds").isTrue();
		assertThat(redis.command("HEXISTS", key, "yielded-by")).isEqualTo("0");
		lock.forceUnlock();
	}

	@Test
	void theLastWaiterCountedOutFreesALockKeptForThem() throws Exception {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		// as the library runs it: behind the prelude
		String script = ScriptTexts.text("withdraw.lua");
		redis.command("HSET", key, "yielded-by", "a:", "token", "1", "w:b:1", "1", "w:c:1", "1", "contended", "2");
		redis.command("PEXPIRE", key, "30000");
		assertThat(redis.command("EVAL", script, "1", key, "b:1", "0", key + ":released")).isEqualTo("1");
		assertThat(redis.command("EXISTS", key)).as("kept while another waiter is counted").isEqualTo("1");
		assertThat(redis.command("EVAL", script, "1", key, "c:1", "0", key + ":released")).isEqualTo("1");
		assertThat(redis.command("EXISTS", key)).as("freed with the last one").isEqualTo("0");
		assertThat(redis.command("EVAL", script, "1", key, "c:1", "0", key + ":released")).isEqualTo("0");
		// given up by pass.lua, which counts the yielding client in for its own threads:
		// that mark is no turn to keep the lock for
		redis.command("HSET", key, "yielded-by", "a:", "token", "1", "w:b:1", "1", "w:a:", "1", "contended", "2");
		redis.command("PEXPIRE", key, "30000");
		assertThat(redis.command("EVAL", script, "1", key, "b:1", "0", key + ":released")).isEqualTo("1");
		assertThat(redis.command("EXISTS", key)).as("freed with the other client's last waiter").isEqualTo("0");
	}

	@Test
	void twoWaitersOfAnotherClientAreCountedAndTheLockIsKeptWhileOneStillWaits() throws Exception {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		RedisLockClient first = this.clients.newClient();
		RedisLockClient second = this.clients.newClient();
		RedisLock held = first.getLock(name);
		held.lock();
		CompletableFuture<LockHandle> staying = second.acquireAsync(name, Duration.ofSeconds(20), null);
		CompletableFuture<LockHandle> leaving = second.acquireAsync(name, Duration.ofSeconds(20), null);
		await().atMost(Duration.ofSeconds(10)).until(() -> "2".equals(redis.command("HGET", key, "contended")));
		leaving.cancel(false);
		await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(redis.command("HGET", key, "contended")));
		held.unlock();
		staying.get(10, TimeUnit.SECONDS).release();
		LockTestClients.assertNothingLeftBehind(second);
	}

	private static void waitAndGiveUp(RedisLockClient client, String name, GivingUp how) throws Exception {
		String key = "lock:{" + name + "}";
		switch (how) {
			case TIMEOUT -> assertThat(TestThreads
				.onOtherThread(() -> client.getLock(name).tryLock(Duration.ofMillis(500), Duration.ofSeconds(10))))
				.isFalse();
			case INTERRUPT -> {
				CountDownLatch interrupted = new CountDownLatch(1);
				Thread waiter = new Thread(() -> {
					try {
						client.getLock(name).lockInterruptibly();
					}
					catch (InterruptedException ex) {
						interrupted.countDown();
					}
				});
				waiter.start();
				await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(redis.command("HGET", key, "contended")));
				waiter.interrupt();
				assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
			}
			case CANCEL -> {
				CompletableFuture<LockHandle> waiting = client.acquireAsync(name, Duration.ofSeconds(20), null);
				await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(redis.command("HGET", key, "contended")));
				waiting.cancel(false);
			}
		}
	}

}
