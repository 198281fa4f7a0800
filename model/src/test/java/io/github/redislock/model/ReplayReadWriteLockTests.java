package io.github.redislock.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.redislock.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replays the read/write lock model's traces the build wrote to target/traces/rw (its
 * scenarios and random traces) against the read/write lock's Lua scripts on a Redis of
 * this class's own; see {@link ReadWriteReplay} and model/README.md.
 */
class ReplayReadWriteLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static StatefulRedisPubSubConnection<String, String> subscription;

	private static final BlockingQueue<String> published = new LinkedBlockingQueue<>();

	@BeforeAll
	static void connect() {
		client = RedisClient.create(RedisURI.create(redis.server().host(), redis.server().port()));
		connection = client.connect();
		subscription = client.connectPubSub();
		subscription.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				published.add((channel.equals(ReadWriteReplay.READERS_CHANNEL) ? "readers:" : "writers:") + message);
			}
		});
		subscription.sync().subscribe(ReadWriteReplay.READERS_CHANNEL, ReadWriteReplay.WRITERS_CHANNEL);
	}

	@AfterAll
	static void disconnect() {
		subscription.close();
		connection.close();
		client.shutdown();
	}

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		List<ReadWriteTrace> traces = traces();
		ReadWriteReplay replay = new ReadWriteReplay(connection.sync(), published, Map.of());
		List<String> failures = new ArrayList<>();
		for (ReadWriteTrace trace : traces) {
			try {
				replay.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
			}
		}
		Map<String, Long> steps = traces.stream()
			.flatMap((trace) -> trace.states().stream().skip(1))
			.collect(Collectors.groupingBy((state) -> state.last().kind(), TreeMap::new, Collectors.counting()));
		System.out.printf("Replayed %d read/write lock traces, steps %s: %d failed%n", traces.size(), steps,
				failures.size());
		assertThat(traces).extracting(ReadWriteTrace::name)
			.contains("scenario_tryReadBargesTest.itf.json", "scenario_readTurnTest.itf.json",
					"scenario_tryWriteIgnoresReadTurnTest.itf.json", "scenario_downgradeTest.itf.json",
					"scenario_withdrawLetsReadersInTest.itf.json", "scenario_deadReaderPurgedTest.itf.json");
		assertThat(steps).containsKeys("readLock", "writeLock", "readUnlock", "writeUnlock", "writeWithdraw",
				"readExtend", "readRenew", "writeExtend", "writeRenew", "crash", "tick", "dataLoss", "snapshot",
				"failover");
		assertThat(failures).as("traces whose replay parted from the model").isEmpty();
	}

	@Test
	void aTryReadKeptOutByWaitingWritersIsCaught() {
		ReadWriteReplay broken = new ReadWriteReplay(connection.sync(), published,
				Map.of("read-lock", brokenReadLock()));
		// a reader that does not wait while nobody writes and a writer waits: the model
		// grants, the broken script refuses (minus the time to the last writer's mark
		// end)
		Pattern caught = Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
				+ "readLock\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=false\\)( \\[reply lost])?: "
				+ "reply -\\d+, the model grants");
		List<String> failures = new ArrayList<>();
		for (ReadWriteTrace trace : traces()) {
			try {
				broken.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
				if (caught.matcher(ex.getMessage()).find()) {
					System.out.printf("Against the broken read-lock.lua, %d traces failed, the last: %s%n",
							failures.size(), ex.getMessage());
					return;
				}
			}
		}
		throw new AssertionError(
				"No replay caught the broken read-lock.lua at a tryLock() of the read side; failures: " + failures);
	}

	// read-lock.lua whose tryLock() waits behind writers too, as before e241783
	private static String brokenReadLock() {
		try {
			return new String(
					ReplayReadWriteLockTests.class.getResourceAsStream("/broken/read-lock.lua").readAllBytes(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static List<ReadWriteTrace> traces() {
		Path directory = Path.of(System.getProperty("redislock.model.traceDirectory", "target/traces"), "rw");
		try (Stream<Path> files = Files.list(directory)) {
			List<ReadWriteTrace> traces = files.filter((file) -> file.getFileName().toString().endsWith(".itf.json"))
				.sorted()
				.map(ReadWriteTrace::read)
				.toList();
			assertThat(traces).as("traces in %s (the build's quint run writes them)", directory).isNotEmpty();
			return traces;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
