package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} child process on a free loopback port, owned by the test that
 * started it. By default it keeps nothing on disk, so a restart comes back empty, as a
 * server without persistence would; started with {@code --appendonly yes} it reloads its
 * AOF from its own temporary directory, unless restarted with
 * {@link #restartWithoutData()}.
 */
final class RedisProcess implements RedisServer {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Runs {@code "$@"} (redis-server and its arguments) and kills it when its own
	 * standard input, a pipe from this JVM, ends: the operating system closes the pipe
	 * when the JVM exits, however it exits (a {@code kill -9} too), after every shutdown
	 * hook, so the server outlives the application contexts that close in them. The shell
	 * exits with the server.
	 */
	private static final String UNTIL_STDIN_ENDS = """
			exec 3<&0
			"$@" 3<&- </dev/null &
			pid=$!
			{ read -r _ <&3; kill "$pid" 2>/dev/null; } &
			wait "$pid"
			""";

	private final String executable;

	private final int port;

	private final List<String> extraArguments;

	private final Path directory;

	private @Nullable Process process;

	/**
	 * Sentinel mode: the configuration file a sentinel needs (it rewrites it), else
	 * {@code null}.
	 */
	private @Nullable Path sentinelConfig;

	private boolean paused;

	/** Whether the server stops once this JVM has exited, rather than when closed. */
	private boolean untilJvmExit;

	private RedisProcess(String executable, int port, List<String> extraArguments, Path directory) {
		this.executable = executable;
		this.port = port;
		this.extraArguments = extraArguments;
		this.directory = directory;
	}

	static boolean isInstalled() {
		return findExecutable() != null;
	}

	static RedisProcess start(String... extraArguments) {
		String executable = findExecutable();
		if (executable == null) {
			throw new IllegalStateException("No 'redis-server' on the PATH (or in REDIS_SERVER); install Redis, "
					+ "e.g. 'sudo apt-get install -y redis-server'");
		}
		return startOnAFreePort(executable, extraArguments, false);
	}

	/**
	 * Starts a server that stops once this JVM has exited, however it exits, and not
	 * before: not to be stopped, paused or closed. Where there is no {@code /bin/sh}
	 * (Windows) it is stopped by a shutdown hook instead.
	 */
	static RedisProcess startUntilJvmExit() {
		String executable = findExecutable();
		if (executable == null) {
			throw new IllegalStateException("No 'redis-server' on the PATH (or in REDIS_SERVER); install Redis, "
					+ "e.g. 'sudo apt-get install -y redis-server'");
		}
		boolean shell = Files.isExecutable(Paths.get("/bin/sh"));
		RedisProcess server = startOnAFreePort(executable, new String[0], shell);
		if (!shell) {
			Runtime.getRuntime().addShutdownHook(new Thread(server::close, "redis-server shutdown"));
		}
		return server;
	}

	/**
	 * Starts the given {@code redis-server} executable rather than the installed one: an
	 * older Redis, to test what a client does with it.
	 */
	static RedisProcess start(Path executable, String... extraArguments) {
		if (!Files.isExecutable(executable)) {
			throw new IllegalArgumentException(executable + " is not an executable redis-server");
		}
		return startOnAFreePort(executable.toString(), extraArguments, false);
	}

	private static RedisProcess startOnAFreePort(String executable, String[] extraArguments, boolean untilJvmExit) {
		IllegalStateException lastFailure = null;
		// A free port can be taken by someone else between probing and binding; try a
		// few.
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				Path directory = Files.createTempDirectory("redis-lock-test-");
				RedisProcess server = new RedisProcess(executable, freePort(), List.of(extraArguments), directory);
				server.untilJvmExit = untilJvmExit;
				server.start();
				return server;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (IllegalStateException ex) {
				lastFailure = ex;
			}
		}
		throw lastFailure;
	}

	/**
	 * Starts a sentinel that monitors the given master under the given name.
	 * @param sentinelConfiguration lines of sentinel configuration, e.g.
	 * {@code sentinel monitor ...}
	 */
	static RedisProcess startSentinel(List<String> sentinelConfiguration) {
		String executable = findExecutable();
		if (executable == null) {
			throw new IllegalStateException("No 'redis-server' on the PATH (or in REDIS_SERVER); install Redis, "
					+ "e.g. 'sudo apt-get install -y redis-server'");
		}
		try {
			Path directory = Files.createTempDirectory("redis-lock-sentinel-");
			Path config = directory.resolve("sentinel.conf");
			Files.write(config, sentinelConfiguration);
			RedisProcess sentinel = new RedisProcess(executable, freePort(), List.of(), directory);
			sentinel.sentinelConfig = config;
			sentinel.start();
			return sentinel;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public void start() {
		start(false);
	}

	@Override
	public void startWhileLoading() {
		start(true);
	}

	private synchronized void start(boolean whileLoading) {
		if (this.process != null && this.process.isAlive()) {
			return;
		}
		List<String> command = (this.sentinelConfig != null)
				? new ArrayList<>(List.of(this.executable, this.sentinelConfig.toString(), "--sentinel", "--port",
						String.valueOf(this.port), "--bind", "127.0.0.1", "--protected-mode", "no", "--daemonize", "no",
						"--dir", this.directory.toString()))
				: new ArrayList<>(List.of(this.executable, "--port", String.valueOf(this.port), "--bind", "127.0.0.1",
						"--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no", "--dir",
						this.directory.toString()));
		command.addAll(this.extraArguments);
		if (this.untilJvmExit) {
			command.addAll(0, List.of("/bin/sh", "-c", UNTIL_STDIN_ENDS, "redis-lock-test-redis"));
		}
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("redis.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
		this.paused = false;
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server on port " + this.port + " exited at start-up: " + log());
			}
			if (whileLoading ? RespCommand.answersOrLoading(host(), this.port)
					: RespCommand.answers(host(), this.port)) {
				return;
			}
			try {
				this.process.waitFor(10, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while starting redis-server", ex);
			}
		}
		this.process.destroyForcibly();
		throw new IllegalStateException(
				"redis-server on port " + this.port + " did not answer PING within " + STARTUP_TIMEOUT + ": " + log());
	}

	@Override
	public synchronized void stop() {
		if (this.process == null) {
			return;
		}
		if (this.paused) {
			signal("CONT");
		}
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = null;
		this.paused = false;
	}

	@Override
	public synchronized void restartWithoutData() {
		stop();
		try (var files = Files.list(this.directory)) {
			for (Path file : files.toList()) {
				if (!file.getFileName().toString().equals("redis.log") && !file.equals(this.sentinelConfig)) {
					deleteRecursively(file);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete the data of " + this, ex);
		}
		start();
	}

	@Override
	public synchronized void pause() {
		if (this.process == null || this.paused) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		signal("STOP");
		this.paused = true;
	}

	@Override
	public synchronized void resume() {
		if (this.paused) {
			signal("CONT");
			this.paused = false;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive() && !this.paused;
	}

	@Override
	public synchronized void close() {
		stop();
		try {
			deleteRecursively(this.directory);
		}
		catch (IOException ex) {
			// a leftover temp directory is harmless
		}
	}

	/**
	 * Closes the server's standard input as this JVM's exit does: a server started with
	 * {@link #startUntilJvmExit()} then stops.
	 */
	synchronized void closeStandardInput() {
		Process process = this.process;
		if (process != null) {
			try {
				process.getOutputStream().close();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	@Override
	public String toString() {
		return "redis-server process on " + host() + ":" + this.port;
	}

	private void signal(String signal) {
		Process process = this.process;
		if (process == null) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " failed for redis-server " + process.pid());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void deleteRecursively(Path path) throws IOException {
		try (var files = Files.walk(path)) {
			files.sorted((a, b) -> b.compareTo(a)).map(Path::toFile).forEach(File::delete);
		}
	}

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static @Nullable String findExecutable() {
		return findServer(System.getenv("REDIS_SERVER"));
	}

	/**
	 * The {@code redis-server} to start: the one {@code REDIS_SERVER} names, else the
	 * first on the PATH or in the usual places; {@code null} if there is none.
	 * @param configured the value of {@code REDIS_SERVER}, if set
	 * @throws IllegalStateException if {@code REDIS_SERVER} names no executable file: a
	 * build that pins a Redis must not test against another one unnoticed
	 */
	static @Nullable String findServer(@Nullable String configured) {
		if (configured != null && !configured.isBlank()) {
			if (!Files.isExecutable(Paths.get(configured))) {
				throw new IllegalStateException("REDIS_SERVER is '" + configured + "', which is not an executable "
						+ "file: set it to the path of a redis-server, or unset it to use the one on the PATH");
			}
			return configured;
		}
		return findExecutable("redis-server");
	}

	/**
	 * Finds a Redis executable on the PATH or in the usual places; {@code null} if there
	 * is none.
	 */
	static @Nullable String findExecutable(String name) {
		String configured = System.getenv("REDIS_SERVER");
		if (configured != null && Files.isExecutable(Paths.get(configured).resolveSibling(name))) {
			return Paths.get(configured).resolveSibling(name).toString();
		}
		String path = System.getenv().getOrDefault("PATH", "");
		List<String> candidates = new ArrayList<>(Arrays.asList(path.split(File.pathSeparator)));
		candidates.addAll(List.of("/usr/bin", "/usr/local/bin", "/usr/sbin", "/opt/homebrew/bin"));
		for (String dir : candidates) {
			Path candidate = Paths.get(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate.toString();
			}
		}
		return null;
	}

}
