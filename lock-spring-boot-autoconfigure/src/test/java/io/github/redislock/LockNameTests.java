package io.github.redislock;

import java.time.Duration;
import java.util.List;

import io.github.redislock.internal.HeldLock;
import io.github.redislock.internal.KindState;
import io.github.redislock.internal.LockNames;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Any name that is not blank is a lock: names that ShedLock or Spring Integration accept
 * and a Redis Cluster hash tag cannot hold as they are (a brace ends or empties the tag;
 * a very long name is a very long key) get a hashed tag in their keys, and keep their own
 * name everywhere a user reads it.
 */
class LockNameTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	static List<String> namesAHashTagCannotHold() {
		return List.of("report{tenant-7}", "a}b", "}starts-with-a-brace", "{", "x".repeat(2000));
	}

	@ParameterizedTest
	@MethodSource("namesAHashTagCannotHold")
	void aNameWithBracesOrOverLongLocksExcludesAndIsShownAsItIs(String name) throws Exception {
		RedisLockClient instance = this.clients.newClient();
		RedisLockClient other = this.clients.newClient();
		RedisLock lock = instance.getLock(name);
		lock.lock();
		try {
			String tag = LockNames.hashTag(name);
			assertThat(tag).startsWith("{").doesNotContain("}").hasSize(44);
			assertThat(redis.command("EXISTS", "lock:{" + tag + "}")).isEqualTo("1");
			assertThat(TestThreads.onOtherThread(() -> other.getLock(name).tryLock())).isFalse();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> other.acquire(name, Duration.ZERO, null))
				.withMessageContaining("Could not acquire lock '" + name + "'");
			assertThat(LockTestClients.inspector(instance).heldLocks()).extracting(HeldLock::name)
				.containsExactly(name);
			assertThat(LockTestClients.inspector(other).kindStates(name)).filteredOn(KindState::locked)
				.singleElement()
				.satisfies((state) -> assertThat(state.key()).isEqualTo("lock:{" + tag + "}"));
		}
		finally {
			lock.unlock();
		}
		assertThat(redis.command("EXISTS", "lock:{" + LockNames.hashTag(name) + "}")).isEqualTo("0");
		assertThat(TestThreads.onOtherThread(() -> {
			RedisLock now = other.getLock(name);
			boolean taken = now.tryLock();
			now.unlock();
			return taken;
		})).isTrue();
	}

	@Test
	void everyKindOfABracedNameWorksAndItsKeysShareOneSlot() {
		RedisLockClient client = this.clients.newClient();
		String name = "}a{b}";
		RedisReadWriteLock readWrite = client.getReadWriteLock(name);
		readWrite.writeLock().lock();
		readWrite.readLock().lock();
		readWrite.readLock().unlock();
		readWrite.writeLock().unlock();
		RedisLock fair = client.getFairLock(name);
		fair.lock();
		fair.unlock();
		LockHandle handle = client.acquire(name, Duration.ZERO, null);
		handle.release();
		String tag = LockNames.hashTag(name);
		int slot = ClusterSlotHashUtil.calculateSlot("lock:{" + tag + "}");
		assertThat(List.of("lock:{" + tag + "}:rw", "lock:{" + tag + "}:fair", "lock:{" + tag + "}:fair:queue"))
			.allSatisfy((key) -> assertThat(ClusterSlotHashUtil.calculateSlot(key)).isEqualTo(slot));
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void namesThatDifferOnlyInTheirBracesAreTwoLocks() throws Exception {
		RedisLockClient client = this.clients.newClient();
		RedisLock open = client.getLock("a{b");
		open.lock();
		try {
			assertThat(TestThreads.onOtherThread(() -> {
				RedisLock closed = client.getLock("a}b");
				boolean taken = closed.tryLock();
				closed.unlock();
				return taken;
			})).isTrue();
		}
		finally {
			open.unlock();
		}
		// and a plain name never takes a hashed tag: no tag of a name without braces
		// starts with one
		assertThat(LockNames.hashTag("order:42")).isEqualTo("order:42");
		assertThat(LockNames.hashTag("x".repeat(1024))).isEqualTo("x".repeat(1024));
	}

}
