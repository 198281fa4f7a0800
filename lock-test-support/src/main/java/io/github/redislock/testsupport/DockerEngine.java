package io.github.redislock.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Whether a Docker engine answers, found without Testcontainers: asked when none is
 * there, Testcontainers logs an {@code ERROR} ("Could not find a valid Docker
 * environment") before the tests fall back to a {@code redis-server} process. This asks
 * {@code GET /_ping} of the engine that {@code DOCKER_HOST} names, or else of the sockets
 * where Docker Engine, Docker Desktop, rootless Docker, Colima, OrbStack and Rancher
 * Desktop listen; only when one answers is Testcontainers asked. A configuration this
 * cannot read ({@code DOCKER_TLS_VERIFY}, a Testcontainers host or client strategy in
 * {@code ~/.testcontainers.properties}, {@code TC_HOST}, a Windows named pipe) is left to
 * Testcontainers.
 */
final class DockerEngine {

	private static final long PING_TIMEOUT_MILLIS = 2_000;

	private final Map<String, String> environment;

	private final Path home;

	DockerEngine(Map<String, String> environment, Path home) {
		this.environment = environment;
		this.home = home;
	}

	/** The engine of this machine's environment and home directory. */
	static DockerEngine ofThisMachine() {
		String home = System.getProperty("user.home");
		return new DockerEngine(System.getenv(), Path.of((home != null) ? home : ""));
	}

	/**
	 * Whether an engine answers, or Docker is configured in a way only Testcontainers
	 * reads.
	 */
	boolean mayAnswer() {
		String dockerHost = this.environment.get("DOCKER_HOST");
		if (configuredForTestcontainersOnly()) {
			return true;
		}
		if (dockerHost != null && !dockerHost.isBlank()) {
			SocketAddress address = address(dockerHost.trim());
			return address == null || pings(address);
		}
		for (Path socket : defaultSockets()) {
			if (Files.exists(socket) && pings(UnixDomainSocketAddress.of(socket))) {
				return true;
			}
		}
		return false;
	}

	private boolean configuredForTestcontainersOnly() {
		if (this.environment.containsKey("TC_HOST") || "1".equals(this.environment.get("DOCKER_TLS_VERIFY"))) {
			return true;
		}
		if (System.getProperty("os.name", "").startsWith("Windows")) {
			return true;
		}
		Path properties = this.home.resolve(".testcontainers.properties");
		try {
			return Files.isReadable(properties) && Files.readAllLines(properties)
				.stream()
				.map(String::trim)
				.anyMatch((line) -> line.startsWith("docker.host") || line.startsWith("tc.host")
						|| line.startsWith("docker.client.strategy"));
		}
		catch (IOException ex) {
			return true;
		}
	}

	/**
	 * The address a {@code DOCKER_HOST} names, or {@code null} for a scheme this does not
	 * read.
	 */
	private static @Nullable SocketAddress address(String dockerHost) {
		try {
			URI uri = URI.create(dockerHost);
			if ("unix".equals(uri.getScheme()) && uri.getPath() != null) {
				return UnixDomainSocketAddress.of(uri.getPath());
			}
			if ("tcp".equals(uri.getScheme()) && uri.getHost() != null) {
				return new InetSocketAddress(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 2375);
			}
			return null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private List<Path> defaultSockets() {
		List<Path> sockets = new ArrayList<>(List.of(Path.of("/var/run/docker.sock"),
				this.home.resolve(".docker/run/docker.sock"), this.home.resolve(".docker/desktop/docker.sock"),
				this.home.resolve(".colima/default/docker.sock"), this.home.resolve(".colima/docker.sock"),
				this.home.resolve(".orbstack/run/docker.sock"), this.home.resolve(".rd/docker.sock")));
		String runtimeDirectory = this.environment.get("XDG_RUNTIME_DIR");
		if (runtimeDirectory != null && !runtimeDirectory.isBlank()) {
			sockets.add(Path.of(runtimeDirectory, "docker.sock"));
		}
		return sockets;
	}

	/** Whether {@code GET /_ping} at the address answers 200 within two seconds. */
	static boolean pings(SocketAddress address) {
		try (SocketChannel channel = (address instanceof UnixDomainSocketAddress)
				? SocketChannel.open(StandardProtocolFamily.UNIX) : SocketChannel.open();
				Selector selector = Selector.open()) {
			channel.configureBlocking(false);
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PING_TIMEOUT_MILLIS);
			if (!channel.connect(address)) {
				channel.register(selector, SelectionKey.OP_CONNECT);
				if (selector.select(PING_TIMEOUT_MILLIS) == 0 || !channel.finishConnect()) {
					return false;
				}
				selector.selectedKeys().clear();
			}
			ByteBuffer request = ByteBuffer
				.wrap("GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
			while (request.hasRemaining()) {
				channel.write(request);
			}
			channel.register(selector, SelectionKey.OP_READ);
			ByteBuffer reply = ByteBuffer.allocate(12);
			while (reply.hasRemaining()) {
				long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
				if (left <= 0) {
					return false;
				}
				selector.select(left);
				selector.selectedKeys().clear();
				if (channel.read(reply) < 0) {
					return false;
				}
			}
			// "HTTP/1.1 200"
			return new String(reply.array(), StandardCharsets.US_ASCII).matches("HTTP/1\\.[01] 200");
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

}
