package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.testsupport.RedisSentinelGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients configured through Sentinel while the master dies during contention: they
 * recover on the promoted replica (scripts reloaded, waiters subscribed again) within a
 * measured bound, and the locks that asynchronous replication lost in the failover are
 * counted: each is a lock two clients could hold at once.
 */
class SentinelFailoverTests {

	private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

	private RedisSentinelGroup group;

	private final LockTestClients clients = LockTestClients
		.on(() -> new RedisSentinelConfiguration(RedisSentinelGroup.MASTER_NAME,
				new HashSet<>(this.group.sentinelAddresses())), Duration.ofSeconds(1));

	@BeforeEach
	void startGroup() {
		this.group = RedisSentinelGroup.start(DOWN_AFTER.toMillis());
	}

	@AfterEach
	void stopGroup() {
		this.clients.close();
		this.group.close();
	}

	@Test
	void clientsRecoverOnThePromotedReplicaWithinABound() throws Exception {
		RedisLockClient first = this.clients.newClient(Duration.ofSeconds(30));
		RedisLockClient second = this.clients.newClient(Duration.ofSeconds(30));
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong lastSuccess = new AtomicLong();
		List<CompletableFuture<Void>> contenders = new ArrayList<>();
		for (RedisLockClient client : List.of(first, second)) {
			contenders.add(CompletableFuture.runAsync(() -> {
				RedisLock lock = client.getLock("contended");
				while (running.get()) {
					try {
						if (lock.tryLock(Duration.ofMillis(500), Duration.ofSeconds(5))) {
							lastSuccess.set(System.nanoTime());
							lock.unlock();
						}
					}
					catch (RedisLockException | IllegalMonitorStateException ex) {
						// the failover: keep trying
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, TestThreads.perTask()));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> lastSuccess.get() != 0);
		// locks taken just before the master dies may not have reached the replica yet
		List<String> lastLocks = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			RedisLock lock = first.getLock("last-" + i);
			lock.lock(Duration.ofMinutes(5));
			lastLocks.add(lock.getName());
		}
		int oldMaster = this.group.currentMasterPort();
		long killedAt = System.nanoTime();
		this.group.master().stop();
		await().atMost(Duration.ofSeconds(60)).until(() -> this.group.currentMasterPort() != oldMaster);
		long promotedAt = System.nanoTime();
		await().atMost(Duration.ofSeconds(60)).until(() -> lastSuccess.get() > promotedAt);
		long recoveredAt = lastSuccess.get();
		running.set(false);
		CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		Duration recovery = Duration.ofNanos(recoveredAt - killedAt);
		Duration promotion = Duration.ofNanos(promotedAt - killedAt);
		int lost = 0;
		RedisLockClient observer = this.clients.newClient(Duration.ofSeconds(30));
		for (String name : new HashSet<>(lastLocks)) {
			if (!observer.getLock(name).isLocked()) {
				lost++;
			}
		}
		System.out.printf(
				"SENTINEL master killed: promoted after %d ms, first lock on the new master %d ms after "
						+ "the kill; %d of %d locks taken just before the kill were lost by the failover%n",
				promotion.toMillis(), recovery.toMillis(), lost, lastLocks.size());
		assertThat(recovery).isLessThan(Duration.ofSeconds(30));
		// waiters subscribe again on the new master: a release wakes a waiter promptly
		RedisLock holder = first.getLock("after-failover");
		holder.lock(Duration.ofSeconds(30));
		assertThat(LockTestClients.handOffTime(holder, second)).isLessThan(Duration.ofSeconds(1));
	}

}
