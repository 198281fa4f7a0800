package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.awaitility.Awaitility.await;

/**
 * What the opt-in replica acknowledgement ({@code WAIT}) changes against the window
 * asynchronous replication leaves (a master lost before its replica has an acquisition
 * takes the lock with it, and a second client can take it on the promoted replica): every
 * acknowledged acquisition is on the replica when it returns, and with the replica
 * unreachable no acquisition succeeds. Prints both acquire medians.
 */
class ReplicaAcknowledgementTests {

	private static final int ACQUISITIONS = 200;

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

	@Test
	void withAcknowledgementEveryAcquisitionIsOnTheReplicaWhenItReturns() {
		RedisServer master = start(RedisServers.start());
		RedisServer replica = start(RedisServers.start("--replicaof", master.host(), Integer.toString(master.port())));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
		RedisLockClient plain = client(master, null);
		RedisLockClient acknowledged = client(master, Duration.ofSeconds(1));
		long[] plainNanos = new long[ACQUISITIONS];
		long[] acknowledgedNanos = new long[ACQUISITIONS];
		int plainOnReplica = 0;
		int acknowledgedOnReplica = 0;
		// alternating, so that warm-up and machine noise fall on both alike
		for (int i = 0; i < ACQUISITIONS; i++) {
			for (RedisLockClient client : List.of(plain, acknowledged)) {
				RedisLock lock = client.getLock(LockTestClients.uniqueName());
				long start = System.nanoTime();
				lock.lock(Duration.ofMinutes(1));
				long took = System.nanoTime() - start;
				boolean onReplica = replica.command("EXISTS", "lock:{" + lock.getName() + "}").equals("1");
				if (client == plain) {
					plainNanos[i] = took;
					plainOnReplica += onReplica ? 1 : 0;
				}
				else {
					acknowledgedNanos[i] = took;
					acknowledgedOnReplica += onReplica ? 1 : 0;
				}
				lock.unlock();
			}
		}
		assertThat(acknowledgedOnReplica).as("acknowledged acquisitions on the replica when they returned")
			.isEqualTo(ACQUISITIONS);
		System.out.printf(
				"Replica acknowledgement: %d of %d acknowledged and %d of %d plain acquisitions were on "
						+ "the replica by the time a check reached it; acquire median %d us plain, %d us with WAIT%n",
				acknowledgedOnReplica, ACQUISITIONS, plainOnReplica, ACQUISITIONS, micros(median(plainNanos)),
				micros(median(acknowledgedNanos)));
	}

	@Test
	void aFailoverBeforeTheReplicaHasAnAcquisitionGrantsTheLockTwiceUnlessAcknowledged() throws Exception {
		RedisServer master = start(RedisServers.start());
		FaultProxy replicationLink = FaultProxy.start(master.host(), master.port());
		this.resources.add(0, replicationLink);
		RedisServer replica = start(
				RedisServers.start("--replicaof", replicationLink.host(), Integer.toString(replicationLink.port())));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
		RedisLockClient plain = client(master, null);
		RedisLockClient acknowledged = client(master, Duration.ofMillis(200));

		// the replication stream stalls (lag, a partition): what the master grants now,
		// its replica does not have
		replicationLink.blackHole();
		List<String> granted = new ArrayList<>();
		int refused = 0;
		for (int i = 0; i < 10; i++) {
			RedisLock lock = plain.getLock(LockTestClients.uniqueName());
			lock.lock(Duration.ofMinutes(1));
			granted.add(lock.getName());
			RedisLock checked = acknowledged.getLock(LockTestClients.uniqueName());
			try {
				checked.lock(Duration.ofMinutes(1));
			}
			catch (RedisLockException ex) {
				refused++;
			}
		}
		// the master dies before the stream resumes, and its replica is promoted
		master.stop();
		replicationLink.cut();
		replica.command("REPLICAOF", "NO", "ONE");
		RedisLockClient afterFailover = client(replica, null);
		int grantedTwice = 0;
		for (String name : granted) {
			if (afterFailover.getLock(name).tryLock()) {
				grantedTwice++;
			}
		}
		assertThat(grantedTwice).as("plain acquisitions the promoted replica granted again").isEqualTo(10);
		assertThat(refused).as("acknowledged acquisitions that failed instead").isEqualTo(10);
		System.out.printf("Failover with the replication stream stalled: %d of %d plain acquisitions were granted a "
				+ "second time by the promoted replica; with acknowledgement %d of %d failed instead, so none could be%n",
				grantedTwice, granted.size(), refused, 10);
	}

