package io.github.redislock;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * The Redis 6.2 server that the sample's {@code embedded-redis} jar ships, run from the
 * test class path when that jar is on it: the one Redis at hand that can still replicate
 * scripts verbatim ({@code lua-replicate-commands no}, Redis 4's default), which Redis 7
 * no longer offers; and a Redis without sharded pub/sub ({@code SPUBLISH}, Redis 7),
 * whose binary {@link #copyExecutable} hands to a Cluster's nodes.
 */
final class LegacyRedisServer implements AutoCloseable {

	/** The binary's name inside embedded-redis 1.4.4 (it reports 6.2.11). */
	static final String BINARY = "redis-server-6.2.6-v5-linux-amd64";

	private final Path directory;

	private final Process process;

	private final int port;

	private LegacyRedisServer(Path directory, Process process, int port) {
		this.directory = directory;
		this.process = process;
		this.port = port;
	}

	/** Where the binary is on the test class path, or {@code null}. */
	static @Nullable URL find() {
		return LegacyRedisServer.class.getClassLoader().getResource(BINARY);
	}

	static LegacyRedisServer start(URL binary) throws IOException {
		Path directory = Files.createTempDirectory("redis-lock-legacy-");
		Path executable = copyExecutable(binary, directory);
		int port = freePort();
		Process process = new ProcessBuilder(executable.toString(), "--port", Integer.toString(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString())
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("redis.log").toFile())
			.start();
		LegacyRedisServer server = new LegacyRedisServer(directory, process, port);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
				return false;
			}
			catch (IOException ex) {
				return true;
			}
		});
		return server;
	}

	/**
	 * Copies the binary out of its jar into the given directory, as an executable
	 * {@code redis-server}, for processes the caller starts itself (the nodes of a
	 * Cluster).
	 * @return the executable
	 */
	static Path copyExecutable(URL binary, Path directory) throws IOException {
		Path executable = directory.resolve("redis-server");
		try (InputStream in = binary.openStream()) {
			Files.copy(in, executable, StandardCopyOption.REPLACE_EXISTING);
		}
		if (!executable.toFile().setExecutable(true)) {
			throw new IOException("Could not make " + executable + " executable");
		}
		return executable;
	}

	RedisStandaloneConfiguration configuration() {
		return new RedisStandaloneConfiguration("127.0.0.1", this.port);
	}

	/** Sets a configuration parameter through a connection of the factory. */
	static void configure(LettuceConnectionFactory factory, String parameter, String value) {
		new StringRedisTemplate(factory).execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().setConfig(parameter, value);
			return null;
		});
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
			try (var files = Files.walk(this.directory)) {
				files.sorted((a, b) -> b.compareTo(a)).map(Path::toFile).forEach(File::delete);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
