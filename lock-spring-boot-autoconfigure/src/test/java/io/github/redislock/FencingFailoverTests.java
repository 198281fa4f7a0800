package io.github.redislock;

import java.time.Duration;
import java.util.HashSet;
import java.util.function.Consumer;

import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisSentinelGroup;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A name's fencing tokens strictly increase across a Sentinel failover to a replica that
 * missed the last acquisitions: the promoted replica's stale counter starts at its clock,
 * above what the dead master issued. Apart from {@link FencingDurabilityTests}: a
 * failover takes seconds.
 */
class FencingFailoverTests {

	private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

	private static final int ACQUISITIONS = 5;

	@Test
	void tokensIncreaseAfterSentinelPromotesAReplicaThatMissedAcquisitions() {
		try (RedisSentinelGroup group = RedisSentinelGroup.start(DOWN_AFTER.toMillis());
				LockTestClients clients = LockTestClients
					.on(() -> new RedisSentinelConfiguration(RedisSentinelGroup.MASTER_NAME,
							new HashSet<>(group.sentinelAddresses())), TestTimeouts.COMMAND_TIMEOUT)) {
			RedisLockClient client = LockTestClients.awaitConnected(clients.newClient(defaults()));
			String name = LockTestClients.uniqueName();
			Tokens replicated = Tokens.take(client, LockType.EXCLUSIVE, name, ACQUISITIONS);
			RedisServer replica = group.replica();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> FencingDurabilityTests.counterOrZero(replica) == replicated.last());
			// the replica stops, and its link is cut on the master's side: nothing of
			// what
			// follows reaches it, not even what the kernel would have buffered for it
			replica.pause();
			group.master().command("CLIENT", "KILL", "TYPE", "replica");
			Tokens missed = Tokens.take(client, LockType.EXCLUSIVE, name, ACQUISITIONS);
			int oldMaster = group.currentMasterPort();
			group.master().stop();
			replica.resume();
			await().atMost(Duration.ofSeconds(60)).until(() -> group.currentMasterPort() != oldMaster);
			assertThat(FencingDurabilityTests.counterOrZero(replica))
				.as("the promoted replica missed the last acquisitions")
				.isEqualTo(replicated.last())
				.isLessThan(missed.last());
			// the same client follows Sentinel to the new master
			long same = await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> Tokens.takeOne(client, LockType.EXCLUSIVE, name), (token) -> true);
			assertThat(same).isGreaterThan(missed.last());
			RedisLockClient fresh = LockTestClients.awaitConnected(clients.newClient(defaults()));
			Tokens.take(fresh, LockType.EXCLUSIVE, name, ACQUISITIONS).assertAbove(same);
		}
	}

	private static Consumer<RedisLockClient.Builder> defaults() {
		return (builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
	}

}
