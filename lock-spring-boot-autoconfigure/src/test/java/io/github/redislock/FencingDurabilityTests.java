package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A name's fencing tokens strictly increase across the events that lose or roll back
 * Redis's memory of earlier ones: a restart without persistence, {@code FLUSHALL}, the
 * eviction of the slot's counter, and a replica promoted after it missed acquisitions.
 * Every kind that issues tokens is tried in each test, on real {@code redis-server}
 * processes. The tokens follow the server's clock in microseconds (a hybrid logical
 * clock, see docs/design/fencing-and-sharded-pubsub.md); on one host the clocks of old
 * and new servers are the same clock, so the one assumption left always holds here.
 */
class FencingDurabilityTests {

	private static final int ACQUISITIONS = 10;

	/** How many tokens a passing client reserves at once (its maxLocalPasses). */
	private static final int BLOCK = 4;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@BeforeEach
	void startEmpty() {
		redis.command("FLUSHALL");
	}

	@AfterEach
	void noEvictionAgain() {
		redis.command("CONFIG", "SET", "maxmemory", "0");
		redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
	}

	@Test
	void tokensIncreaseAcrossARestartWithoutPersistenceForTheSameAndANewClient() {
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		EveryKind before = EveryKind.take(client, name);
		assertThat(Long.parseLong(redis.command("DBSIZE"))).as("the slot's counter is kept").isPositive();
		redis.server().restartWithoutData();
		assertThat(redis.command("DBSIZE")).as("the restarted server is empty").isEqualTo("0");
		// the same client reconnects on its first call after the restart
		long first = await().atMost(TestTimeouts.COMMAND_TIMEOUT)
			.ignoreExceptions()
			.until(() -> Tokens.takeOne(client, LockType.EXCLUSIVE, name), (token) -> true);
		assertThat(first).isGreaterThan(before.last());
		EveryKind sameClient = EveryKind.take(client, name).assertAbove(first);
		EveryKind newClient = EveryKind.take(this.clients.newClient(), name).assertAbove(sameClient.last());
		assertThat(counter(redis.server())).as("the counter is the last token issued").isEqualTo(newClient.last());
	}

	@Test
	void tokensIncreaseAcrossFlushall() {
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		EveryKind before = EveryKind.take(client, name);
		redis.command("FLUSHALL");
		EveryKind sameClient = EveryKind.take(client, name).assertAbove(before.last());
		EveryKind.take(this.clients.newClient(), name).assertAbove(sameClient.last());
	}

	@Test
	void tokensIncreaseAfterTheCounterIsEvictedUnderAllkeysLru() {
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		EveryKind before = EveryKind.take(client, name);
		String counter = counterKey(redis.server());
		MemoryPressure.limit(redis.server(), "allkeys-lru");
		MemoryPressure.fillUntil(redis.server(), () -> "0".equals(redis.command("EXISTS", counter)));
		assertThat(MemoryPressure.evictedKeys(redis.server())).isPositive();
		MemoryPressure.lift(redis.server());
		EveryKind.take(client, name).assertAbove(before.last());
	}

	@Test
	void theCounterHasNoExpiryAndOutlivesTheLocksUnderVolatileLru() {
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		EveryKind.take(client, name);
		String counter = counterKey(redis.server());
		assertThat(redis.command("PTTL", counter)).as("no expiry: volatile policies never evict it").isEqualTo("-1");
		// holders' keys have an expiry: they go (their client is left to learn of it),
		// the counter stays
		RedisLockClient holders = this.clients.newClient();
		List<LockHandle> held = new ArrayList<>();
		for (LockType type : List.of(LockType.EXCLUSIVE, LockType.READ, LockType.FAIR, LockType.SEMAPHORE)) {
			held.add(type.tryAcquire(holders, name, Duration.ofSeconds(10), null).orElseThrow());
		}
		long highest = held.stream().mapToLong(LockHandle::fencingToken).max().orElseThrow();
		MemoryPressure.limit(redis.server(), "volatile-lru");
		MemoryPressure.fillUntil(redis.server(), () -> redis.command("KEYS", "*{" + name + "}*").isBlank());
		assertThat(MemoryPressure.evictedKeys(redis.server())).isPositive();
		assertThat(redis.command("EXISTS", counter)).isEqualTo("1");
		assertThat(counter(redis.server())).isGreaterThanOrEqualTo(highest);
		MemoryPressure.lift(redis.server());
		EveryKind.take(client, name).assertAbove(highest);
	}

