package io.github.redislock.fencing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.junit.jupiter.api.Assumptions;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A PostgreSQL cluster of a test's own: {@code initdb} into a temporary directory, then
 * {@code pg_ctl start} on a free port, stopped and deleted by {@link #close()}. The
 * binaries are found on the PATH, or in the directory the system property
 * {@code redislock.test.postgres.bin} names; without them {@link #startOrSkip()} skips
 * the test, saying so. PostgreSQL refuses to run as root: a test JVM running as root runs
 * them as the OS user {@code redislock.test.postgres.os-user} ({@code postgres} unless
 * set), through {@code runuser}.
 */
final class PostgresCluster implements AutoCloseable {

	private static final String USER = "fence";

	private final Path directory;

	private final List<String> runAs;

	private final String pgCtl;

	private final int port;

	private PostgresCluster(Path directory, List<String> runAs, String pgCtl, int port) {
		this.directory = directory;
		this.runAs = runAs;
		this.pgCtl = pgCtl;
		this.port = port;
	}

	/** Starts a cluster, or skips the calling test when PostgreSQL is not installed. */
	static PostgresCluster startOrSkip() throws IOException, InterruptedException {
		Optional<String> initdb = binary("initdb");
		Optional<String> pgCtl = binary("pg_ctl");
		Assumptions.assumeTrue(initdb.isPresent() && pgCtl.isPresent(),
				"PostgreSQL tests skipped: initdb and pg_ctl are neither on the PATH nor in"
						+ " -Dredislock.test.postgres.bin");
		List<String> runAs = runAs();
		Path directory = Files.createTempDirectory("redis-lock-postgres");
		if (!runAs.isEmpty()) {
			UserPrincipal owner = directory.getFileSystem()
				.getUserPrincipalLookupService()
				.lookupPrincipalByName(runAs.get(2));
			Files.setOwner(directory, owner);
		}
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		PostgresCluster cluster = new PostgresCluster(directory, runAs, pgCtl.get(), port);
		cluster.run(initdb.get(), "-D", cluster.data(), "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8",
				"--locale=C");
		cluster.run(cluster.pgCtl, "-D", cluster.data(), "-l", directory.resolve("server.log").toString(), "-w", "-t",
				"30", "-o", "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
		return cluster;
	}

	DataSource dataSource() {
		return new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:" + this.port + "/postgres", USER, "");
	}

	@Override
	public void close() throws IOException, InterruptedException {
		try {
			run(this.pgCtl, "-D", data(), "-m", "immediate", "-w", "stop");
		}
		finally {
			try (Stream<Path> files = Files.walk(this.directory)) {
				files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
			}
		}
	}

	private String data() {
		return this.directory.resolve("data").toString();
	}

	private void run(String... command) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>(this.runAs);
		line.addAll(Arrays.asList(command));
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		byte[] output = process.getInputStream().readAllBytes();
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			process.destroyForcibly();
			throw new IllegalStateException(
					String.join(" ", line) + " failed:\n" + new String(output, StandardCharsets.UTF_8));
		}
	}

	private static List<String> runAs() throws IOException, InterruptedException {
		if (!"root".equals(System.getProperty("user.name"))) {
			return List.of();
		}
		String user = System.getProperty("redislock.test.postgres.os-user", "postgres");
		Optional<String> runuser = binary("runuser");
		Assumptions.assumeTrue(runuser.isPresent() && exists(user),
				() -> "PostgreSQL tests skipped: PostgreSQL" + " refuses to run as root, and there is no OS user '"
						+ user + "' to run it as through runuser"
						+ " (name one with -Dredislock.test.postgres.os-user)");
		return List.of(runuser.get(), "-u", user, "--");
	}

	private static boolean exists(String user) throws IOException, InterruptedException {
		Process id = new ProcessBuilder("id", "-u", user).redirectErrorStream(true).start();
		id.getInputStream().readAllBytes();
		return id.waitFor() == 0;
	}

	private static Optional<String> binary(String name) {
		String configured = System.getProperty("redislock.test.postgres.bin");
		String path = (configured != null) ? configured : System.getenv().getOrDefault("PATH", "");
		return Arrays.stream(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, name))
			.filter(Files::isExecutable)
			.map(Path::toString)
			.findFirst();
	}

}
