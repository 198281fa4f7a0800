package io.github.redislock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisClusterExtension;
import io.github.redislock.testsupport.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On a Redis Cluster of Redis 6.2, which has no sharded pub/sub, a client left at
 * {@link ShardedPubSub#AUTO} finds that its masters do not take {@code SPUBLISH}, says so
 * in a warning and announces releases with classic pub/sub, which wakes a waiter of
 * another client at once; {@link ShardedPubSub#ALWAYS} fails instead. The Cluster runs
 * the Redis 6.2 binary of embedded-redis (see {@link LegacyRedisServer}); the machine's
 * own Redis is 7.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisCluster62FallbackTests {

	/**
	 * The holder's lease: far above {@link #WOKEN_WITHIN}, so that a waiter that got the
	 * lock within it was woken by the release, not by the lease running out.
	 */
	private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

	/**
	 * A hand-off woken by a message takes milliseconds; twice the second that issue 31
	 * promises, for a loaded machine.
	 */
	private static final Duration WOKEN_WITHIN = Duration.ofSeconds(2);

	private static final int HAND_OFFS = 20;

	@TempDir
	static Path binaryDirectory;

	// the Redis 6.2 binary, copied out of its jar; the tests are skipped without it
	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(() -> {
		URL binary = LegacyRedisServer.find();
		assumeTrue(binary != null, () -> "The Redis 6.2 binary of embedded-redis (" + LegacyRedisServer.BINARY
				+ ") is not on the test class path");
		try {
			return RedisCluster.start(3, 0,
					LegacyRedisServer.copyExecutable(Objects.requireNonNull(binary), binaryDirectory));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	});

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(redis::configuration, TestTimeouts.COMMAND_TIMEOUT);

	@Test
	void theClusterRunsRedis62WithoutShardedPubSub() {
		for (RedisServer node : redis.cluster().nodes()) {
			assertThat(node.command("INFO", "server")).as("INFO of %s", node.port()).contains("redis_version:6.2.");
		}
	}

	@Test
	void autoFallsBackToClassicPubSubWithAWarning(CapturedOutput output) {
		newClient();
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(output).contains("Releases use classic pub/sub")
				.contains("unknown command `SPUBLISH`")
				.contains("Sharded pub/sub needs Redis 7 on every master"));
	}

	@Test
	void aWaiterIsWokenByTheClassicReleaseMessage() throws Exception {
		String name = LockTestClients.uniqueName();
		String channel = "lock:{" + name + "}:released";
		RedisLock held = newClient().getLock(name);
		RedisLockClient waiter = newClient();
		held.lock(HOLDER_LEASE);
		CompletableFuture<Long> acquiredAt = LockTestClients.acquiredAt(waiter, name, HOLDER_LEASE.multipliedBy(2));
		// subscribed with SUBSCRIBE on one node, which any node's PUBLISH reaches
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> classicSubscribers(channel) == 1);
		long releasedAt = System.nanoTime();
		held.unlock();
		Duration first = Duration.ofNanos(acquiredAt.get(HOLDER_LEASE.toMillis(), TimeUnit.MILLISECONDS) - releasedAt);
		assertThat(first).as("first hand-off").isLessThan(WOKEN_WITHIN);
		List<Duration> handOffs = new ArrayList<>(List.of(first));
		for (int i = 1; i < HAND_OFFS; i++) {
			held.lock(HOLDER_LEASE);
			Duration handOff = LockTestClients.handOffTime(held, waiter);
			assertThat(handOff).as("hand-off %d", i).isLessThan(WOKEN_WITHIN);
			handOffs.add(handOff);
		}
		Collections.sort(handOffs);
		System.out.println("[figures] Redis 6.2 Cluster, classic fallback, " + HAND_OFFS + " hand-offs: p50 "
				+ handOffs.get(HAND_OFFS / 2).toMillis() + " ms, max " + handOffs.get(HAND_OFFS - 1).toMillis()
				+ " ms");
	}

	/**
	 * {@link ShardedPubSub#ALWAYS} does not ask, and Redis 6.2 knows neither
	 * {@code SSUBSCRIBE} nor {@code SPUBLISH}: a wait fails at once instead of sleeping
	 * until the holder's lease ends, and a release fails too, though the lock is free,
	 * since Redis does not undo the writes a script made before its error.
	 */
	@Test
	void alwaysFailsWaitsAndReleasesNamingTheUnknownCommand() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock held = newClient((builder) -> builder.shardedPubSub(ShardedPubSub.ALWAYS)).getLock(name);
		RedisLock waiting = newClient((builder) -> builder.shardedPubSub(ShardedPubSub.ALWAYS)).getLock(name);
		held.lock(HOLDER_LEASE);
		assertThatExceptionOfType(RedisLockException.class)
			.isThrownBy(() -> waiting.tryLock(HOLDER_LEASE, HOLDER_LEASE))
			.withMessageContaining("Could not wait for lock '" + name + "'")
			.withMessageContaining("unknown command `SSUBSCRIBE`");
		assertThatExceptionOfType(RedisLockException.class).isThrownBy(held::unlock)
			.withMessageContaining("Could not release lock '" + name + "'")
			.withMessageContaining("does not know 'spublish'")
			.withMessageContaining("a release has freed the lock")
			.withMessageContaining("Set redis-lock.sharded-pub-sub to auto");
		assertThat(held.isLocked()).isFalse();
	}

	// redis-lock.sharded-pub-sub left at the builder's default, auto
	private RedisLockClient newClient() {
		return newClient((builder) -> {
		});
	}

	// connected before a test times anything: a cold JVM on a busy machine takes seconds
	// to read a Cluster's topology
	private RedisLockClient newClient(Consumer<RedisLockClient.Builder> settings) {
		return LockTestClients.awaitConnected(this.clients.newClient((builder) -> {
			builder.watchdogTimeout(HOLDER_LEASE).commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
			settings.accept(builder);
		}));
	}

	private static long classicSubscribers(String channel) {
		long subscribers = 0;
		for (RedisServer node : redis.cluster().nodes()) {
			String reply = node.command("PUBSUB", "NUMSUB", channel);
			subscribers += Long.parseLong(reply.substring(reply.lastIndexOf('\n') + 1));
		}
		return subscribers;
	}

}