	@Test
	void tokensIncreaseAfterAReplicaThatMissedAcquisitionsIsPromotedByHand() throws Exception {
		// a replica's first sync starts at once, not after the 5 s Redis 7 waits by
		// default for more replicas to share a diskless transfer
		try (RedisServer primary = RedisServers.start("--repl-diskless-sync-delay", "0");
				RedisServer replica = RedisServers.start("--replicaof", primary.host(),
						Integer.toString(primary.port()));
				LockTestClients primaryClients = LockTestClients.on(() -> standalone(primary),
						TestTimeouts.COMMAND_TIMEOUT);
				LockTestClients replicaClients = LockTestClients.on(() -> standalone(replica),
						TestTimeouts.COMMAND_TIMEOUT)) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
			RedisLockClient onPrimary = LockTestClients.awaitConnected(primaryClients.newClient(defaults()));
			String name = LockTestClients.uniqueName();
			EveryKind replicated = EveryKind.take(onPrimary, name);
			await().atMost(Duration.ofSeconds(10)).until(() -> counterOrZero(replica) == replicated.last());
			replica.command("REPLICAOF", "NO", "ONE");
			EveryKind missed = EveryKind.take(onPrimary, name).assertAbove(replicated.last());
			assertThat(counter(replica)).as("the promoted replica missed the last acquisitions")
				.isEqualTo(replicated.last())
				.isLessThan(missed.last());
			RedisLockClient onReplica = LockTestClients.awaitConnected(replicaClients.newClient(defaults()));
			EveryKind promoted = EveryKind.take(onReplica, name).assertAbove(missed.last());
			// the old primary, still taking acquisitions (a split brain), issues tokens
			// from its own clock too
			EveryKind.take(onPrimary, name).assertAbove(promoted.last());
		}
	}

	/**
	 * The tokens of every kind of one name, taken kind after kind: their keys share the
	 * name's slot, so one counter issues them all, and each event is tried once for all.
	 */
	private record EveryKind(List<Tokens> runs) {

		static EveryKind take(RedisLockClient client, String name) {
			List<Tokens> runs = new ArrayList<>();
			for (LockType type : LockType.values()) {
				runs.add(Tokens.take(client, type, name, ACQUISITIONS));
			}
			return new EveryKind(runs);
		}

		/** The highest token taken. */
		long last() {
			return this.runs.stream().mapToLong(Tokens::last).max().orElseThrow();
		}

		EveryKind assertAbove(long earlier) {
			this.runs.forEach((run) -> run.assertAbove(earlier));
			return this;
		}

	}

	@Test
	void blocksReservedForPassingStayBelowTheNextGrant() throws Exception {
		RedisLockClient passing = this.clients.newClient((builder) -> builder.maxLocalPasses(BLOCK));
		String name = LockTestClients.uniqueName();
		LocalPassing run = LocalPassing.start(passing, name, 2);
		// the first pass reserved a block: the counter is its last token
		assertThat(counter(redis.server())).isEqualTo(run.blockStart() + BLOCK - 1);
		assertThat(run.firstToken()).isLessThan(run.blockStart());
		LockHandle passed = run.passToThird();
		assertThat(passed.fencingToken()).isEqualTo(run.blockStart() + 1);
		passed.release();
		long next = Tokens.takeOne(this.clients.newClient(), LockType.EXCLUSIVE, name);
		assertThat(next).isGreaterThan(run.blockStart() + BLOCK - 1);
	}

	@Test
	void aBlockReservedBeforeARestartIsBelowTheNextGrantAndAFencedStoreRejectsItsPass() throws Exception {
		RedisLockClient passing = this.clients.newClient((builder) -> builder.maxLocalPasses(BLOCK));
		String name = LockTestClients.uniqueName();
		LocalPassing run = LocalPassing.start(passing, name, 1);
		long blockEnd = run.blockStart() + BLOCK - 1;
		redis.server().restartWithoutData();
		// the lock was lost with the data: another client takes it and writes
		RedisLockClient other = this.clients.newClient();
		LockHandle taken = await().atMost(TestTimeouts.COMMAND_TIMEOUT)
			.ignoreExceptions()
			.until(() -> LockType.EXCLUSIVE.tryAcquire(other, name, Duration.ZERO, null).orElseThrow(),
					(handle) -> true);
		assertThat(taken.fencingToken()).isGreaterThan(blockEnd);
		FencedStore store = new FencedStore(this.clients.newTemplate(), "store:" + name, true);
		assertThat(store.write("written by the new holder", taken.fencingToken())).isTrue();
		// the handle passed the lock before the restart still believes it holds it, with
		// a
		// token of the block reserved then: the store refuses its write
		assertThat(store.write("written by the passed handle", run.blockStart())).isFalse();
		assertThat(store.value()).isEqualTo("written by the new holder");
		taken.release();
		run.releaseSecond();
		long again = Tokens.takeOne(passing, LockType.EXCLUSIVE, name);
		assertThat(again).isGreaterThan(taken.fencingToken());
	}

	private static Consumer<RedisLockClient.Builder> defaults() {
		return (builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
	}

	private static RedisStandaloneConfiguration standalone(RedisServer server) {
		return new RedisStandaloneConfiguration(server.host(), server.port());
	}

	/** The one fencing counter of a server whose test used one lock name. */
	static String counterKey(RedisServer server) {
		List<String> keys = new ArrayList<>(List.of(server.command("KEYS", "*fence:*").split("\\R")));
		keys.removeIf(String::isBlank);
		assertThat(keys).as("fencing counters").hasSize(1);
		return keys.get(0);
	}

	static long counter(RedisServer server) {
		return Long.parseLong(server.command("GET", counterKey(server)));
	}

	/** The counter, or 0 while a replica has not received it yet. */
	static long counterOrZero(RedisServer server) {
		return server.command("KEYS", "*fence:*").isBlank() ? 0 : counter(server);
	}

}
