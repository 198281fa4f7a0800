package io.github.redislock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redislock.internal.ScriptTexts;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * What the exclusive lock's free grant and release cost inside Redis, this build's
 * scripts against another version's, to within a percent or two: the end-to-end
 * benchmark's rates move by more than that between runs of the same code.
 *
 * <p>
 * Both versions run on one Redis that this run starts, in alternating batches of 100
 * pipelined grants on free names followed by their 100 releases, and Redis' own time in
 * {@code EVALSHA} ({@code INFO commandstats}) is read after each batch: whatever else
 * slows the machine meanwhile slows both alike. Arguments follow this build's convention;
 * an older script ignores the ones it does not read.
 *
 * <p>
 * {@code --against=<commit>} reads the other version's {@code prelude.lua},
 * {@code lock.lua} and {@code unlock.lua} with {@code git show} (run it from the
 * repository); {@code --against=<directory>} reads them from a folder, for a variant
 * edited by hand. {@code --batches=600} sets how many batches each version runs.
 */
public final class ScriptCostMain {

	private static final String SCRIPTS = "lock-spring-boot-autoconfigure/src/main/resources/io/github/redislock/internal/";

	private static final int BATCH = 100;

	private static final String OWNER = "c0ffee00-1111-2222-3333-444455556666:17";

	private ScriptCostMain() {
	}

	public static void main(String[] args) {
		Map<String, String> options = BenchmarkMain.options(args);
		String against = options.get("against");
		if (against == null) {
			throw new IllegalArgumentException("--against=<commit or directory> names the scripts to compare with");
		}
		int batches = Integer.parseInt(options.getOrDefault("batches", "600"));
		Version current = new Version("this build", ScriptTexts.text("lock.lua"), ScriptTexts.text("unlock.lua"));
		Version other = new Version(against, read(against, "lock.lua"), read(against, "unlock.lua"));
		try (RedisServer redis = RedisServers.start()) {
			RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
			try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
				RedisAsyncCommands<byte[], byte[]> commands = connection.async();
				connection.setAutoFlushCommands(false);
				other.load(redis);
				current.load(redis);
				for (int batch = 0; batch < batches; batch++) {
					// the order alternates, so that neither always runs right after the
					// other
					List<Version> order = (batch % 2 == 0) ? List.of(other, current) : List.of(current, other);
					for (Version version : order) {
						version.runBatch(redis, connection, commands, batch);
					}
				}
			}
			finally {
				client.shutdown(0, 5, TimeUnit.SECONDS);
			}
		}
		report(other, current);
	}

	private static void report(Version other, Version current) {
		for (Version version : List.of(other, current)) {
			System.out.printf(Locale.ROOT, "%-40s %.2f µs of EVALSHA a grant and release (median batch %.2f)%n",
					version.name, version.totalMicros / (double) (version.perBatch.size() * BATCH),
					median(version.perBatch));
		}
		List<Double> ratios = new ArrayList<>();
		for (int i = 0; i < current.perBatch.size(); i++) {
			ratios.add(current.perBatch.get(i) / other.perBatch.get(i));
		}
		System.out.printf(Locale.ROOT, "this build / %s: %.3f in total, %.3f the median batch%n", other.name,
				current.totalMicros / (double) other.totalMicros, median(ratios));
	}

	private static double median(List<Double> values) {
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		return sorted[sorted.length / 2];
	}

	// the prelude (when the version has one) in front of the script, as ScriptTexts does
	private static String read(String against, String script) {
		Path folder = Path.of(against);
		if (Files.isDirectory(folder)) {
			try {
				Path prelude = folder.resolve(ScriptTexts.PRELUDE);
				String opening = Files.exists(prelude) ? Files.readString(prelude) : "";
				return opening + Files.readString(folder.resolve(script));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		String prelude = gitShow(against, ScriptTexts.PRELUDE);
		return ((prelude != null) ? prelude : "") + requireScript(gitShow(against, script), against, script);
	}

	private static String requireScript(String text, String against, String script) {
		if (text == null) {
			throw new IllegalArgumentException("git show " + against + ":" + SCRIPTS + script
					+ " found nothing: name a commit of this repository");
		}
		return text;
	}

	private static String gitShow(String commit, String script) {
		try {
			Process git = new ProcessBuilder("git", "show", commit + ":" + SCRIPTS + script)
				.directory(repositoryRoot().toFile())
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
			String text = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			return (git.waitFor() == 0) ? text : null;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("git is needed to read " + commit + "'s scripts", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	// run from the repository or from its benchmarks folder
	private static Path repositoryRoot() {
		Path here = Path.of("").toAbsolutePath();
		return Files.isDirectory(here.resolve("benchmarks")) ? here : here.getParent();
	}

	private static final class Version {

		private final String name;

		private final String lockScript;

		private final String unlockScript;

		private String lockSha = "";

		private String unlockSha = "";

		private long totalMicros;

		private final List<Double> perBatch = new ArrayList<>();

		Version(String name, String lockScript, String unlockScript) {
			this.name = name;
			this.lockScript = lockScript;
			this.unlockScript = unlockScript;
		}

		void load(RedisServer redis) {
			this.lockSha = redis.command("SCRIPT", "LOAD", this.lockScript);
			this.unlockSha = redis.command("SCRIPT", "LOAD", this.unlockScript);
		}

		void runBatch(RedisServer redis, StatefulRedisConnection<byte[], byte[]> connection,
				RedisAsyncCommands<byte[], byte[]> commands, int batch) {
			CommandStats.reset(redis);
			List<RedisFuture<Long>> grants = new ArrayList<>(BATCH);
			List<byte[]> names = new ArrayList<>(BATCH);
			for (int i = 0; i < BATCH; i++) {
				String lockKey = "lock:{cost-" + this.lockSha.substring(0, 8) + "-" + batch + "-" + i + "}";
				names.add(bytes(lockKey));
				grants.add(commands.evalsha(this.lockSha, ScriptOutputType.INTEGER,
						new byte[][] { bytes(lockKey), bytes("lock:fence:{cost-" + i + "}") }, bytes("30000"),
						bytes(OWNER), bytes("0"), bytes("1"), bytes("0")));
			}
			connection.flushCommands();
			List<RedisFuture<Long>> releases = new ArrayList<>(BATCH);
			for (int i = 0; i < BATCH; i++) {
				long token = join(grants.get(i));
				if (token <= 0) {
					throw new IllegalStateException(this.name + ": a free lock was not granted (" + token + ")");
				}
				byte[] lockKey = names.get(i);
				releases.add(commands.evalsha(this.unlockSha, ScriptOutputType.INTEGER, new byte[][] { lockKey },
						bytes(OWNER), bytes("0"), bytes("1"), bytes("0"), bytes("0"), bytes("1"),
						bytes(new String(lockKey, StandardCharsets.UTF_8) + ":released"), bytes("0"),
						bytes(Long.toString(token))));
			}
			connection.flushCommands();
			for (RedisFuture<Long> release : releases) {
				if (join(release) != 0) {
					throw new IllegalStateException(this.name + ": a release did not free its lock");
				}
			}
			long micros = CommandStats.micros(redis).getOrDefault("evalsha", 0L);
			this.totalMicros += micros;
			this.perBatch.add(micros / (double) BATCH);
		}

		private static long join(RedisFuture<Long> reply) {
			try {
				return reply.get(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException("A script call failed", ex);
			}
		}

		private static byte[] bytes(String value) {
			return value.getBytes(StandardCharsets.UTF_8);
		}

	}

}