	@Test
	void withTheReplicaUnreachableAnAcquisitionFailsAfterTheTimeoutAndHoldsNothing() throws Exception {
		RedisServer master = start(RedisServers.start());
		RedisServer replica = start(RedisServers.start("--replicaof", master.host(), Integer.toString(master.port())));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
		// 1s, not less: the lock taken before the pause is acknowledged within it,
		// and on a loaded machine a replica once took longer than 200ms to do so
		RedisLockClient client = client(master, Duration.ofSeconds(1));
		RedisLock held = client.getLock(LockTestClients.uniqueName());
		held.lock();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		replica.pause();
		try {
			long start = System.nanoTime();
			assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(5), null)).isInstanceOf(RedisLockException.class)
				.hasMessage("Could not acquire lock '" + lock.getName() + "' (key 'lock:{" + lock.getName()
						+ "}'): 0 of 1 replicas acknowledged the acquisition within 1s, so a failover could "
						+ "lose it; it was released again (see redis-lock.replica-acknowledgement)");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofSeconds(1),
					Duration.ofSeconds(5));
			assertThat(lock.isLocked()).isFalse();
			assertThat(LockTestClients.inspector(client).heldCount()).as("only the lock taken before").isOne();
			held.lock();
			assertThat(held.getHoldCount()).as("a re-entry needs no acknowledgement").isEqualTo(2);
		}
		finally {
			replica.resume();
		}
		assertThat(lock.tryLock(Duration.ofSeconds(5), null)).isTrue();
		lock.unlock();
		held.unlock();
		held.unlock();
	}

	@Test
	void anInterruptWhileWaitingForTheReplicaGivesTheLockBack() throws Exception {
		RedisServer master = start(RedisServers.start());
		RedisServer replica = start(RedisServers.start("--replicaof", master.host(), Integer.toString(master.port())));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
		RedisLockClient client = client(master, Duration.ofMillis(1500));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		String key = "lock:{" + lock.getName() + "}";
		replica.pause();
		try {
			Thread[] acquirer = new Thread[1];
			CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
				acquirer[0] = Thread.currentThread();
				try {
					return lock.tryLock(Duration.ofSeconds(10), null);
				}
				catch (InterruptedException | RedisLockException ex) {
					return ex;
				}
			}, TestThreads.perTask());
			// the script ran: the acquisition waits for the replica now
			await().atMost(Duration.ofSeconds(5)).until(() -> master.command("EXISTS", key).equals("1"));
			acquirer[0].interrupt();
			assertThat(outcome.get(10, TimeUnit.SECONDS)).as("the interrupted acquisition")
				.isInstanceOfAny(InterruptedException.class, RedisLockException.class);
			assertThat(master.command("EXISTS", key)).as("the lock, given back").isEqualTo("0");
		}
		finally {
			replica.resume();
		}
	}

	@Test
	void aClientWithoutLettuceFailsWhenItIsBuilt() {
		RedisConnectionFactory notLettuce = mock(RedisConnectionFactory.class);
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> RedisLockClient.builder(notLettuce).replicaAcknowledgement(1, Duration.ofMillis(100)).build())
			.withMessageStartingWith("redis-lock needs Lettuce")
			.withMessageContaining(notLettuce.getClass().getName());
	}

	@Test
	void onAClusterTheMasterServingTheLockWaitsForItsOwnReplica() throws Exception {
		RedisCluster cluster = RedisCluster.start(3, 1);
		this.resources.add(cluster);
		// what is tested is which master waits for which replica, not how fast: a replica
		// of
		// this six-process cluster on a loaded machine once took longer than 300 ms
		RedisLockClient client = client(() -> new RedisClusterConfiguration(cluster.nodeAddresses()),
				Duration.ofMillis(1500));
		for (RedisServer node : cluster.nodes()) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> !node.command("ROLE").startsWith("slave")
						|| node.command("INFO", "replication").contains("master_link_status:up"));
		}
		for (int i = 0; i < 10; i++) {
			RedisLock lock = client.getLock(LockTestClients.uniqueName());
			lock.lock();
			lock.unlock();
		}
		// with one master's replica unreachable, only that master's locks cannot be
		// taken: the WAIT goes to the master that ran the script, over the connection
		// that did
		RedisLock blocked = client.getLock(LockTestClients.uniqueName());
		RedisServer replica = cluster.replicaOfMasterOf("lock:{" + blocked.getName() + "}");
		RedisLock elsewhere = lockServedByAnotherMaster(client, cluster, replica);
		replica.pause();
		try {
			for (int i = 0; i < 3; i++) {
				assertThatThrownBy(blocked::lock).isInstanceOf(RedisLockException.class)
					.hasMessageContaining("0 of 1 replicas acknowledged");
				elsewhere.lock();
				elsewhere.unlock();
			}
		}
		finally {
			replica.resume();
		}
		blocked.lock();
		blocked.unlock();
	}

	private static RedisLock lockServedByAnotherMaster(RedisLockClient client, RedisCluster cluster,
			RedisServer replica) {
		for (;;) {
			RedisLock lock = client.getLock(LockTestClients.uniqueName());
			if (cluster.replicaOfMasterOf("lock:{" + lock.getName() + "}").port() != replica.port()) {
				return lock;
			}
		}
	}

	private RedisServer start(RedisServer server) {
		this.resources.add(0, server::close);
		return server;
	}

	private RedisLockClient client(RedisServer server, @Nullable Duration acknowledgementTimeout) {
		return client(() -> new RedisStandaloneConfiguration(server.host(), server.port()), acknowledgementTimeout);
	}

	private RedisLockClient client(Supplier<RedisConfiguration> where, @Nullable Duration acknowledgementTimeout) {
		LockTestClients clients = LockTestClients.on(where, Duration.ofSeconds(2));
		this.resources.add(0, clients);
		return clients.newClient((builder) -> {
			builder.watchdogTimeout(Duration.ofSeconds(30));
			if (acknowledgementTimeout != null) {
				builder.replicaAcknowledgement(1, acknowledgementTimeout);
			}
		});
	}

	private static long median(long[] values) {
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	private static long micros(long nanos) {
		return TimeUnit.NANOSECONDS.toMicros(nanos);
	}

}
