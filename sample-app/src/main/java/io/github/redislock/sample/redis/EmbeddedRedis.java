package io.github.redislock.sample.redis;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

import org.springframework.util.FileSystemUtils;

/**
 * A {@code redis-server} child process on a free loopback port, started for one run of
 * the sample. It uses the {@code redis-server} on the {@code PATH} when there is one, and
 * otherwise the binary for this operating system that the
 * {@code com.github.codemonstur:embedded-redis} artifact ships. It keeps nothing on disk:
 * every run starts empty.
 */
final class EmbeddedRedis {

	private static final Log logger = LogFactory.getLog(EmbeddedRedis.class);

	private static final String HOST = "127.0.0.1";

	private static final int START_ATTEMPTS = 3;

	private final RedisServer server;

	private final int port;

	private final String executable;

	private final Path directory;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private EmbeddedRedis(RedisServer server, int port, String executable, Path directory) {
		this.server = server;
		this.port = port;
		this.executable = executable;
		this.directory = directory;
	}

	/**
	 * Starts a server on a free port.
	 * @return the running server
	 * @throws IllegalStateException if no binary could be found or started
	 */
	static EmbeddedRedis start() {
		Executable executable = findExecutable();
		IOException lastFailure = null;
		// A port found free can be taken by someone else before redis-server binds it.
		for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
			try {
				return start(executable, freePort());
			}
			catch (IOException ex) {
				lastFailure = ex;
			}
		}
		throw new IllegalStateException("Could not start " + executable.description(), lastFailure);
	}

	private static EmbeddedRedis start(Executable executable, int port) throws IOException {
		Path directory = Files.createTempDirectory("redis-lock-sample-");
		RedisServer server = RedisServer.newRedisServer()
			.executableProvider(executable::file)
			.bind(HOST)
			.port(port)
			.setting("save \"\"")
			.setting("appendonly no")
			.setting("dir \"" + directory + "\"")
			// read the server's output so that a full pipe can never stall it
			.soutListener(logger::debug)
			.serrListener(logger::debug)
			.build();
		try {
			server.start();
		}
		catch (IOException ex) {
			FileSystemUtils.deleteRecursively(directory);
			throw ex;
		}
		return new EmbeddedRedis(server, port, executable.description(), directory);
	}

	String host() {
		return HOST;
	}

	int port() {
		return this.port;
	}

	/** Which binary runs, and where it came from. */
	String executable() {
		return this.executable;
	}

	/** Stops the server; further calls do nothing. */
	void stop() {
		if (!this.stopped.compareAndSet(false, true)) {
			return;
		}
		try {
			this.server.stop();
			logger.info("Stopped the embedded Redis on " + HOST + ":" + this.port);
		}
		catch (IOException ex) {
			logger.warn("Could not stop the embedded Redis on " + HOST + ":" + this.port, ex);
		}
		try {
			FileSystemUtils.deleteRecursively(this.directory);
		}
		catch (IOException ex) {
			// a leftover empty temporary directory is harmless
		}
	}

	private static Executable findExecutable() {
		try {
			File onPath = ExecutableProvider.newExecutableInPath("redis-server").get();
			return new Executable(onPath, onPath + " (found on the PATH)");
		}
		catch (FileNotFoundException ex) {
			return fromArtifact();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Executable fromArtifact() {
		try {
			File shipped = ExecutableProvider.newJarResourceProvider().get();
			return new Executable(shipped,
					shipped + " (no redis-server on the PATH; binary from " + "com.github.codemonstur:embedded-redis)");
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException("No redis-server on the PATH, and no Redis binary of "
					+ "com.github.codemonstur:embedded-redis could be used on " + System.getProperty("os.name") + " "
					+ System.getProperty("os.arch") + " (" + ex.getMessage() + "); install Redis or point "
					+ "spring.data.redis.host/port at one", ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private record Executable(File file, String description) {

	}

}
