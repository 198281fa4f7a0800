package io.github.redislock;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Fencing tokens are microsecond-scale numbers (about 1.8 x 10^15) that pass through
 * Lua's doubles: exact up to 2^53 (the year 2255 in microseconds), as long as no script
 * turns one into a string ({@code tostring} and {@code ..} write 14 significant digits).
 */
class FencingScriptTests {

	/** 2^53: the first integer a double cannot tell from the next. */
	private static final long EXACT_LIMIT = 1L << 53;

	private static final int ACQUISITIONS = 5;

	// the names the scripts give tokens and the counter: a script that writes one of them
	// into a string rounds it
	private static final Pattern STRINGIFIED_TOKEN = Pattern.compile(
			"tostring\\s*\\(\\s*(token|last|rt|wt|fields\\[4\\])\\b|\\.\\.\\s*\\(?\\s*(token|last|rt|wt|fields\\[4\\])\\b"
					+ "|\\b(token|last|rt|wt|fields\\[4\\])\\s*\\)?\\s*\\.\\.");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@ParameterizedTest
	@EnumSource(LockType.class)
	void tokensStayExactJustBelowTwoToThe53(LockType type) {
		redis.command("FLUSHALL");
		RedisLockClient client = this.clients.newClient();
		String name = LockTestClients.uniqueName();
		Tokens.takeOne(client, type, name);
		String counter = FencingDurabilityTests.counterKey(redis.server());
		long start = EXACT_LIMIT - 10;
		redis.command("SET", counter, Long.toString(start));
		Tokens tokens = Tokens.take(client, type, name, ACQUISITIONS);
		List<Long> expected = new ArrayList<>();
		for (int i = 1; i <= ACQUISITIONS; i++) {
			// a read phase's token is the counter when no write came between
			expected.add((type == LockType.READ) ? start : start + i);
		}
		assertThat(tokens.values()).isEqualTo(expected);
		assertThat(redis.command("GET", counter)).isEqualTo(Long.toString(tokens.last()));
	}

	@Test
	void noScriptTurnsATokenIntoAString() throws IOException, URISyntaxException {
		URL lock = Objects.requireNonNull(getClass().getResource("/io/github/redislock/internal/lock.lua"));
		List<String> found = new ArrayList<>();
		List<Path> scripts;
		try (Stream<Path> files = Files.list(Path.of(lock.toURI()).getParent())) {
			scripts = files.filter((file) -> file.toString().endsWith(".lua")).sorted().toList();
		}
		assertThat(scripts).hasSizeGreaterThan(10);
		for (Path script : scripts) {
			List<String> lines = Files.readAllLines(script, StandardCharsets.UTF_8);
			for (int i = 0; i < lines.size(); i++) {
				String code = withoutComment(lines.get(i));
				Matcher matcher = STRINGIFIED_TOKEN.matcher(code);
				if (matcher.find()) {
					found.add(script.getFileName() + ":" + (i + 1) + ": " + lines.get(i).trim());
				}
			}
		}
		assertThat(found).as("tokens turned into strings (rounded to 14 digits)").isEmpty();
	}

	@Test
	void theCheckFindsATokenTurnedIntoAString() {
		assertThat(STRINGIFIED_TOKEN.matcher("redis.call('publish', KEYS[3], 'granted:' .. token)").find()).isTrue();
		assertThat(STRINGIFIED_TOKEN.matcher("local t = tostring(last)").find()).isTrue();
		assertThat(STRINGIFIED_TOKEN.matcher("return rt .. ':'").find()).isTrue();
		assertThat(STRINGIFIED_TOKEN.matcher("local field = 'w:' .. ARGV[2]").find()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void acquireScriptsGrantOnARedisThatReplicatesScriptsVerbatim(LockType type) throws Exception {
		try (LegacyRedisServer server = legacyServer();
				LockTestClients legacyClients = LockTestClients.on(server::configuration,
						TestTimeouts.COMMAND_TIMEOUT)) {
			// Redis 4's default: a script that reads TIME may write only after asking for
			// effects replication, before its first write
			LegacyRedisServer.configure(legacyClients.newConnectionFactory(), "lua-replicate-commands", "no");
			RedisLockClient client = LockTestClients.awaitConnected(
					legacyClients.newClient((builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)));
			Tokens.take(client, type, LockTestClients.uniqueName(), ACQUISITIONS).assertAbove(0);
		}
	}

	@Test
	void passingReservesABlockOnARedisThatReplicatesScriptsVerbatim() throws Exception {
		try (LegacyRedisServer server = legacyServer();
				LockTestClients legacyClients = LockTestClients.on(server::configuration,
						TestTimeouts.COMMAND_TIMEOUT)) {
			LegacyRedisServer.configure(legacyClients.newConnectionFactory(), "lua-replicate-commands", "no");
			RedisLockClient client = LockTestClients.awaitConnected(legacyClients
				.newClient((builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT).maxLocalPasses(2)));
			LocalPassing run = LocalPassing.start(client, LockTestClients.uniqueName(), 2);
			assertThat(run.blockStart()).isGreaterThan(run.firstToken());
			LockHandle third = run.passToThird();
			assertThat(third.fencingToken()).isEqualTo(run.blockStart() + 1);
			third.release();
		}
	}

	private static LegacyRedisServer legacyServer() throws IOException {
		URL binary = LegacyRedisServer.find();
		assumeTrue(binary != null,
				() -> "The Redis 6.2 binary of embedded-redis (" + LegacyRedisServer.BINARY
						+ ") is not on the test class path, and Redis 7 no longer replicates scripts verbatim "
						+ "(CONFIG SET lua-replicate-commands no: unknown option)");
		return LegacyRedisServer.start(Objects.requireNonNull(binary));
	}

	private static String withoutComment(String line) {
		int comment = line.indexOf("--");
		return (comment < 0) ? line : line.substring(0, comment);
	}

}
